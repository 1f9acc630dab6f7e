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

T = TypeVar("T", bound="FileChangeOverwrites")


@_attrs_define
class FileChangeOverwrites:
    """The file exists: the call replaces all of its `before_lines` lines with `after`.

    Attributes:
        after (str): Its content after the call.
        before (str): The file's content now.
        before_lines (int): Lines in the file now.
        type_ (Literal['overwrites']):
    """

    after: str
    before: str
    before_lines: int
    type_: Literal["overwrites"]
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        after = self.after

        before = self.before

        before_lines = self.before_lines

        type_ = self.type_

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "after": after,
                "before": before,
                "before_lines": before_lines,
                "type": type_,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        after = d.pop("after")

        before = d.pop("before")

        before_lines = d.pop("before_lines")

        type_ = cast(Literal["overwrites"], d.pop("type"))
        if type_ != "overwrites":
            raise ValueError(f"type must match const 'overwrites', got '{type_}'")

        file_change_overwrites = cls(
            after=after,
            before=before,
            before_lines=before_lines,
            type_=type_,
        )

        file_change_overwrites.additional_properties = d
        return file_change_overwrites

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
