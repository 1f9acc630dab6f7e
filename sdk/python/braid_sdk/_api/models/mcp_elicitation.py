from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="McpElicitation")


@_attrs_define
class McpElicitation:
    """A question an MCP server asks the person in the middle of a tool call (MCP elicitation),
    waiting for an answer (`GET /v1/mcp/elicitations`).

        Attributes:
            asked_at (datetime.datetime): When the server asked.
            id (str): Names this request in the answer.
            message (str): What the server says to the person.
            server (str): The MCP server asking.
            requested_schema (Any | Unset): A form request: the JSON Schema of its fields (flat: strings, numbers, booleans,
                enums).
            url (None | str | Unset): A URL request: the page the person should open.
    """

    asked_at: datetime.datetime
    id: str
    message: str
    server: str
    requested_schema: Any | Unset = UNSET
    url: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        asked_at = self.asked_at.isoformat()

        id = self.id

        message = self.message

        server = self.server

        requested_schema = self.requested_schema

        url: None | str | Unset
        if isinstance(self.url, Unset):
            url = UNSET
        else:
            url = self.url

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "asked_at": asked_at,
                "id": id,
                "message": message,
                "server": server,
            }
        )
        if requested_schema is not UNSET:
            field_dict["requested_schema"] = requested_schema
        if url is not UNSET:
            field_dict["url"] = url

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        asked_at = datetime.datetime.fromisoformat(d.pop("asked_at"))

        id = d.pop("id")

        message = d.pop("message")

        server = d.pop("server")

        requested_schema = d.pop("requested_schema", UNSET)

        def _parse_url(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        url = _parse_url(d.pop("url", UNSET))

        mcp_elicitation = cls(
            asked_at=asked_at,
            id=id,
            message=message,
            server=server,
            requested_schema=requested_schema,
            url=url,
        )

        mcp_elicitation.additional_properties = d
        return mcp_elicitation

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
