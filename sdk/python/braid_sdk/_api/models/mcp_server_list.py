from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.mcp_config_editing import McpConfigEditing

if TYPE_CHECKING:
    from ..models.mcp_server_info import McpServerInfo


T = TypeVar("T", bound="McpServerList")


@_attrs_define
class McpServerList:
    """`GET /v1/mcp/servers`.

    Attributes:
        editing (McpConfigEditing): Whether `POST /v1/mcp/servers`, `PUT` and `DELETE /v1/mcp/servers/{name}` may change
            the
            MCP configuration file.
            - `editable`: They may: the file is written and reloaded.
            - `read_only`: The operator made the file read-only for the API (`--mcp-config-readonly`).
            - `no_file`: Braid runs without a configuration file (`--mcp-config` names one).
        servers (list[McpServerInfo]): Every configured server.
    """

    editing: McpConfigEditing
    servers: list[McpServerInfo]
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        editing = self.editing.value

        servers = []
        for servers_item_data in self.servers:
            servers_item = servers_item_data.to_dict()
            servers.append(servers_item)

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "editing": editing,
                "servers": servers,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.mcp_server_info import McpServerInfo

        d = dict(src_dict)
        editing = McpConfigEditing(d.pop("editing"))

        servers = []
        _servers = d.pop("servers")
        for servers_item_data in _servers:
            servers_item = McpServerInfo.from_dict(servers_item_data)

            servers.append(servers_item)

        mcp_server_list = cls(
            editing=editing,
            servers=servers,
        )

        mcp_server_list.additional_properties = d
        return mcp_server_list

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
