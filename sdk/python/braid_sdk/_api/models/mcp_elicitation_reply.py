from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.elicitation_action import ElicitationAction
from ..types import UNSET, Unset

T = TypeVar("T", bound="McpElicitationReply")


@_attrs_define
class McpElicitationReply:
    """`POST /v1/mcp/elicitations/{id}`: the person's answer.

    Attributes:
        action (ElicitationAction): What the person does with an MCP server's question.
            - `accept`: Answers it (with `content` for a form).
            - `decline`: Declines to answer; the server's call goes on without it.
            - `cancel`: Dismisses it; the server may stop what it was doing.
        content (Any | Unset): The form's values, by field name, when accepting a form.
    """

    action: ElicitationAction
    content: Any | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        action = self.action.value

        content = self.content

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "action": action,
            }
        )
        if content is not UNSET:
            field_dict["content"] = content

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        action = ElicitationAction(d.pop("action"))

        content = d.pop("content", UNSET)

        mcp_elicitation_reply = cls(
            action=action,
            content=content,
        )

        mcp_elicitation_reply.additional_properties = d
        return mcp_elicitation_reply

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
