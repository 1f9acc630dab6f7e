from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.warning_kind import WarningKind

T = TypeVar("T", bound="MergeWarning")


@_attrs_define
class MergeWarning:
    """A dependency a cherry-pick leaves behind. The merge changes nothing while there are warnings,
    unless `accept_warnings` is set.

        Attributes:
            detail (str): In words.
            kind (WarningKind): What a warning is about.
                - `result_without_request`: A tool result is picked without the request that asked for it.
                - `request_without_result`: A tool request is picked without its result(s).
                - `mcp_result_without_request`: An MCP tool result is picked without its request.
                - `mcp_request_without_result`: An MCP tool request is picked without its result.
                - `execution_without_plan`: The execution of a plan is picked without the plan.
                - `answer_without_question`: An answer is picked without its question.
            message_id (UUID): Identifies one message in a context's pool, across all of its branches.
            missing (list[UUID]): The messages it depends on that are neither picked nor in the target (ids on the
                source; empty when the source does not have them either).
    """

    detail: str
    kind: WarningKind
    message_id: UUID
    missing: list[UUID]
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        detail = self.detail

        kind = self.kind.value

        message_id = str(self.message_id)

        missing = []
        for missing_item_data in self.missing:
            missing_item = str(missing_item_data)
            missing.append(missing_item)

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "detail": detail,
                "kind": kind,
                "message_id": message_id,
                "missing": missing,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        detail = d.pop("detail")

        kind = WarningKind(d.pop("kind"))

        message_id = UUID(d.pop("message_id"))

        missing = []
        _missing = d.pop("missing")
        for missing_item_data in _missing:
            missing_item = UUID(missing_item_data)

            missing.append(missing_item)

        merge_warning = cls(
            detail=detail,
            kind=kind,
            message_id=message_id,
            missing=missing,
        )

        merge_warning.additional_properties = d
        return merge_warning

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
