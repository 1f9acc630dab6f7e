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

from ..types import UNSET, Unset

T = TypeVar("T", bound="SystemControlMessageSummary")


@_attrs_define
class SystemControlMessageSummary:
    """A summary the model wrote of older messages. In requests it stands in for the messages it
    replaces; those stay stored and viewable.

        Attributes:
            replaces (list[UUID]): The ids of the messages it replaces, oldest first.
            text (str): The summary.
            type_ (Literal['summary']):
            tokens_after (int | Unset): Tokens of the summary. Default: 0.
            tokens_before (int | Unset): Tokens of the replaced messages. Default: 0.
    """

    replaces: list[UUID]
    text: str
    type_: Literal["summary"]
    tokens_after: int | Unset = 0
    tokens_before: int | Unset = 0
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        replaces = []
        for replaces_item_data in self.replaces:
            replaces_item = str(replaces_item_data)
            replaces.append(replaces_item)

        text = self.text

        type_ = self.type_

        tokens_after = self.tokens_after

        tokens_before = self.tokens_before

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "replaces": replaces,
                "text": text,
                "type": type_,
            }
        )
        if tokens_after is not UNSET:
            field_dict["tokens_after"] = tokens_after
        if tokens_before is not UNSET:
            field_dict["tokens_before"] = tokens_before

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        replaces = []
        _replaces = d.pop("replaces")
        for replaces_item_data in _replaces:
            replaces_item = UUID(replaces_item_data)

            replaces.append(replaces_item)

        text = d.pop("text")

        type_ = cast(Literal["summary"], d.pop("type"))
        if type_ != "summary":
            raise ValueError(f"type must match const 'summary', got '{type_}'")

        tokens_after = d.pop("tokens_after", UNSET)

        tokens_before = d.pop("tokens_before", UNSET)

        system_control_message_summary = cls(
            replaces=replaces,
            text=text,
            type_=type_,
            tokens_after=tokens_after,
            tokens_before=tokens_before,
        )

        system_control_message_summary.additional_properties = d
        return system_control_message_summary

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
