from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="TurnPath")


@_attrs_define
class TurnPath:
    """`{id}` and `{turn_id}`: a turn of a context.

    Attributes:
        id (UUID): Identifies one context (conversation).
        turn_id (UUID): Identifies one turn of a context (`turn_id` in the API): the work one send, resume or
            approval starts, from its first event to its `turn_completed` event.
    """

    id: UUID
    turn_id: UUID
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        id = str(self.id)

        turn_id = str(self.turn_id)

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "id": id,
                "turn_id": turn_id,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        id = UUID(d.pop("id"))

        turn_id = UUID(d.pop("turn_id"))

        turn_path = cls(
            id=id,
            turn_id=turn_id,
        )

        turn_path.additional_properties = d
        return turn_path

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
