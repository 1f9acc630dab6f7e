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

T = TypeVar("T", bound="FileChangeReplaces")


@_attrs_define
class FileChangeReplaces:
    """The call replaces a text that starts at `at_line` of the file as it is now.

    Attributes:
        after (str): Its content after the call.
        at_line (int): The line (from 1) where the replaced text starts.
        before (str): The file's content now.
        type_ (Literal['replaces']):
    """

    after: str
    at_line: int
    before: str
    type_: Literal["replaces"]
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        after = self.after

        at_line = self.at_line

        before = self.before

        type_ = self.type_

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "after": after,
                "at_line": at_line,
                "before": before,
                "type": type_,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        after = d.pop("after")

        at_line = d.pop("at_line")

        before = d.pop("before")

        type_ = cast(Literal["replaces"], d.pop("type"))
        if type_ != "replaces":
            raise ValueError(f"type must match const 'replaces', got '{type_}'")

        file_change_replaces = cls(
            after=after,
            at_line=at_line,
            before=before,
            type_=type_,
        )

        file_change_replaces.additional_properties = d
        return file_change_replaces

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
