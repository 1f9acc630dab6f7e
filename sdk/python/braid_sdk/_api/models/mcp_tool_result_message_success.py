from __future__ import annotations

import datetime
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

T = TypeVar("T", bound="McpToolResultMessageSuccess")


@_attrs_define
class McpToolResultMessageSuccess:
    """The server returned a result.

    Attributes:
        duration_ms (int): How long it took. Default: 0.
        executed_at (datetime.datetime): When it ran (the message's creation time when absent). Default:
            datetime.datetime.fromisoformat('1970-01-01T00:00:00Z').
        request_id (str): The id a model gave one of its tool calls (`call_abc` for OpenAI, `toolu_...` for
            Anthropic). Kept exactly as the provider sent it, because results must echo it back.
        result (Any): The result (MCP content blocks and structured content).
        server_name (str): The server that ran it.
        status (Literal['success']):
        tool_name (str): The tool's name on that server.
    """

    request_id: str
    result: Any
    server_name: str
    status: Literal["success"]
    tool_name: str
    duration_ms: int = 0
    executed_at: datetime.datetime = datetime.datetime.fromisoformat(
        "1970-01-01T00:00:00Z"
    )
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        duration_ms = self.duration_ms

        executed_at = self.executed_at.isoformat()

        request_id = self.request_id

        result = self.result

        server_name = self.server_name

        status = self.status

        tool_name = self.tool_name

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "duration_ms": duration_ms,
                "executed_at": executed_at,
                "request_id": request_id,
                "result": result,
                "server_name": server_name,
                "status": status,
                "tool_name": tool_name,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        duration_ms = d.pop("duration_ms")

        executed_at = datetime.datetime.fromisoformat(d.pop("executed_at"))

        request_id = d.pop("request_id")

        result = d.pop("result")

        server_name = d.pop("server_name")

        status = cast(Literal["success"], d.pop("status"))
        if status != "success":
            raise ValueError(f"status must match const 'success', got '{status}'")

        tool_name = d.pop("tool_name")

        mcp_tool_result_message_success = cls(
            duration_ms=duration_ms,
            executed_at=executed_at,
            request_id=request_id,
            result=result,
            server_name=server_name,
            status=status,
            tool_name=tool_name,
        )

        mcp_tool_result_message_success.additional_properties = d
        return mcp_tool_result_message_success

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
