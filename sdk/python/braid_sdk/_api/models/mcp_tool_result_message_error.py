from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import (
    TYPE_CHECKING,
    Any,
    Literal,
    Self,
    TypeVar,
    cast,
)

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.error_detail import ErrorDetail


T = TypeVar("T", bound="McpToolResultMessageError")


@_attrs_define
class McpToolResultMessageError:
    """The call failed: a protocol error, a timeout, or a result the server marked as an error.

    Attributes:
        duration_ms (int): How long it took. Default: 0.
        error (ErrorDetail): Details of a failure, in a form both a person and a model can read.
        executed_at (datetime.datetime): When it ran (the message's creation time when absent). Default:
            datetime.datetime.fromisoformat('1970-01-01T00:00:00Z').
        request_id (str): The id a model gave one of its tool calls (`call_abc` for OpenAI, `toolu_...` for
            Anthropic). Kept exactly as the provider sent it, because results must echo it back.
        server_name (str): The server that ran it.
        status (Literal['error']):
        tool_name (str): The tool's name on that server.
        result (Any | Unset): What the server returned along with the error, if anything.
    """

    error: ErrorDetail
    request_id: str
    server_name: str
    status: Literal["error"]
    tool_name: str
    duration_ms: int = 0
    executed_at: datetime.datetime = datetime.datetime.fromisoformat(
        "1970-01-01T00:00:00Z"
    )
    result: Any | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        duration_ms = self.duration_ms

        error = self.error.to_dict()

        executed_at = self.executed_at.isoformat()

        request_id = self.request_id

        server_name = self.server_name

        status = self.status

        tool_name = self.tool_name

        result = self.result

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "duration_ms": duration_ms,
                "error": error,
                "executed_at": executed_at,
                "request_id": request_id,
                "server_name": server_name,
                "status": status,
                "tool_name": tool_name,
            }
        )
        if result is not UNSET:
            field_dict["result"] = result

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.error_detail import ErrorDetail

        d = dict(src_dict)
        duration_ms = d.pop("duration_ms")

        error = ErrorDetail.from_dict(d.pop("error"))

        executed_at = datetime.datetime.fromisoformat(d.pop("executed_at"))

        request_id = d.pop("request_id")

        server_name = d.pop("server_name")

        status = cast(Literal["error"], d.pop("status"))
        if status != "error":
            raise ValueError(f"status must match const 'error', got '{status}'")

        tool_name = d.pop("tool_name")

        result = d.pop("result", UNSET)

        mcp_tool_result_message_error = cls(
            duration_ms=duration_ms,
            error=error,
            executed_at=executed_at,
            request_id=request_id,
            server_name=server_name,
            status=status,
            tool_name=tool_name,
            result=result,
        )

        mcp_tool_result_message_error.additional_properties = d
        return mcp_tool_result_message_error

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
