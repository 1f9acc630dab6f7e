from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.optimization_strategy_importance_scoring import (
        OptimizationStrategyImportanceScoring,
    )
    from ..models.optimization_strategy_intelligent import (
        OptimizationStrategyIntelligent,
    )
    from ..models.optimization_strategy_recent_n import OptimizationStrategyRecentN


T = TypeVar("T", bound="OptimizationConfig")


@_attrs_define
class OptimizationConfig:
    """Optimization settings.

    Attributes:
        ledger_percent (int): The most of the prompt's budget, in percent, the ledger block may take (what left-out
            messages did, and the pinned facts); older entries are counted instead of listed
            beyond it. 0 sends no ledger (pinned facts still ride). Default: 15.
        margin_tokens (int): Extra tokens kept free as a safety margin against miscounting. Default: 256.
        reserve_output_tokens (int): Tokens kept free for the model's answer. Default: 4096.
        strategy (OptimizationStrategyImportanceScoring | OptimizationStrategyIntelligent |
            OptimizationStrategyRecentN): How history is trimmed to fit the model's context window.
    """

    strategy: (
        OptimizationStrategyImportanceScoring
        | OptimizationStrategyIntelligent
        | OptimizationStrategyRecentN
    )
    ledger_percent: int = 15
    margin_tokens: int = 256
    reserve_output_tokens: int = 4096
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.optimization_strategy_intelligent import (
            OptimizationStrategyIntelligent,
        )
        from ..models.optimization_strategy_recent_n import OptimizationStrategyRecentN

        ledger_percent = self.ledger_percent

        margin_tokens = self.margin_tokens

        reserve_output_tokens = self.reserve_output_tokens

        strategy: dict[str, Any]
        if isinstance(self.strategy, OptimizationStrategyRecentN) or isinstance(
            self.strategy, OptimizationStrategyIntelligent
        ):
            strategy = self.strategy.to_dict()
        else:
            strategy = self.strategy.to_dict()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "ledger_percent": ledger_percent,
                "margin_tokens": margin_tokens,
                "reserve_output_tokens": reserve_output_tokens,
                "strategy": strategy,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.optimization_strategy_importance_scoring import (
            OptimizationStrategyImportanceScoring,
        )
        from ..models.optimization_strategy_intelligent import (
            OptimizationStrategyIntelligent,
        )
        from ..models.optimization_strategy_recent_n import OptimizationStrategyRecentN

        d = dict(src_dict)
        ledger_percent = d.pop("ledger_percent")

        margin_tokens = d.pop("margin_tokens")

        reserve_output_tokens = d.pop("reserve_output_tokens")

        def _parse_strategy(
            data: object,
        ) -> (
            OptimizationStrategyImportanceScoring
            | OptimizationStrategyIntelligent
            | OptimizationStrategyRecentN
        ):
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_optimization_strategy_type_0 = (
                    OptimizationStrategyRecentN.from_dict(data)
                )

                return componentsschemas_optimization_strategy_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_optimization_strategy_type_1 = (
                    OptimizationStrategyIntelligent.from_dict(data)
                )

                return componentsschemas_optimization_strategy_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            if not isinstance(data, dict):
                raise TypeError()
            componentsschemas_optimization_strategy_type_2 = (
                OptimizationStrategyImportanceScoring.from_dict(data)
            )

            return componentsschemas_optimization_strategy_type_2

        strategy = _parse_strategy(d.pop("strategy"))

        optimization_config = cls(
            ledger_percent=ledger_percent,
            margin_tokens=margin_tokens,
            reserve_output_tokens=reserve_output_tokens,
            strategy=strategy,
        )

        optimization_config.additional_properties = d
        return optimization_config

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
