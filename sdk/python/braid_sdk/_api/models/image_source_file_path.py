from __future__ import annotations

from collections.abc import Mapping
from typing import (
    Any,
    Literal,
    Self,
    TypeVar,
    cast,
)

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="ImageSourceFilePath")


@_attrs_define
class ImageSourceFilePath:
    """A file in the workspace.

    Attributes:
        path (str): Workspace-relative (or absolute, inside the workspace) path.
        type_ (Literal['file_path']):
    """

    path: str
    type_: Literal["file_path"]
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        path = self.path

        type_ = self.type_

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "path": path,
                "type": type_,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        path = d.pop("path")

        type_ = cast(Literal["file_path"], d.pop("type"))
        if type_ != "file_path":
            raise ValueError(f"type must match const 'file_path', got '{type_}'")

        image_source_file_path = cls(
            path=path,
            type_=type_,
        )

        image_source_file_path.additional_properties = d
        return image_source_file_path

    @property
    def additional_keys(self) -> list[str]:
        return list(self.additional_properties.keys())

    def __getitem__(self, key: str) -> Any:
        return self.additional_properties[key]

    def __setitem__(self, key: str, value: Any) -> None:
        self.additional_properties[key] = value

    def __delitem__(self, key: str) -> None:
        del self.additional_properties[key]

    def __contains__(self, key: str) -> bool:
        return key in self.additional_properties
