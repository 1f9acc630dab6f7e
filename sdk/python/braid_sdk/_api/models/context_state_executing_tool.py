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

T = TypeVar("T", bound="ContextStateExecutingTool")


@_attrs_define
class ContextStateExecutingTool:
    """Running a tool: "Executing tool 2/5: read_file".

    Attributes:
        attempt (int): 1 for the first try, more when the call is tried again after a transient failure
            (its MCP server was reconnecting).
        index (int): Its position in this round, from 1.
        tool_name (str): The tool running.
        total (int): Calls in this round.
        type_ (Literal['executing_tool']):
        finished (int | Unset): Calls of this round finished so far: a batch run together reports each call as it
            starts and again as it finishes (with this count one higher).
    """

    attempt: int
    index: int
    tool_name: str
    total: int
    type_: Literal["executing_tool"]
    finished: int | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        attempt = self.attempt

        index = self.index

        tool_name = self.tool_name

        total = self.total

        type_ = self.type_

        finished = self.finished

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "attempt": attempt,
                "index": index,
                "tool_name": tool_name,
                "total": total,
                "type": type_,
            }
        )
        if finished is not UNSET:
            field_dict["finished"] = finished

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        attempt = d.pop("attempt")

        index = d.pop("index")

        tool_name = d.pop("tool_name")

        total = d.pop("total")

        type_ = cast(Literal["executing_tool"], d.pop("type"))
        if type_ != "executing_tool":
            raise ValueError(f"type must match const 'executing_tool', got '{type_}'")

        finished = d.pop("finished", UNSET)

        context_state_executing_tool = cls(
            attempt=attempt,
            index=index,
            tool_name=tool_name,
            total=total,
            type_=type_,
            finished=finished,
        )

        context_state_executing_tool.additional_properties = d
        return context_state_executing_tool

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
