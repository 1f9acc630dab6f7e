from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.mcp_server_definition_env import McpServerDefinitionEnv
    from ..models.mcp_server_definition_headers import McpServerDefinitionHeaders


T = TypeVar("T", bound="McpServerDefinition")


@_attrs_define
class McpServerDefinition:
    """An MCP server's entry in `mcp_servers.json` (Claude Desktop format), as
    `POST /v1/mcp/servers` and `PUT /v1/mcp/servers/{name}` take it: either `command` (with
    `args` and `env`) for a process speaking stdio, or `url` (with `headers`) for a streamable
    HTTP server. Fields of the file's entry this type does not hold (`oauth`, `resourceTtl`...)
    are kept when an entry is replaced.

        Attributes:
            args (list[str] | Unset): Its arguments.
            auto_approve (list[str] | Unset): Tools (by their name on the server) whose calls need no approval.
            command (None | str | Unset): The program of a stdio server (looked up on `PATH` when it has no slash).
            disabled (bool | Unset): Listed but not connected to.
            env (McpServerDefinitionEnv | Unset): Environment variables of a stdio server. Answers hide every value
                (`null`); in a
                replacement a `null` value keeps the variable's current value.
            headers (McpServerDefinitionHeaders | Unset): Headers sent to an HTTP server with every request; hidden and kept
                like `env` values.
            timeout (float | None | Unset): How long one tool call may run, in seconds (default 60).
            url (None | str | Unset): The endpoint of a streamable HTTP server (`http://` or `https://`).
    """

    args: list[str] | Unset = UNSET
    auto_approve: list[str] | Unset = UNSET
    command: None | str | Unset = UNSET
    disabled: bool | Unset = UNSET
    env: McpServerDefinitionEnv | Unset = UNSET
    headers: McpServerDefinitionHeaders | Unset = UNSET
    timeout: float | None | Unset = UNSET
    url: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        args: list[str] | Unset = UNSET
        if not isinstance(self.args, Unset):
            args = self.args

        auto_approve: list[str] | Unset = UNSET
        if not isinstance(self.auto_approve, Unset):
            auto_approve = self.auto_approve

        command: None | str | Unset
        if isinstance(self.command, Unset):
            command = UNSET
        else:
            command = self.command

        disabled = self.disabled

        env: dict[str, Any] | Unset = UNSET
        if not isinstance(self.env, Unset):
            env = self.env.to_dict()

        headers: dict[str, Any] | Unset = UNSET
        if not isinstance(self.headers, Unset):
            headers = self.headers.to_dict()

        timeout: float | None | Unset
        if isinstance(self.timeout, Unset):
            timeout = UNSET
        else:
            timeout = self.timeout

        url: None | str | Unset
        if isinstance(self.url, Unset):
            url = UNSET
        else:
            url = self.url

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({})
        if args is not UNSET:
            field_dict["args"] = args
        if auto_approve is not UNSET:
            field_dict["autoApprove"] = auto_approve
        if command is not UNSET:
            field_dict["command"] = command
        if disabled is not UNSET:
            field_dict["disabled"] = disabled
        if env is not UNSET:
            field_dict["env"] = env
        if headers is not UNSET:
            field_dict["headers"] = headers
        if timeout is not UNSET:
            field_dict["timeout"] = timeout
        if url is not UNSET:
            field_dict["url"] = url

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.mcp_server_definition_env import McpServerDefinitionEnv
        from ..models.mcp_server_definition_headers import McpServerDefinitionHeaders

        d = dict(src_dict)
        args = cast(list[str], d.pop("args", UNSET))

        auto_approve = cast(list[str], d.pop("autoApprove", UNSET))

        def _parse_command(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        command = _parse_command(d.pop("command", UNSET))

        disabled = d.pop("disabled", UNSET)

        _env = d.pop("env", UNSET)
        env: McpServerDefinitionEnv | Unset
        if isinstance(_env, Unset):
            env = UNSET
        else:
            env = McpServerDefinitionEnv.from_dict(_env)

        _headers = d.pop("headers", UNSET)
        headers: McpServerDefinitionHeaders | Unset
        if isinstance(_headers, Unset):
            headers = UNSET
        else:
            headers = McpServerDefinitionHeaders.from_dict(_headers)

        def _parse_timeout(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        timeout = _parse_timeout(d.pop("timeout", UNSET))

        def _parse_url(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        url = _parse_url(d.pop("url", UNSET))

        mcp_server_definition = cls(
            args=args,
            auto_approve=auto_approve,
            command=command,
            disabled=disabled,
            env=env,
            headers=headers,
            timeout=timeout,
            url=url,
        )

        mcp_server_definition.additional_properties = d
        return mcp_server_definition

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
