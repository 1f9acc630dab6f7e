from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.mcp_server_definition import McpServerDefinition


T = TypeVar("T", bound="AddMcpServerRequest")


@_attrs_define
class AddMcpServerRequest:
    """`POST /v1/mcp/servers`: a new server for `mcp_servers.json`.

    Attributes:
        name (str): Its name: letters, digits, `-` and `_`, at most 40, starting with a letter or digit;
            its tools are called `mcp__<name>__<tool>`.
        server (McpServerDefinition): An MCP server's entry in `mcp_servers.json` (Claude Desktop format), as
            `POST /v1/mcp/servers` and `PUT /v1/mcp/servers/{name}` take it: either `command` (with
            `args` and `env`) for a process speaking stdio, or `url` (with `headers`) for a streamable
            HTTP server. Fields of the file's entry this type does not hold (`oauth`, `resourceTtl`...)
            are kept when an entry is replaced.
    """

    name: str
    server: McpServerDefinition
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        name = self.name

        server = self.server.to_dict()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "name": name,
                "server": server,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.mcp_server_definition import McpServerDefinition

        d = dict(src_dict)
        name = d.pop("name")

        server = McpServerDefinition.from_dict(d.pop("server"))

        add_mcp_server_request = cls(
            name=name,
            server=server,
        )

        add_mcp_server_request.additional_properties = d
        return add_mcp_server_request

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
