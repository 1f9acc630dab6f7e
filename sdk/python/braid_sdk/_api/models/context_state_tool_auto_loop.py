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

T = TypeVar("T", bound="ContextStateToolAutoLoop")


@_attrs_define
class ContextStateToolAutoLoop:
    """A round of the tool loop is starting.

    Attributes:
        depth (int): The round, from 1.
        tools_executed (int): Tools executed in this loop so far.
        type_ (Literal['tool_auto_loop']):
    """

    depth: int
    tools_executed: int
    type_: Literal["tool_auto_loop"]
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        depth = self.depth

        tools_executed = self.tools_executed

        type_ = self.type_

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "depth": depth,
                "tools_executed": tools_executed,
                "type": type_,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        depth = d.pop("depth")

        tools_executed = d.pop("tools_executed")

        type_ = cast(Literal["tool_auto_loop"], d.pop("type"))
        if type_ != "tool_auto_loop":
            raise ValueError(f"type must match const 'tool_auto_loop', got '{type_}'")

        context_state_tool_auto_loop = cls(
            depth=depth,
            tools_executed=tools_executed,
            type_=type_,
        )

        context_state_tool_auto_loop.additional_properties = d
        return context_state_tool_auto_loop

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
