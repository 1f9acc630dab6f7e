from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.mcp_prompt_argument import McpPromptArgument


T = TypeVar("T", bound="McpPromptInfo")


@_attrs_define
class McpPromptInfo:
    """A prompt (a reusable message template) an MCP server offers; the composer's `/` menu lists
    them (`GET /v1/mcp/prompts`).

        Attributes:
            arguments (list[McpPromptArgument]): The arguments it takes.
            name (str): Its name on the server.
            server (str): The server offering it.
            description (None | str | Unset): What it is for.
            title (None | str | Unset): A human-readable title.
    """

    arguments: list[McpPromptArgument]
    name: str
    server: str
    description: None | str | Unset = UNSET
    title: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        arguments = []
        for arguments_item_data in self.arguments:
            arguments_item = arguments_item_data.to_dict()
            arguments.append(arguments_item)

        name = self.name

        server = self.server

        description: None | str | Unset
        if isinstance(self.description, Unset):
            description = UNSET
        else:
            description = self.description

        title: None | str | Unset
        if isinstance(self.title, Unset):
            title = UNSET
        else:
            title = self.title

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "arguments": arguments,
                "name": name,
                "server": server,
            }
        )
        if description is not UNSET:
            field_dict["description"] = description
        if title is not UNSET:
            field_dict["title"] = title

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.mcp_prompt_argument import McpPromptArgument

        d = dict(src_dict)
        arguments = []
        _arguments = d.pop("arguments")
        for arguments_item_data in _arguments:
            arguments_item = McpPromptArgument.from_dict(arguments_item_data)

            arguments.append(arguments_item)

        name = d.pop("name")

        server = d.pop("server")

        def _parse_description(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        description = _parse_description(d.pop("description", UNSET))

        def _parse_title(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        title = _parse_title(d.pop("title", UNSET))

        mcp_prompt_info = cls(
            arguments=arguments,
            name=name,
            server=server,
            description=description,
            title=title,
        )

        mcp_prompt_info.additional_properties = d
        return mcp_prompt_info

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
