from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.skip_reason import SkipReason

T = TypeVar("T", bound="SkippedMessage")


@_attrs_define
class SkippedMessage:
    """A source message that the merge leaves out.

    Attributes:
        id (UUID): Identifies one message in a context's pool, across all of its branches.
        reason (SkipReason): Why a source message was not merged.
            - `already_in_target`: The target already has this message.
            - `same_content`: The target has a message with the same role, kind and data after the branch point.
            - `branch_notice`: A notice about the source branch itself (a branch switch, an earlier merge).
            - `held_input`: The person's input that waits for, or failed, its pipeline on the source.
            - `resolution`: A resolution left it out.
    """

    id: UUID
    reason: SkipReason
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        id = str(self.id)

        reason = self.reason.value

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "id": id,
                "reason": reason,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        id = UUID(d.pop("id"))

        reason = SkipReason(d.pop("reason"))

        skipped_message = cls(
            id=id,
            reason=reason,
        )

        skipped_message.additional_properties = d
        return skipped_message

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
