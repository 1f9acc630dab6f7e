from __future__ import annotations

import datetime
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

T = TypeVar("T", bound="FileResolutionResolved")


@_attrs_define
class FileResolutionResolved:
    """Read: `content` holds the lines, each prefixed with its number.

    Attributes:
        content (str): The content, marked with 1-indexed line numbers.
        resolved_at (datetime.datetime): When it was read. Default:
            datetime.datetime.fromisoformat('1970-01-01T00:00:00Z').
        size_bytes (int): Bytes of the file on disk.
        total_lines (int): How many lines the whole file has.
        type_ (Literal['resolved']):
    """

    content: str
    size_bytes: int
    total_lines: int
    type_: Literal["resolved"]
    resolved_at: datetime.datetime = datetime.datetime.fromisoformat(
        "1970-01-01T00:00:00Z"
    )
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        content = self.content

        resolved_at = self.resolved_at.isoformat()

        size_bytes = self.size_bytes

        total_lines = self.total_lines

        type_ = self.type_

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "content": content,
                "resolved_at": resolved_at,
                "size_bytes": size_bytes,
                "total_lines": total_lines,
                "type": type_,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        content = d.pop("content")

        resolved_at = datetime.datetime.fromisoformat(d.pop("resolved_at"))

        size_bytes = d.pop("size_bytes")

        total_lines = d.pop("total_lines")

        type_ = cast(Literal["resolved"], d.pop("type"))
        if type_ != "resolved":
            raise ValueError(f"type must match const 'resolved', got '{type_}'")

        file_resolution_resolved = cls(
            content=content,
            resolved_at=resolved_at,
            size_bytes=size_bytes,
            total_lines=total_lines,
            type_=type_,
        )

        file_resolution_resolved.additional_properties = d
        return file_resolution_resolved

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
