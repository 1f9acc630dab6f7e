from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.merge_strategy_name import MergeStrategyName
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.conflict_resolution import ConflictResolution
    from ..models.merge_conflict import MergeConflict
    from ..models.merge_warning import MergeWarning
    from ..models.merged_summary import MergedSummary
    from ..models.skipped_message import SkippedMessage


T = TypeVar("T", bound="MergeOutcome")


@_attrs_define
class MergeOutcome:
    """What a merge did, or would do (`dry_run`), or why it did not (409).

    Attributes:
        conflicts (list[MergeConflict]): Conflicts; those already resolved by the request are listed too, with their
            resolution.
        merged (bool): Whether the target changed (false for a dry run and for a refusal).
        moved (list[UUID]): The source messages added to the target, in their new order.
        removed (list[UUID]): Target messages a resolution takes off the target (still stored).
        resolutions (list[ConflictResolution]): The resolutions applied.
        skipped (list[SkippedMessage]): Source messages left out, and why.
        source (str): The name of a branch within a context, unique in that context (`main` by default).
        strategy (MergeStrategyName): A strategy by name, without its parameters.
            - `append`: [`MergeStrategy::Append`].
            - `cherry_pick`: [`MergeStrategy::CherryPick`].
            - `rebase`: [`MergeStrategy::Rebase`].
            - `summary`: [`MergeStrategy::Summary`].
        target (str): The name of a branch within a context, unique in that context (`main` by default).
        warnings (list[MergeWarning]): Missing dependencies (cherry-pick).
        common_ancestor (None | Unset | UUID): The last message both branches share, when they share one.
        notice_id (None | Unset | UUID): The `branch_merge` notice added to the target, when the merge happened.
        summary (MergedSummary | None | Unset): A summary merge's summary: shown by the dry run, stored as one marked
            message.
    """

    conflicts: list[MergeConflict]
    merged: bool
    moved: list[UUID]
    removed: list[UUID]
    resolutions: list[ConflictResolution]
    skipped: list[SkippedMessage]
    source: str
    strategy: MergeStrategyName
    target: str
    warnings: list[MergeWarning]
    common_ancestor: None | Unset | UUID = UNSET
    notice_id: None | Unset | UUID = UNSET
    summary: MergedSummary | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.merged_summary import MergedSummary

        conflicts = []
        for conflicts_item_data in self.conflicts:
            conflicts_item = conflicts_item_data.to_dict()
            conflicts.append(conflicts_item)

        merged = self.merged

        moved = []
        for moved_item_data in self.moved:
            moved_item = str(moved_item_data)
            moved.append(moved_item)

        removed = []
        for removed_item_data in self.removed:
            removed_item = str(removed_item_data)
            removed.append(removed_item)

        resolutions = []
        for resolutions_item_data in self.resolutions:
            resolutions_item = resolutions_item_data.to_dict()
            resolutions.append(resolutions_item)

        skipped = []
        for skipped_item_data in self.skipped:
            skipped_item = skipped_item_data.to_dict()
            skipped.append(skipped_item)

        source = self.source

        strategy = self.strategy.value

        target = self.target

        warnings = []
        for warnings_item_data in self.warnings:
            warnings_item = warnings_item_data.to_dict()
            warnings.append(warnings_item)

        common_ancestor: None | str | Unset
        if isinstance(self.common_ancestor, Unset):
            common_ancestor = UNSET
        elif isinstance(self.common_ancestor, UUID):
            common_ancestor = str(self.common_ancestor)
        else:
            common_ancestor = self.common_ancestor

        notice_id: None | str | Unset
        if isinstance(self.notice_id, Unset):
            notice_id = UNSET
        elif isinstance(self.notice_id, UUID):
            notice_id = str(self.notice_id)
        else:
            notice_id = self.notice_id

        summary: dict[str, Any] | None | Unset
        if isinstance(self.summary, Unset):
            summary = UNSET
        elif isinstance(self.summary, MergedSummary):
            summary = self.summary.to_dict()
        else:
            summary = self.summary

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "conflicts": conflicts,
                "merged": merged,
                "moved": moved,
                "removed": removed,
                "resolutions": resolutions,
                "skipped": skipped,
                "source": source,
                "strategy": strategy,
                "target": target,
                "warnings": warnings,
            }
        )
        if common_ancestor is not UNSET:
            field_dict["common_ancestor"] = common_ancestor
        if notice_id is not UNSET:
            field_dict["notice_id"] = notice_id
        if summary is not UNSET:
            field_dict["summary"] = summary

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.conflict_resolution import ConflictResolution
        from ..models.merge_conflict import MergeConflict
        from ..models.merge_warning import MergeWarning
        from ..models.merged_summary import MergedSummary
        from ..models.skipped_message import SkippedMessage

        d = dict(src_dict)
        conflicts = []
        _conflicts = d.pop("conflicts")
        for conflicts_item_data in _conflicts:
            conflicts_item = MergeConflict.from_dict(conflicts_item_data)

            conflicts.append(conflicts_item)

        merged = d.pop("merged")

        moved = []
        _moved = d.pop("moved")
        for moved_item_data in _moved:
            moved_item = UUID(moved_item_data)

            moved.append(moved_item)

        removed = []
        _removed = d.pop("removed")
        for removed_item_data in _removed:
            removed_item = UUID(removed_item_data)

            removed.append(removed_item)

        resolutions = []
        _resolutions = d.pop("resolutions")
        for resolutions_item_data in _resolutions:
            resolutions_item = ConflictResolution.from_dict(resolutions_item_data)

            resolutions.append(resolutions_item)

        skipped = []
        _skipped = d.pop("skipped")
        for skipped_item_data in _skipped:
            skipped_item = SkippedMessage.from_dict(skipped_item_data)

            skipped.append(skipped_item)

        source = d.pop("source")

        strategy = MergeStrategyName(d.pop("strategy"))

        target = d.pop("target")

        warnings = []
        _warnings = d.pop("warnings")
        for warnings_item_data in _warnings:
            warnings_item = MergeWarning.from_dict(warnings_item_data)

            warnings.append(warnings_item)

        def _parse_common_ancestor(data: object) -> None | Unset | UUID:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                common_ancestor_type_0 = UUID(data)

                return common_ancestor_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | Unset | UUID, data)

        common_ancestor = _parse_common_ancestor(d.pop("common_ancestor", UNSET))

        def _parse_notice_id(data: object) -> None | Unset | UUID:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                notice_id_type_0 = UUID(data)

                return notice_id_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | Unset | UUID, data)

        notice_id = _parse_notice_id(d.pop("notice_id", UNSET))

        def _parse_summary(data: object) -> MergedSummary | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                summary_type_0 = MergedSummary.from_dict(data)

                return summary_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(MergedSummary | None | Unset, data)

        summary = _parse_summary(d.pop("summary", UNSET))

        merge_outcome = cls(
            conflicts=conflicts,
            merged=merged,
            moved=moved,
            removed=removed,
            resolutions=resolutions,
            skipped=skipped,
            source=source,
            strategy=strategy,
            target=target,
            warnings=warnings,
            common_ancestor=common_ancestor,
            notice_id=notice_id,
            summary=summary,
        )

        merge_outcome.additional_properties = d
        return merge_outcome

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
