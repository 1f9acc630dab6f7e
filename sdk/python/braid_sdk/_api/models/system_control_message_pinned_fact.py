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

T = TypeVar("T", bound="SystemControlMessagePinnedFact")


@_attrs_define
class SystemControlMessagePinnedFact:
    """A fact the person pinned: while the message is pinned (`metadata.pinned`), every
    request carries it in the ledger block, first and never cut.

        Attributes:
            text (str): The fact, as the person wrote it.
            type_ (Literal['pinned_fact']):
    """

    text: str
    type_: Literal["pinned_fact"]
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        text = self.text

        type_ = self.type_

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "text": text,
                "type": type_,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        text = d.pop("text")

        type_ = cast(Literal["pinned_fact"], d.pop("type"))
        if type_ != "pinned_fact":
            raise ValueError(f"type must match const 'pinned_fact', got '{type_}'")

        system_control_message_pinned_fact = cls(
            text=text,
            type_=type_,
        )

        system_control_message_pinned_fact.additional_properties = d
        return system_control_message_pinned_fact

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
