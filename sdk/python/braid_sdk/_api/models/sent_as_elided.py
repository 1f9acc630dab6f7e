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

T = TypeVar("T", bound="SentAsElided")


@_attrs_define
class SentAsElided:
    """A tool result whose output was left out to fit, the call and its status kept.

    Attributes:
        tokens_before (int): Its tokens whole.
        type_ (Literal['elided']):
    """

    tokens_before: int
    type_: Literal["elided"]
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        tokens_before = self.tokens_before

        type_ = self.type_

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "tokens_before": tokens_before,
                "type": type_,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        tokens_before = d.pop("tokens_before")

        type_ = cast(Literal["elided"], d.pop("type"))
        if type_ != "elided":
            raise ValueError(f"type must match const 'elided', got '{type_}'")

        sent_as_elided = cls(
            tokens_before=tokens_before,
            type_=type_,
        )

        sent_as_elided.additional_properties = d
        return sent_as_elided

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
