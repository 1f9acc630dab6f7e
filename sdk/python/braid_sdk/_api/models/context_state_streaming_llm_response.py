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

T = TypeVar("T", bound="ContextStateStreamingLlmResponse")


@_attrs_define
class ContextStateStreamingLlmResponse:
    """Receiving the answer.

    Attributes:
        chars (int): Characters of text received so far.
        chunks (int): Chunks received so far.
        type_ (Literal['streaming_llm_response']):
    """

    chars: int
    chunks: int
    type_: Literal["streaming_llm_response"]
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        chars = self.chars

        chunks = self.chunks

        type_ = self.type_

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "chars": chars,
                "chunks": chunks,
                "type": type_,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        chars = d.pop("chars")

        chunks = d.pop("chunks")

        type_ = cast(Literal["streaming_llm_response"], d.pop("type"))
        if type_ != "streaming_llm_response":
            raise ValueError(
                f"type must match const 'streaming_llm_response', got '{type_}'"
            )

        context_state_streaming_llm_response = cls(
            chars=chars,
            chunks=chunks,
            type_=type_,
        )

        context_state_streaming_llm_response.additional_properties = d
        return context_state_streaming_llm_response

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
