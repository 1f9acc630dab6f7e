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

T = TypeVar("T", bound="SystemControlMessageSummary")


@_attrs_define
class SystemControlMessageSummary:
    """A summary the model wrote of older messages. In requests it stands in for the messages it
    replaces; those stay stored and viewable.

        Attributes:
            replaces (list[UUID]): The ids of the messages it replaces, oldest first.
            text (str): The summary.
            tokens_after (int): Tokens of the summary. Default: 0.
            tokens_before (int): Tokens of the replaced messages. Default: 0.
            type_ (Literal['summary']):
    """

    replaces: list[UUID]
    text: str
    type_: Literal["summary"]
    tokens_after: int = 0
    tokens_before: int = 0
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        replaces = []
        for replaces_item_data in self.replaces:
            replaces_item = str(replaces_item_data)
            replaces.append(replaces_item)

        text = self.text

        tokens_after = self.tokens_after

        tokens_before = self.tokens_before

        type_ = self.type_

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "replaces": replaces,
                "text": text,
                "tokens_after": tokens_after,
                "tokens_before": tokens_before,
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

        text = d.pop("text")

        tokens_after = d.pop("tokens_after")

        tokens_before = d.pop("tokens_before")

        type_ = cast(Literal["summary"], d.pop("type"))
        if type_ != "summary":
            raise ValueError(f"type must match const 'summary', got '{type_}'")

        system_control_message_summary = cls(
            replaces=replaces,
            text=text,
            tokens_after=tokens_after,
            tokens_before=tokens_before,
            type_=type_,
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
