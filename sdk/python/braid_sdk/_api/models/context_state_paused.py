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

from ..models.loop_stop_reason import LoopStopReason

T = TypeVar("T", bound="ContextStatePaused")


@_attrs_define
class ContextStatePaused:
    """The tool loop stopped before the model was done; `resume` continues it.

    Attributes:
        depth (int): Rounds completed.
        reason (LoopStopReason): Why a tool loop stopped before the model finished.
            - `depth_limit`: The policy's `max_depth` rounds were used.
            - `timeout`: An iteration took longer than the configured timeout.
            - `interrupted`: The person interrupted.
            - `cycle_detected`: The model repeated the same call (tool and arguments) in a cycle.
        tools_executed (int): Tools executed.
        type_ (Literal['paused']):
    """

    depth: int
    reason: LoopStopReason
    tools_executed: int
    type_: Literal["paused"]
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        depth = self.depth

        reason = self.reason.value

        tools_executed = self.tools_executed

        type_ = self.type_

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "depth": depth,
                "reason": reason,
                "tools_executed": tools_executed,
                "type": type_,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        depth = d.pop("depth")

        reason = LoopStopReason(d.pop("reason"))

        tools_executed = d.pop("tools_executed")

        type_ = cast(Literal["paused"], d.pop("type"))
        if type_ != "paused":
            raise ValueError(f"type must match const 'paused', got '{type_}'")

        context_state_paused = cls(
            depth=depth,
            reason=reason,
            tools_executed=tools_executed,
            type_=type_,
        )

        context_state_paused.additional_properties = d
        return context_state_paused

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
