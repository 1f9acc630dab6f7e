from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.resource_content_binary import ResourceContentBinary
    from ..models.resource_content_text import ResourceContentText


T = TypeVar("T", bound="McpResourceMessage")


@_attrs_define
class McpResourceMessage:
    """A resource from an MCP server, injected into the conversation as system-provided context.

    Attributes:
        content (ResourceContentBinary | ResourceContentText | str): The content. A plain string is read as text content
            (seed 000 lists `content` and
            `mime_type` side by side) and written back as `{"type": "text", "text": ...}`.
        resource_uri (str): Its URI on that server.
        retrieved_at (datetime.datetime): When it was read from the server (the message's creation time when absent).
            Default: datetime.datetime.fromisoformat('1970-01-01T00:00:00Z').
        server_name (str): The server it came from.
        mime_type (None | str | Unset): Its MIME type, when the server gave one.
        name (None | str | Unset): Its human-readable name, when the server gave one.
    """

    content: ResourceContentBinary | ResourceContentText | str
    resource_uri: str
    server_name: str
    retrieved_at: datetime.datetime = datetime.datetime.fromisoformat(
        "1970-01-01T00:00:00Z"
    )
    mime_type: None | str | Unset = UNSET
    name: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.resource_content_binary import ResourceContentBinary
        from ..models.resource_content_text import ResourceContentText

        content: dict[str, Any] | str
        if isinstance(self.content, ResourceContentText) or isinstance(
            self.content, ResourceContentBinary
        ):
            content = self.content.to_dict()
        else:
            content = self.content

        resource_uri = self.resource_uri

        retrieved_at = self.retrieved_at.isoformat()

        server_name = self.server_name

        mime_type: None | str | Unset
        if isinstance(self.mime_type, Unset):
            mime_type = UNSET
        else:
            mime_type = self.mime_type

        name: None | str | Unset
        if isinstance(self.name, Unset):
            name = UNSET
        else:
            name = self.name

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "content": content,
                "resource_uri": resource_uri,
                "retrieved_at": retrieved_at,
                "server_name": server_name,
            }
        )
        if mime_type is not UNSET:
            field_dict["mime_type"] = mime_type
        if name is not UNSET:
            field_dict["name"] = name

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.resource_content_binary import ResourceContentBinary
        from ..models.resource_content_text import ResourceContentText

        d = dict(src_dict)

        def _parse_content(
            data: object,
        ) -> ResourceContentBinary | ResourceContentText | str:
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_resource_content_type_0 = (
                    ResourceContentText.from_dict(data)
                )

                return componentsschemas_resource_content_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_resource_content_type_1 = (
                    ResourceContentBinary.from_dict(data)
                )

                return componentsschemas_resource_content_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(ResourceContentBinary | ResourceContentText | str, data)

        content = _parse_content(d.pop("content"))

        resource_uri = d.pop("resource_uri")

        retrieved_at = datetime.datetime.fromisoformat(d.pop("retrieved_at"))

        server_name = d.pop("server_name")

        def _parse_mime_type(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        mime_type = _parse_mime_type(d.pop("mime_type", UNSET))

        def _parse_name(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        name = _parse_name(d.pop("name", UNSET))

        mcp_resource_message = cls(
            content=content,
            resource_uri=resource_uri,
            retrieved_at=retrieved_at,
            server_name=server_name,
            mime_type=mime_type,
            name=name,
        )

        mcp_resource_message.additional_properties = d
        return mcp_resource_message

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
