from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define

T = TypeVar("T", bound="PinFactRequest")


@_attrs_define
class PinFactRequest:
    """`POST /v1/contexts/{id}/pins`: a fact to pin.

    Attributes:
        text (str): The fact, at most 2,000 characters: every request carries it.
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

        pin_fact_request = cls(
            text=text,
        )

        return pin_fact_request
