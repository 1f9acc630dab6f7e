from __future__ import annotations

from collections.abc import Mapping
from typing import (
    Any,
    Literal,
    Self,
    TypeVar,
    cast,
)

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="ContextStateFailed")


@_attrs_define
class ContextStateFailed:
    """Something failed. A new message (or `resume`, when recoverable) goes on from here.

    Attributes:
        error (str): What failed.
        recoverable (bool): Whether retrying can succeed.
        type_ (Literal['failed']):
    """

    error: str
    recoverable: bool
    type_: Literal["failed"]
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        error = self.error

        recoverable = self.recoverable

        type_ = self.type_

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "error": error,
                "recoverable": recoverable,
                "type": type_,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        error = d.pop("error")

        recoverable = d.pop("recoverable")

        type_ = cast(Literal["failed"], d.pop("type"))
        if type_ != "failed":
            raise ValueError(f"type must match const 'failed', got '{type_}'")

        context_state_failed = cls(
            error=error,
            recoverable=recoverable,
            type_=type_,
        )

        context_state_failed.additional_properties = d
        return context_state_failed

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
