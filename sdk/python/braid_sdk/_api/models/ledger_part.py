from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="LedgerPart")


@_attrs_define
class LedgerPart:
    """The ledger block a request carried.

    Attributes:
        collapsed (int): Older entries the block's share of the window could only count.
        listed (int): Entries listed by name (paths, commands, errors, resources, images, facts).
        text (str): The block as sent.
        tokens (int): Its tokens.
    """

    collapsed: int
    listed: int
    text: str
    tokens: int
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        collapsed = self.collapsed

        listed = self.listed

        text = self.text

        tokens = self.tokens

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "collapsed": collapsed,
                "listed": listed,
                "text": text,
                "tokens": tokens,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        collapsed = d.pop("collapsed")

        listed = d.pop("listed")

        text = d.pop("text")

        tokens = d.pop("tokens")

        ledger_part = cls(
            collapsed=collapsed,
            listed=listed,
            text=text,
            tokens=tokens,
        )

        ledger_part.additional_properties = d
        return ledger_part

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
