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

T = TypeVar("T", bound="FileChangeUnshowable")


@_attrs_define
class FileChangeUnshowable:
    """The change cannot be shown as a diff, or the call would fail: `reason` says why (the file
    is too large to preview or not text, the text to replace is missing or not unique,
    `create_file` over an existing file).

        Attributes:
            reason (str): Why, in words for the person.
            type_ (Literal['unshowable']):
    """

    reason: str
    type_: Literal["unshowable"]
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        reason = self.reason

        type_ = self.type_

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "reason": reason,
                "type": type_,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        reason = d.pop("reason")

        type_ = cast(Literal["unshowable"], d.pop("type"))
        if type_ != "unshowable":
            raise ValueError(f"type must match const 'unshowable', got '{type_}'")

        file_change_unshowable = cls(
            reason=reason,
            type_=type_,
        )

        file_change_unshowable.additional_properties = d
        return file_change_unshowable

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
