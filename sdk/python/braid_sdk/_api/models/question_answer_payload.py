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

T = TypeVar("T", bound="QuestionAnswerPayload")


@_attrs_define
class QuestionAnswerPayload:
    """An answer to a `question` message.

    Attributes:
        question_id (UUID): Identifies one message in a context's pool, across all of its branches.
        type_ (Literal['question_answer']):
        value (str): The chosen option's value.
    """

    question_id: UUID
    type_: Literal["question_answer"]
    value: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        question_id = str(self.question_id)

        type_ = self.type_

        value = self.value

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "question_id": question_id,
                "type": type_,
                "value": value,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        question_id = UUID(d.pop("question_id"))

        type_ = cast(Literal["question_answer"], d.pop("type"))
        if type_ != "question_answer":
            raise ValueError(f"type must match const 'question_answer', got '{type_}'")

        value = d.pop("value")

        question_answer_payload = cls(
            question_id=question_id,
            type_=type_,
            value=value,
        )

        question_answer_payload.additional_properties = d
        return question_answer_payload

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
