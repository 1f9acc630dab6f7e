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

T = TypeVar("T", bound="OptimizationStrategyInputRecentN")


@_attrs_define
class OptimizationStrategyInputRecentN:
    """Keep the newest `n` messages (tool pairs are never split).

    Attributes:
        n (int): How many of the newest messages to keep.
        type_ (Literal['recent_n']):
    """

    n: int
    type_: Literal["recent_n"]
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        n = self.n

        type_ = self.type_

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "n": n,
                "type": type_,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        n = d.pop("n")

        type_ = cast(Literal["recent_n"], d.pop("type"))
        if type_ != "recent_n":
            raise ValueError(f"type must match const 'recent_n', got '{type_}'")

        optimization_strategy_input_recent_n = cls(
            n=n,
            type_=type_,
        )

        optimization_strategy_input_recent_n.additional_properties = d
        return optimization_strategy_input_recent_n

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
