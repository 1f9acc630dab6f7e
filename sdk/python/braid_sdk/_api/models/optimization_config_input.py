from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.optimization_strategy_input_importance_scoring import (
        OptimizationStrategyInputImportanceScoring,
    )
    from ..models.optimization_strategy_input_intelligent import (
        OptimizationStrategyInputIntelligent,
    )
    from ..models.optimization_strategy_input_recent_n import (
        OptimizationStrategyInputRecentN,
    )


T = TypeVar("T", bound="OptimizationConfigInput")


@_attrs_define
class OptimizationConfigInput:
    """Optimization settings.

    Attributes:
        ledger_percent (int | Unset): The most of the prompt's budget, in percent, the ledger block may take (what left-
            out
            messages did, and the pinned facts); older entries are counted instead of listed
            beyond it. 0 sends no ledger (pinned facts still ride). Default: 15.
        margin_tokens (int | Unset): Extra tokens kept free as a safety margin against miscounting. Default: 256.
        reserve_output_tokens (int | Unset): Tokens kept free for the model's answer. Default: 4096.
        strategy (OptimizationStrategyInputImportanceScoring | OptimizationStrategyInputIntelligent |
            OptimizationStrategyInputRecentN | Unset): How history is trimmed to fit the model's context window.
    """

    ledger_percent: int | Unset = 15
    margin_tokens: int | Unset = 256
    reserve_output_tokens: int | Unset = 4096
    strategy: (
        OptimizationStrategyInputImportanceScoring
        | OptimizationStrategyInputIntelligent
        | OptimizationStrategyInputRecentN
        | Unset
    ) = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.optimization_strategy_input_intelligent import (
            OptimizationStrategyInputIntelligent,
        )
        from ..models.optimization_strategy_input_recent_n import (
            OptimizationStrategyInputRecentN,
        )

        ledger_percent = self.ledger_percent

        margin_tokens = self.margin_tokens

        reserve_output_tokens = self.reserve_output_tokens

        strategy: dict[str, Any] | Unset
        if isinstance(self.strategy, Unset):
            strategy = UNSET
        elif isinstance(self.strategy, OptimizationStrategyInputRecentN) or isinstance(
            self.strategy, OptimizationStrategyInputIntelligent
        ):
            strategy = self.strategy.to_dict()
        else:
            strategy = self.strategy.to_dict()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({})
        if ledger_percent is not UNSET:
            field_dict["ledger_percent"] = ledger_percent
        if margin_tokens is not UNSET:
            field_dict["margin_tokens"] = margin_tokens
        if reserve_output_tokens is not UNSET:
            field_dict["reserve_output_tokens"] = reserve_output_tokens
        if strategy is not UNSET:
            field_dict["strategy"] = strategy

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.optimization_strategy_input_importance_scoring import (
            OptimizationStrategyInputImportanceScoring,
        )
        from ..models.optimization_strategy_input_intelligent import (
            OptimizationStrategyInputIntelligent,
        )
        from ..models.optimization_strategy_input_recent_n import (
            OptimizationStrategyInputRecentN,
        )

        d = dict(src_dict)
        ledger_percent = d.pop("ledger_percent", UNSET)

        margin_tokens = d.pop("margin_tokens", UNSET)

        reserve_output_tokens = d.pop("reserve_output_tokens", UNSET)

        def _parse_strategy(
            data: object,
        ) -> (
            OptimizationStrategyInputImportanceScoring
            | OptimizationStrategyInputIntelligent
            | OptimizationStrategyInputRecentN
            | Unset
        ):
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_optimization_strategy_input_type_0 = (
                    OptimizationStrategyInputRecentN.from_dict(data)
                )

                return componentsschemas_optimization_strategy_input_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_optimization_strategy_input_type_1 = (
                    OptimizationStrategyInputIntelligent.from_dict(data)
                )

                return componentsschemas_optimization_strategy_input_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            if not isinstance(data, dict):
                raise TypeError()
            componentsschemas_optimization_strategy_input_type_2 = (
                OptimizationStrategyInputImportanceScoring.from_dict(data)
            )

            return componentsschemas_optimization_strategy_input_type_2

        strategy = _parse_strategy(d.pop("strategy", UNSET))

        optimization_config_input = cls(
            ledger_percent=ledger_percent,
            margin_tokens=margin_tokens,
            reserve_output_tokens=reserve_output_tokens,
            strategy=strategy,
        )

        optimization_config_input.additional_properties = d
        return optimization_config_input

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
