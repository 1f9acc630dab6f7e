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

T = TypeVar("T", bound="FileChangeCreates")


@_attrs_define
class FileChangeCreates:
    """The file does not exist: the call creates it with `after`.

    Attributes:
        after (str): The new file's content.
        type_ (Literal['creates']):
    """

    after: str
    type_: Literal["creates"]
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        after = self.after

        type_ = self.type_

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "after": after,
                "type": type_,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        after = d.pop("after")

        type_ = cast(Literal["creates"], d.pop("type"))
        if type_ != "creates":
            raise ValueError(f"type must match const 'creates', got '{type_}'")

        file_change_creates = cls(
            after=after,
            type_=type_,
        )

        file_change_creates.additional_properties = d
        return file_change_creates

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
