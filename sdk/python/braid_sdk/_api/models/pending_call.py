from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="PendingCall")


@_attrs_define
class PendingCall:
    """A tool call waiting for a person's decision, as the approval's `context_update` lists it.

    Attributes:
        arguments (Any): The arguments the model gave (as parsed; the raw text when they are not JSON).
        call_id (str): The id a model gave one of its tool calls (`call_abc` for OpenAI, `toolu_...` for
            Anthropic). Kept exactly as the provider sent it, because results must echo it back.
        tool_name (str): The tool it calls.
    """

    arguments: Any
    call_id: str
    tool_name: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        arguments = self.arguments

        call_id = self.call_id

        tool_name = self.tool_name

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "arguments": arguments,
                "call_id": call_id,
                "tool_name": tool_name,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        arguments = d.pop("arguments")

        call_id = d.pop("call_id")

        tool_name = d.pop("tool_name")

        pending_call = cls(
            arguments=arguments,
            call_id=call_id,
            tool_name=tool_name,
        )

        pending_call.additional_properties = d
        return pending_call

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
