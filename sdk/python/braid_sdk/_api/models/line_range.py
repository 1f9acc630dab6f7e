from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="LineRange")


@_attrs_define
class LineRange:
    """A 1-indexed, inclusive range of lines in a file.

    Attributes:
        end_line (int): Last line, inclusive; at least `start_line`.
        start_line (int): First line, counting from 1.
    """

    end_line: int
    start_line: int
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        end_line = self.end_line

        start_line = self.start_line

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "end_line": end_line,
                "start_line": start_line,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        end_line = d.pop("end_line")

        start_line = d.pop("start_line")

        line_range = cls(
            end_line=end_line,
            start_line=start_line,
        )

        line_range.additional_properties = d
        return line_range

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
