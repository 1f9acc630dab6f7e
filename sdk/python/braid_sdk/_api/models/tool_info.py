from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.tool_source import ToolSource
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.tool_example import ToolExample


T = TypeVar("T", bound="ToolInfo")


@_attrs_define
class ToolInfo:
    """A tool as `GET /v1/tools` lists it.

    Attributes:
        description (str): What it does.
        name (str): The name the model calls it by.
        parameters (Any): JSON Schema of its arguments.
        read_only (bool): Whether it only reads.
        source (ToolSource): Where a tool comes from.
            - `builtin`: Built into Braid.
            - `mcp`: From an MCP server.
        examples (list[ToolExample] | Unset): How it is used: an example call of a built-in tool; what an MCP server
            says of its
            tool (its title and annotations), where it says anything.
        server (None | str | Unset): The MCP server, for MCP tools.
    """

    description: str
    name: str
    parameters: Any
    read_only: bool
    source: ToolSource
    examples: list[ToolExample] | Unset = UNSET
    server: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        description = self.description

        name = self.name

        parameters = self.parameters

        read_only = self.read_only

        source = self.source.value

        examples: list[dict[str, Any]] | Unset = UNSET
        if not isinstance(self.examples, Unset):
            examples = []
            for examples_item_data in self.examples:
                examples_item = examples_item_data.to_dict()
                examples.append(examples_item)

        server: None | str | Unset
        if isinstance(self.server, Unset):
            server = UNSET
        else:
            server = self.server

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "description": description,
                "name": name,
                "parameters": parameters,
                "read_only": read_only,
                "source": source,
            }
        )
        if examples is not UNSET:
            field_dict["examples"] = examples
        if server is not UNSET:
            field_dict["server"] = server

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.tool_example import ToolExample

        d = dict(src_dict)
        description = d.pop("description")

        name = d.pop("name")

        parameters = d.pop("parameters")

        read_only = d.pop("read_only")

        source = ToolSource(d.pop("source"))

        _examples = d.pop("examples", UNSET)
        examples: list[ToolExample] | Unset = UNSET
        if _examples is not UNSET:
            examples = []
            for examples_item_data in _examples:
                examples_item = ToolExample.from_dict(examples_item_data)

                examples.append(examples_item)

        def _parse_server(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        server = _parse_server(d.pop("server", UNSET))

        tool_info = cls(
            description=description,
            name=name,
            parameters=parameters,
            read_only=read_only,
            source=source,
            examples=examples,
            server=server,
        )

        tool_info.additional_properties = d
        return tool_info

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
