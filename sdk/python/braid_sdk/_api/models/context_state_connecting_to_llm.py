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

from ..types import UNSET, Unset

T = TypeVar("T", bound="ContextStateConnectingToLlm")


@_attrs_define
class ContextStateConnectingToLlm:
    """Connecting to the model.

    Attributes:
        attempt (int): 1 for the first try, more when retrying a transient failure.
        type_ (Literal['connecting_to_llm']):
        reason (None | str | Unset): Why the previous attempt failed, on a retry.
        wait_ms (int | None | Unset): How long the retry waits before it connects, in milliseconds.
    """

    attempt: int
    type_: Literal["connecting_to_llm"]
    reason: None | str | Unset = UNSET
    wait_ms: int | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        attempt = self.attempt

        type_ = self.type_

        reason: None | str | Unset
        if isinstance(self.reason, Unset):
            reason = UNSET
        else:
            reason = self.reason

        wait_ms: int | None | Unset
        if isinstance(self.wait_ms, Unset):
            wait_ms = UNSET
        else:
            wait_ms = self.wait_ms

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "attempt": attempt,
                "type": type_,
            }
        )
        if reason is not UNSET:
            field_dict["reason"] = reason
        if wait_ms is not UNSET:
            field_dict["wait_ms"] = wait_ms

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        attempt = d.pop("attempt")

        type_ = cast(Literal["connecting_to_llm"], d.pop("type"))
        if type_ != "connecting_to_llm":
            raise ValueError(
                f"type must match const 'connecting_to_llm', got '{type_}'"
            )

        def _parse_reason(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        reason = _parse_reason(d.pop("reason", UNSET))

        def _parse_wait_ms(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        wait_ms = _parse_wait_ms(d.pop("wait_ms", UNSET))

        context_state_connecting_to_llm = cls(
            attempt=attempt,
            type_=type_,
            reason=reason,
            wait_ms=wait_ms,
        )

        context_state_connecting_to_llm.additional_properties = d
        return context_state_connecting_to_llm

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
