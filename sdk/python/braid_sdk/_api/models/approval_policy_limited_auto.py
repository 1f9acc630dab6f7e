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

T = TypeVar("T", bound="ApprovalPolicyLimitedAuto")


@_attrs_define
class ApprovalPolicyLimitedAuto:
    """For up to `max_depth` rounds, read-only tools (built-in ones, and MCP tools of servers
    whose configuration trusts their hints) and the tools listed in `tools` run by
    themselves; writes, commands and everything else wait for a person.

        Attributes:
            max_depth (int): Rounds of tool execution allowed in one loop.
            type_ (Literal['limited_auto']):
            tools (list[str] | Unset): Further tools (writes or commands included) that may also run without asking.
    """

    max_depth: int
    type_: Literal["limited_auto"]
    tools: list[str] | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        max_depth = self.max_depth

        type_ = self.type_

        tools: list[str] | Unset = UNSET
        if not isinstance(self.tools, Unset):
            tools = self.tools

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "max_depth": max_depth,
                "type": type_,
            }
        )
        if tools is not UNSET:
            field_dict["tools"] = tools

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        max_depth = d.pop("max_depth")

        type_ = cast(Literal["limited_auto"], d.pop("type"))
        if type_ != "limited_auto":
            raise ValueError(f"type must match const 'limited_auto', got '{type_}'")

        tools = cast(list[str], d.pop("tools", UNSET))

        approval_policy_limited_auto = cls(
            max_depth=max_depth,
            type_=type_,
            tools=tools,
        )

        approval_policy_limited_auto.additional_properties = d
        return approval_policy_limited_auto

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
