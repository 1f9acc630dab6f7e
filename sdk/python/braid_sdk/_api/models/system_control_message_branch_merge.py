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
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.conflict_resolution import ConflictResolution


T = TypeVar("T", bound="SystemControlMessageBranchMerge")


@_attrs_define
class SystemControlMessageBranchMerge:
    """Another branch was merged into this one: what moved, how, and what the person chose for
    each conflict.

        Attributes:
            moved (int): Messages added to this branch.
            skipped (int): Source messages left out (already here, same content, or by a resolution).
            source (str): The name of a branch within a context, unique in that context (`main` by default).
            strategy (MergeStrategyName): A strategy by name, without its parameters.
                - `append`: [`MergeStrategy::Append`].
                - `cherry_pick`: [`MergeStrategy::CherryPick`].
                - `rebase`: [`MergeStrategy::Rebase`].
                - `summary`: [`MergeStrategy::Summary`].
            type_ (Literal['branch_merge']):
            removed (int | Unset): This branch's messages a resolution took off it. Default: 0.
            resolutions (list[ConflictResolution] | Unset): The resolutions, one per conflict.
    """

    moved: int
    skipped: int
    source: str
    strategy: MergeStrategyName
    type_: Literal["branch_merge"]
    removed: int | Unset = 0
    resolutions: list[ConflictResolution] | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        moved = self.moved

        skipped = self.skipped

        source = self.source

        strategy = self.strategy.value

        type_ = self.type_

        removed = self.removed

        resolutions: list[dict[str, Any]] | Unset = UNSET
        if not isinstance(self.resolutions, Unset):
            resolutions = []
            for resolutions_item_data in self.resolutions:
                resolutions_item = resolutions_item_data.to_dict()
                resolutions.append(resolutions_item)

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "moved": moved,
                "skipped": skipped,
                "source": source,
                "strategy": strategy,
                "type": type_,
            }
        )
        if removed is not UNSET:
            field_dict["removed"] = removed
        if resolutions is not UNSET:
            field_dict["resolutions"] = resolutions

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.conflict_resolution import ConflictResolution

        d = dict(src_dict)
        moved = d.pop("moved")

        skipped = d.pop("skipped")

        source = d.pop("source")

        strategy = MergeStrategyName(d.pop("strategy"))

        type_ = cast(Literal["branch_merge"], d.pop("type"))
        if type_ != "branch_merge":
            raise ValueError(f"type must match const 'branch_merge', got '{type_}'")

        removed = d.pop("removed", UNSET)

        _resolutions = d.pop("resolutions", UNSET)
        resolutions: list[ConflictResolution] | Unset = UNSET
        if _resolutions is not UNSET:
            resolutions = []
            for resolutions_item_data in _resolutions:
                resolutions_item = ConflictResolution.from_dict(resolutions_item_data)

                resolutions.append(resolutions_item)

        system_control_message_branch_merge = cls(
            moved=moved,
            skipped=skipped,
            source=source,
            strategy=strategy,
            type_=type_,
            removed=removed,
            resolutions=resolutions,
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
