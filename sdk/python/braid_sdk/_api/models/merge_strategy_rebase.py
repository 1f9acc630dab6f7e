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

T = TypeVar("T", bound="MergeStrategyRebase")


@_attrs_define
class MergeStrategyRebase:
    """Replay the source's messages since the common ancestor after the target's own, which all
    stay.

        Attributes:
            type_ (Literal['rebase']):
    """

    type_: Literal["rebase"]
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        type_ = self.type_

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "type": type_,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        type_ = cast(Literal["rebase"], d.pop("type"))
        if type_ != "rebase":
            raise ValueError(f"type must match const 'rebase', got '{type_}'")

        merge_strategy_rebase = cls(
            type_=type_,
        )

        merge_strategy_rebase.additional_properties = d
        return merge_strategy_rebase

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
