from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="QuestionAnswer")


@_attrs_define
class QuestionAnswer:
    """The answer a person gave.

    Attributes:
        answered_at (datetime.datetime): When it was given. Default:
            datetime.datetime.fromisoformat('1970-01-01T00:00:00Z').
        value (str): The chosen option's value.
    """

    value: str
    answered_at: datetime.datetime = datetime.datetime.fromisoformat(
        "1970-01-01T00:00:00Z"
    )
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        answered_at = self.answered_at.isoformat()

        value = self.value

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "answered_at": answered_at,
                "value": value,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        answered_at = datetime.datetime.fromisoformat(d.pop("answered_at"))

        value = d.pop("value")

        question_answer = cls(
            answered_at=answered_at,
            value=value,
        )

        question_answer.additional_properties = d
        return question_answer

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
