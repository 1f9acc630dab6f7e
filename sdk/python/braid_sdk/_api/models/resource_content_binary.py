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

T = TypeVar("T", bound="ResourceContentBinary")


@_attrs_define
class ResourceContentBinary:
    """Binary content, summarized.

    Attributes:
        size_bytes (int): Its size.
        summary (str): A description for the model (type, size, what it is).
        type_ (Literal['binary']):
    """

    size_bytes: int
    summary: str
    type_: Literal["binary"]
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        size_bytes = self.size_bytes

        summary = self.summary

        type_ = self.type_

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "size_bytes": size_bytes,
                "summary": summary,
                "type": type_,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        size_bytes = d.pop("size_bytes")

        summary = d.pop("summary")

        type_ = cast(Literal["binary"], d.pop("type"))
        if type_ != "binary":
            raise ValueError(f"type must match const 'binary', got '{type_}'")

        resource_content_binary = cls(
            size_bytes=size_bytes,
            summary=summary,
            type_=type_,
        )

        resource_content_binary.additional_properties = d
        return resource_content_binary

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
