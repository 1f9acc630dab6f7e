from __future__ import annotations

from collections.abc import Mapping
from typing import (
    Any,
    Literal,
    Self,
    TypeVar,
    cast,
)
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.kind_name import KindName

T = TypeVar("T", bound="MessageUpdateChanged")


@_attrs_define
class MessageUpdateChanged:
    """Its content or metadata changed outside a turn (pinned, unpinned, a summary
    corrected): read it again.

        Attributes:
            kind (KindName): The name of a kind without its data: for store columns, filters and events.
                - `text`: `text`
                - `image`: `image`
                - `file_reference`: `file_reference`
                - `project_structure`: `project_structure`
                - `tool_request`: `tool_request`
                - `tool_result`: `tool_result`
                - `mcp_tool_request`: `mcp_tool_request`
                - `mcp_tool_result`: `mcp_tool_result`
                - `mcp_resource`: `mcp_resource`
                - `workflow_execution`: `workflow_execution`
                - `system_control`: `system_control`
                - `processing`: `processing`
                - `plan`: `plan`
                - `question`: `question`
                - `unknown`: A kind this version does not know.
            message_id (UUID): Identifies one message in a context's pool, across all of its branches.
            type_ (Literal['changed']):
    """

    kind: KindName
    message_id: UUID
    type_: Literal["changed"]
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        kind = self.kind.value

        message_id = str(self.message_id)

        type_ = self.type_

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "kind": kind,
                "message_id": message_id,
                "type": type_,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        kind = KindName(d.pop("kind"))

        message_id = UUID(d.pop("message_id"))

        type_ = cast(Literal["changed"], d.pop("type"))
        if type_ != "changed":
            raise ValueError(f"type must match const 'changed', got '{type_}'")

        message_update_changed = cls(
            kind=kind,
            message_id=message_id,
            type_=type_,
        )

        message_update_changed.additional_properties = d
        return message_update_changed

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
