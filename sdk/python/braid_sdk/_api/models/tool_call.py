from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.approval_status import ApprovalStatus
from ..types import UNSET, Unset

T = TypeVar("T", bound="ToolCall")


@_attrs_define
class ToolCall:
    """One call to a tool.

    Attributes:
        id (str): The id a model gave one of its tool calls (`call_abc` for OpenAI, `toolu_...` for
            Anthropic). Kept exactly as the provider sent it, because results must echo it back.
        name (str): The tool's name.
        approval_status (ApprovalStatus | Unset): Where a tool call stands with respect to a person's (or the policy's)
            approval.
            - `pending`: Waiting for a decision.
            - `approved`: Allowed to run (by a person, the policy, or an approval for this session).
            - `denied`: Refused; the model receives an error result saying so.
        arguments (Any | Unset): The arguments: a JSON object. Arguments that were not valid JSON are kept as the string
            the model sent, and fail validation. `{}` when absent. Default: {}.
    """

    id: str
    name: str
    approval_status: ApprovalStatus | Unset = UNSET
    arguments: Any | Unset = {}
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        id = self.id

        name = self.name

        approval_status: str | Unset = UNSET
        if not isinstance(self.approval_status, Unset):
            approval_status = self.approval_status.value

        arguments = self.arguments

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "id": id,
                "name": name,
            }
        )
        if approval_status is not UNSET:
            field_dict["approval_status"] = approval_status
        if arguments is not UNSET:
            field_dict["arguments"] = arguments

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        id = d.pop("id")

        name = d.pop("name")

        _approval_status = d.pop("approval_status", UNSET)
        approval_status: ApprovalStatus | Unset
        if isinstance(_approval_status, Unset):
            approval_status = UNSET
        else:
            approval_status = ApprovalStatus(_approval_status)

        arguments = d.pop("arguments", UNSET)

        tool_call = cls(
            id=id,
            name=name,
            approval_status=approval_status,
            arguments=arguments,
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
