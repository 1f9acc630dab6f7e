from __future__ import annotations

from collections.abc import Mapping
from typing import (
    Any,
    Literal,
    Self,
    TypeVar,
    cast,
)
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="SentAsSummary")


@_attrs_define
class SentAsSummary:
    """A summary, standing in for the messages it replaces.

    Attributes:
        replaces (list[UUID]): The messages it stands in for, oldest first.
        type_ (Literal['summary']):
    """

    replaces: list[UUID]
    type_: Literal["summary"]
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        replaces = []
        for replaces_item_data in self.replaces:
            replaces_item = str(replaces_item_data)
            replaces.append(replaces_item)

        type_ = self.type_

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "replaces": replaces,
                "type": type_,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        replaces = []
        _replaces = d.pop("replaces")
        for replaces_item_data in _replaces:
            replaces_item = UUID(replaces_item_data)

            replaces.append(replaces_item)

        type_ = cast(Literal["summary"], d.pop("type"))
        if type_ != "summary":
            raise ValueError(f"type must match const 'summary', got '{type_}'")

        sent_as_summary = cls(
            replaces=replaces,
            type_=type_,
        )

        sent_as_summary.additional_properties = d
        return sent_as_summary

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
