from __future__ import annotations

from collections.abc import Mapping
from typing import (
    Any,
    Literal,
    Self,
    TypeVar,
    cast,
)
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="ContextStateAwaitingUserAnswer")


@_attrs_define
class ContextStateAwaitingUserAnswer:
    """The agent asked a question; waiting for the person's answer.

    Attributes:
        question_id (UUID): Identifies one message in a context's pool, across all of its branches.
        type_ (Literal['awaiting_user_answer']):
    """

    question_id: UUID
    type_: Literal["awaiting_user_answer"]
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        question_id = str(self.question_id)

        type_ = self.type_

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "question_id": question_id,
                "type": type_,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        question_id = UUID(d.pop("question_id"))

        type_ = cast(Literal["awaiting_user_answer"], d.pop("type"))
        if type_ != "awaiting_user_answer":
            raise ValueError(
                f"type must match const 'awaiting_user_answer', got '{type_}'"
            )

        context_state_awaiting_user_answer = cls(
            question_id=question_id,
            type_=type_,
        )

        context_state_awaiting_user_answer.additional_properties = d
        return context_state_awaiting_user_answer

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
