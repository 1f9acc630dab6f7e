from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define

T = TypeVar("T", bound="CorrectSummaryRequest")


@_attrs_define
class CorrectSummaryRequest:
    """`PUT /v1/contexts/{id}/messages/{message_id}/summary`: the person's correction of a summary.

    Attributes:
        text (str): The summary's new text; later requests get it instead of the model's.
    """

    text: str

    def to_dict(self) -> dict[str, Any]:
        text = self.text

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "text": text,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        text = d.pop("text")

        correct_summary_request = cls(
            text=text,
        )

        return correct_summary_request
