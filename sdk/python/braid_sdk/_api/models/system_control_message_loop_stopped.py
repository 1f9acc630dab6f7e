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

T = TypeVar("T", bound="SystemControlMessageLoopStopped")


@_attrs_define
class SystemControlMessageLoopStopped:
    """The tool loop stopped before the model was done; the person may continue it.

    Attributes:
        depth (int): Rounds of tool execution completed.
        detail (str): Details for the person.
        reason (LoopStopReason): Why a tool loop stopped before the model finished.
            - `depth_limit`: The policy's `max_depth` rounds were used.
            - `timeout`: An iteration took longer than the configured timeout.
            - `interrupted`: The person interrupted.
            - `cycle_detected`: The model repeated the same call (tool and arguments) in a cycle.
        tools_executed (int): Tools executed in the loop.
        type_ (Literal['loop_stopped']):
    """

    depth: int
    detail: str
    reason: LoopStopReason
    tools_executed: int
    type_: Literal["loop_stopped"]
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        depth = self.depth

        detail = self.detail

        reason = self.reason.value

        tools_executed = self.tools_executed

        type_ = self.type_

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "depth": depth,
                "detail": detail,
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

        detail = d.pop("detail")

        reason = LoopStopReason(d.pop("reason"))

        tools_executed = d.pop("tools_executed")

        type_ = cast(Literal["loop_stopped"], d.pop("type"))
        if type_ != "loop_stopped":
            raise ValueError(f"type must match const 'loop_stopped', got '{type_}'")

        system_control_message_loop_stopped = cls(
            depth=depth,
            detail=detail,
            reason=reason,
            tools_executed=tools_executed,
            type_=type_,
        )

        system_control_message_loop_stopped.additional_properties = d
        return system_control_message_loop_stopped

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
