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

T = TypeVar("T", bound="OptimizationStrategyInputIntelligent")


@_attrs_define
class OptimizationStrategyInputIntelligent:
    """Keep what matters (recent messages, tool pairs, recently used files and resources) and
    summarize older text.

        Attributes:
            type_ (Literal['intelligent']):
    """

    type_: Literal["intelligent"]
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
        type_ = cast(Literal["intelligent"], d.pop("type"))
        if type_ != "intelligent":
            raise ValueError(f"type must match const 'intelligent', got '{type_}'")

        optimization_strategy_input_intelligent = cls(
            type_=type_,
        )

        optimization_strategy_input_intelligent.additional_properties = d
        return optimization_strategy_input_intelligent

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
