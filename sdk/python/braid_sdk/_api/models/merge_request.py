from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.conflict_resolution import ConflictResolution
    from ..models.merge_strategy_append import MergeStrategyAppend
    from ..models.merge_strategy_cherry_pick import MergeStrategyCherryPick
    from ..models.merge_strategy_rebase import MergeStrategyRebase
    from ..models.merge_strategy_summary import MergeStrategySummary


T = TypeVar("T", bound="MergeRequest")


@_attrs_define
class MergeRequest:
    """`POST .../branches/{name}/merge`: merge branch `{name}` (the source) into `target`.

    Attributes:
        strategy (MergeStrategyAppend | MergeStrategyCherryPick | MergeStrategyRebase | MergeStrategySummary): Branch
            merge strategies.
        accept_warnings (bool | Unset): Go ahead although dependencies are missing (the warnings of a cherry-pick).
        dry_run (bool | Unset): Only preview: answer what the merge would do and change nothing.
        resolutions (list[ConflictResolution] | Unset): How to settle each conflict; a merge with conflicts completes
            only when every one has a
            resolution.
        target (None | str | Unset): The branch to merge into; the active branch when absent.
    """

    strategy: (
        MergeStrategyAppend
        | MergeStrategyCherryPick
        | MergeStrategyRebase
        | MergeStrategySummary
    )
    accept_warnings: bool | Unset = UNSET
    dry_run: bool | Unset = UNSET
    resolutions: list[ConflictResolution] | Unset = UNSET
    target: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.merge_strategy_append import MergeStrategyAppend
        from ..models.merge_strategy_cherry_pick import MergeStrategyCherryPick
        from ..models.merge_strategy_rebase import MergeStrategyRebase

        strategy: dict[str, Any]
        if (
            isinstance(self.strategy, MergeStrategyAppend)
            or isinstance(self.strategy, MergeStrategyCherryPick)
            or isinstance(self.strategy, MergeStrategyRebase)
        ):
            strategy = self.strategy.to_dict()
        else:
            strategy = self.strategy.to_dict()

        accept_warnings = self.accept_warnings

        dry_run = self.dry_run

        resolutions: list[dict[str, Any]] | Unset = UNSET
        if not isinstance(self.resolutions, Unset):
            resolutions = []
            for resolutions_item_data in self.resolutions:
                resolutions_item = resolutions_item_data.to_dict()
                resolutions.append(resolutions_item)

        target: None | str | Unset
        if isinstance(self.target, Unset):
            target = UNSET
        else:
            target = self.target

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "strategy": strategy,
            }
        )
        if accept_warnings is not UNSET:
            field_dict["accept_warnings"] = accept_warnings
        if dry_run is not UNSET:
            field_dict["dry_run"] = dry_run
        if resolutions is not UNSET:
            field_dict["resolutions"] = resolutions
        if target is not UNSET:
            field_dict["target"] = target

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.conflict_resolution import ConflictResolution
        from ..models.merge_strategy_append import MergeStrategyAppend
        from ..models.merge_strategy_cherry_pick import MergeStrategyCherryPick
        from ..models.merge_strategy_rebase import MergeStrategyRebase
        from ..models.merge_strategy_summary import MergeStrategySummary

        d = dict(src_dict)

        def _parse_strategy(
            data: object,
        ) -> (
            MergeStrategyAppend
            | MergeStrategyCherryPick
            | MergeStrategyRebase
            | MergeStrategySummary
        ):
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_merge_strategy_type_0 = MergeStrategyAppend.from_dict(
                    data
                )

                return componentsschemas_merge_strategy_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_merge_strategy_type_1 = (
                    MergeStrategyCherryPick.from_dict(data)
                )

                return componentsschemas_merge_strategy_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_merge_strategy_type_2 = MergeStrategyRebase.from_dict(
                    data
                )

                return componentsschemas_merge_strategy_type_2
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            if not isinstance(data, dict):
                raise TypeError()
            componentsschemas_merge_strategy_type_3 = MergeStrategySummary.from_dict(
                data
            )

            return componentsschemas_merge_strategy_type_3

        strategy = _parse_strategy(d.pop("strategy"))

        accept_warnings = d.pop("accept_warnings", UNSET)

        dry_run = d.pop("dry_run", UNSET)

        _resolutions = d.pop("resolutions", UNSET)
        resolutions: list[ConflictResolution] | Unset = UNSET
        if _resolutions is not UNSET:
            resolutions = []
            for resolutions_item_data in _resolutions:
                resolutions_item = ConflictResolution.from_dict(resolutions_item_data)

                resolutions.append(resolutions_item)

        def _parse_target(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        target = _parse_target(d.pop("target", UNSET))

        merge_request = cls(
            strategy=strategy,
            accept_warnings=accept_warnings,
            dry_run=dry_run,
            resolutions=resolutions,
            target=target,
        )

        merge_request.additional_properties = d
        return merge_request

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
