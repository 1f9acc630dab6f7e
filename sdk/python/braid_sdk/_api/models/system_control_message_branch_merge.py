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

from ..models.merge_strategy_name import MergeStrategyName

if TYPE_CHECKING:
    from ..models.conflict_resolution import ConflictResolution


T = TypeVar("T", bound="SystemControlMessageBranchMerge")


@_attrs_define
class SystemControlMessageBranchMerge:
    """Another branch was merged into this one: what moved, how, and what the person chose for
    each conflict.

        Attributes:
            moved (int): Messages added to this branch.
            removed (int): This branch's messages a resolution took off it. Default: 0.
            resolutions (list[ConflictResolution]): The resolutions, one per conflict.
            skipped (int): Source messages left out (already here, same content, or by a resolution).
            source (str): The name of a branch within a context, unique in that context (`main` by default).
            strategy (MergeStrategyName): A strategy by name, without its parameters.
                - `append`: [`MergeStrategy::Append`].
                - `cherry_pick`: [`MergeStrategy::CherryPick`].
                - `rebase`: [`MergeStrategy::Rebase`].
                - `summary`: [`MergeStrategy::Summary`].
            type_ (Literal['branch_merge']):
    """

    moved: int
    resolutions: list[ConflictResolution]
    skipped: int
    source: str
    strategy: MergeStrategyName
    type_: Literal["branch_merge"]
    removed: int = 0
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        moved = self.moved

        removed = self.removed

        resolutions = []
        for resolutions_item_data in self.resolutions:
            resolutions_item = resolutions_item_data.to_dict()
            resolutions.append(resolutions_item)

        skipped = self.skipped

        source = self.source

        strategy = self.strategy.value

        type_ = self.type_

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "moved": moved,
                "removed": removed,
                "resolutions": resolutions,
                "skipped": skipped,
                "source": source,
                "strategy": strategy,
                "type": type_,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.conflict_resolution import ConflictResolution

        d = dict(src_dict)
        moved = d.pop("moved")

        removed = d.pop("removed")

        resolutions = []
        _resolutions = d.pop("resolutions")
        for resolutions_item_data in _resolutions:
            resolutions_item = ConflictResolution.from_dict(resolutions_item_data)

            resolutions.append(resolutions_item)

        skipped = d.pop("skipped")

        source = d.pop("source")

        strategy = MergeStrategyName(d.pop("strategy"))

        type_ = cast(Literal["branch_merge"], d.pop("type"))
        if type_ != "branch_merge":
            raise ValueError(f"type must match const 'branch_merge', got '{type_}'")

        system_control_message_branch_merge = cls(
            moved=moved,
            removed=removed,
            resolutions=resolutions,
            skipped=skipped,
            source=source,
            strategy=strategy,
            type_=type_,
        )

        system_control_message_branch_merge.additional_properties = d
        return system_control_message_branch_merge

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
