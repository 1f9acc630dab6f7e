from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.approval_status import ApprovalStatus

T = TypeVar("T", bound="McpToolRequestMessage")


@_attrs_define
class McpToolRequestMessage:
    """The model asked to call a tool of an MCP server.

    Attributes:
        approval_status (ApprovalStatus): Where a tool call stands with respect to a person's (or the policy's)
            approval.
            - `pending`: Waiting for a decision.
            - `approved`: Allowed to run (by a person, the policy, or an approval for this session).
            - `denied`: Refused; the model receives an error result saying so.
        arguments (Any): The arguments: a JSON object (`{}` when absent). Default: {}.
        called_as (str): The name the model saw and called (`mcp__<server>__<tool>`), needed to replay the history.
            Braid's own field: when absent it is the tool's name (filled in when the message is read). Default: ''.
        request_id (str): The id a model gave one of its tool calls (`call_abc` for OpenAI, `toolu_...` for
            Anthropic). Kept exactly as the provider sent it, because results must echo it back.
        requested_at (datetime.datetime): When the model asked (the message's creation time when absent). Default:
            datetime.datetime.fromisoformat('1970-01-01T00:00:00Z').
        server_name (str): The configured name of the server that owns the tool.
        tool_name (str): The tool's name on that server.
    """

    approval_status: ApprovalStatus
    request_id: str
    server_name: str
    tool_name: str
    arguments: Any = {}
    called_as: str = ""
    requested_at: datetime.datetime = datetime.datetime.fromisoformat(
        "1970-01-01T00:00:00Z"
    )
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        approval_status = self.approval_status.value

        arguments = self.arguments

        called_as = self.called_as

        request_id = self.request_id

        requested_at = self.requested_at.isoformat()

        server_name = self.server_name

        tool_name = self.tool_name

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "approval_status": approval_status,
                "arguments": arguments,
                "called_as": called_as,
                "request_id": request_id,
                "requested_at": requested_at,
                "server_name": server_name,
                "tool_name": tool_name,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        approval_status = ApprovalStatus(d.pop("approval_status"))

        arguments = d.pop("arguments")

        called_as = d.pop("called_as")

        request_id = d.pop("request_id")

        requested_at = datetime.datetime.fromisoformat(d.pop("requested_at"))

        server_name = d.pop("server_name")

        tool_name = d.pop("tool_name")

        mcp_tool_request_message = cls(
            approval_status=approval_status,
            arguments=arguments,
            called_as=called_as,
            request_id=request_id,
            requested_at=requested_at,
            server_name=server_name,
            tool_name=tool_name,
        )

        mcp_tool_request_message.additional_properties = d
        return mcp_tool_request_message

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
