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

T = TypeVar("T", bound="FileResolutionFailed")


@_attrs_define
class FileResolutionFailed:
    """Could not be read: missing, outside the workspace, not permitted, or a bad range.

    Attributes:
        error (str): Why.
        type_ (Literal['failed']):
    """

    error: str
    type_: Literal["failed"]
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        error = self.error

        type_ = self.type_

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "error": error,
                "type": type_,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        error = d.pop("error")

        type_ = cast(Literal["failed"], d.pop("type"))
        if type_ != "failed":
            raise ValueError(f"type must match const 'failed', got '{type_}'")

        file_resolution_failed = cls(
            error=error,
            type_=type_,
        )

        file_resolution_failed.additional_properties = d
        return file_resolution_failed

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
