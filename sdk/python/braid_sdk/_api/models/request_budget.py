from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="RequestBudget")


@_attrs_define
class RequestBudget:
    """The window a request was fitted to.

    Attributes:
        limit (int): What the prompt may take: the window less the reserve and the margin.
        margin (int): Tokens kept against miscounting.
        reserve_output (int): Tokens kept for the answer.
        window (int): The model's context window (or the context's override).
    """

    limit: int
    margin: int
    reserve_output: int
    window: int
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        limit = self.limit

        margin = self.margin

        reserve_output = self.reserve_output

        window = self.window

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "limit": limit,
                "margin": margin,
                "reserve_output": reserve_output,
                "window": window,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        limit = d.pop("limit")

        margin = d.pop("margin")

        reserve_output = d.pop("reserve_output")

        window = d.pop("window")

        request_budget = cls(
            limit=limit,
            margin=margin,
            reserve_output=reserve_output,
            window=window,
        )

        request_budget.additional_properties = d
        return request_budget

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
