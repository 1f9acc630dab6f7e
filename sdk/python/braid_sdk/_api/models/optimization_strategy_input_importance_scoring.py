from __future__ import annotations

from collections.abc import Mapping
from typing import (
    TYPE_CHECKING,
    Any,
    Literal,
    Self,
    TypeVar,
    cast,
)

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.optimization_strategy_input_importance_scoring_weights import (
        OptimizationStrategyInputImportanceScoringWeights,
    )


T = TypeVar("T", bound="OptimizationStrategyInputImportanceScoring")


@_attrs_define
class OptimizationStrategyInputImportanceScoring:
    """Score each message and keep the best that fit.

    Attributes:
        type_ (Literal['importance_scoring']):
        weights (OptimizationStrategyInputImportanceScoringWeights | Unset): Weight per factor (`recency`, `kind`,
            `references`...); missing factors weigh 1.
    """

    type_: Literal["importance_scoring"]
    weights: OptimizationStrategyInputImportanceScoringWeights | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        type_ = self.type_

        weights: dict[str, Any] | Unset = UNSET
        if not isinstance(self.weights, Unset):
            weights = self.weights.to_dict()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "type": type_,
            }
        )
        if weights is not UNSET:
            field_dict["weights"] = weights

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.optimization_strategy_input_importance_scoring_weights import (
            OptimizationStrategyInputImportanceScoringWeights,
        )

        d = dict(src_dict)
        type_ = cast(Literal["importance_scoring"], d.pop("type"))
        if type_ != "importance_scoring":
            raise ValueError(
                f"type must match const 'importance_scoring', got '{type_}'"
            )

        _weights = d.pop("weights", UNSET)
        weights: OptimizationStrategyInputImportanceScoringWeights | Unset
        if isinstance(_weights, Unset):
            weights = UNSET
        else:
            weights = OptimizationStrategyInputImportanceScoringWeights.from_dict(
                _weights
            )

        optimization_strategy_input_importance_scoring = cls(
            type_=type_,
            weights=weights,
        )

        optimization_strategy_input_importance_scoring.additional_properties = d
        return optimization_strategy_input_importance_scoring

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
