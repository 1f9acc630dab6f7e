from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.approval_status import ApprovalStatus

T = TypeVar("T", bound="ToolCall")


@_attrs_define
class ToolCall:
    """One call to a tool.

    Attributes:
        approval_status (ApprovalStatus): Where a tool call stands with respect to a person's (or the policy's)
            approval.
            - `pending`: Waiting for a decision.
            - `approved`: Allowed to run (by a person, the policy, or an approval for this session).
            - `denied`: Refused; the model receives an error result saying so.
        arguments (Any): The arguments: a JSON object. Arguments that were not valid JSON are kept as the string
            the model sent, and fail validation. `{}` when absent. Default: {}.
        id (str): The id a model gave one of its tool calls (`call_abc` for OpenAI, `toolu_...` for
            Anthropic). Kept exactly as the provider sent it, because results must echo it back.
        name (str): The tool's name.
    """

    approval_status: ApprovalStatus
    id: str
    name: str
    arguments: Any = {}
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        approval_status = self.approval_status.value

        arguments = self.arguments

        id = self.id

        name = self.name

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "approval_status": approval_status,
                "arguments": arguments,
                "id": id,
                "name": name,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        approval_status = ApprovalStatus(d.pop("approval_status"))

        arguments = d.pop("arguments")

        id = d.pop("id")

        name = d.pop("name")

        tool_call = cls(
            approval_status=approval_status,
            arguments=arguments,
            id=id,
            name=name,
        )

        tool_call.additional_properties = d
        return tool_call

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
