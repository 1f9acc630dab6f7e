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

T = TypeVar("T", bound="McpResourcePayload")


@_attrs_define
class McpResourcePayload:
    """An MCP resource to inject.

    Attributes:
        resource_uri (str): The resource's URI.
        server_name (str): The server's configured name.
        type_ (Literal['mcp_resource']):
    """

    resource_uri: str
    server_name: str
    type_: Literal["mcp_resource"]
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        resource_uri = self.resource_uri

        server_name = self.server_name

        type_ = self.type_

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "resource_uri": resource_uri,
                "server_name": server_name,
                "type": type_,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        resource_uri = d.pop("resource_uri")

        server_name = d.pop("server_name")

        type_ = cast(Literal["mcp_resource"], d.pop("type"))
        if type_ != "mcp_resource":
            raise ValueError(f"type must match const 'mcp_resource', got '{type_}'")

        mcp_resource_payload = cls(
            resource_uri=resource_uri,
            server_name=server_name,
            type_=type_,
        )

        mcp_resource_payload.additional_properties = d
        return mcp_resource_payload

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
