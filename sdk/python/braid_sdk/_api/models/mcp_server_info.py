from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.mcp_server_status import McpServerStatus
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.mcp_server_definition import McpServerDefinition


T = TypeVar("T", bound="McpServerInfo")


@_attrs_define
class McpServerInfo:
    """An MCP server as `GET /v1/mcp/servers` lists it.

    Attributes:
        name (str): Its configured name.
        status (McpServerStatus): An MCP server's connection status.
            - `starting`: Connecting.
            - `ready`: Connected; its tools are registered.
            - `failed`: Could not start or died; `error` says why.
            - `disabled`: Disabled in the configuration.
            - `needs_authorization`: It asked for OAuth authorization, which waits for a person to open `authorization_url`
            (the UI's "Authorize" button).
        tools (list[str]): Its tools' names as the model sees them.
        authorization_url (None | str | Unset): Where the person authorizes Braid, while the status is
            `needs_authorization`.
        definition (McpServerDefinition | None | Unset): Its entry in `mcp_servers.json` as the API edits it, with every
            `env` and `headers`
            value hidden (`null`).
        error (None | str | Unset): Why it failed.
    """

    name: str
    status: McpServerStatus
    tools: list[str]
    authorization_url: None | str | Unset = UNSET
    definition: McpServerDefinition | None | Unset = UNSET
    error: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.mcp_server_definition import McpServerDefinition

        name = self.name

        status = self.status.value

        tools = self.tools

        authorization_url: None | str | Unset
        if isinstance(self.authorization_url, Unset):
            authorization_url = UNSET
        else:
            authorization_url = self.authorization_url

        definition: dict[str, Any] | None | Unset
        if isinstance(self.definition, Unset):
            definition = UNSET
        elif isinstance(self.definition, McpServerDefinition):
            definition = self.definition.to_dict()
        else:
            definition = self.definition

        error: None | str | Unset
        if isinstance(self.error, Unset):
            error = UNSET
        else:
            error = self.error

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "name": name,
                "status": status,
                "tools": tools,
            }
        )
        if authorization_url is not UNSET:
            field_dict["authorization_url"] = authorization_url
        if definition is not UNSET:
            field_dict["definition"] = definition
        if error is not UNSET:
            field_dict["error"] = error

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.mcp_server_definition import McpServerDefinition

        d = dict(src_dict)
        name = d.pop("name")

        status = McpServerStatus(d.pop("status"))

        tools = cast(list[str], d.pop("tools"))

        def _parse_authorization_url(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        authorization_url = _parse_authorization_url(d.pop("authorization_url", UNSET))

        def _parse_definition(data: object) -> McpServerDefinition | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                definition_type_0 = McpServerDefinition.from_dict(data)

                return definition_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(McpServerDefinition | None | Unset, data)

        definition = _parse_definition(d.pop("definition", UNSET))

        def _parse_error(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        error = _parse_error(d.pop("error", UNSET))

        mcp_server_info = cls(
            name=name,
            status=status,
            tools=tools,
            authorization_url=authorization_url,
            definition=definition,
            error=error,
        )

        mcp_server_info.additional_properties = d
        return mcp_server_info

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
