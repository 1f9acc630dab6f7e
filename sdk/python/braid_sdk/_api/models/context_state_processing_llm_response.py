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

T = TypeVar("T", bound="ContextStateProcessingLlmResponse")


@_attrs_define
class ContextStateProcessingLlmResponse:
    """The stream ended; storing the answer and looking for tool calls, plans and questions.

    Attributes:
        type_ (Literal['processing_llm_response']):
    """

    type_: Literal["processing_llm_response"]
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        type_ = self.type_

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "type": type_,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        type_ = cast(Literal["processing_llm_response"], d.pop("type"))
        if type_ != "processing_llm_response":
            raise ValueError(
                f"type must match const 'processing_llm_response', got '{type_}'"
            )

        context_state_processing_llm_response = cls(
            type_=type_,
        )

        context_state_processing_llm_response.additional_properties = d
        return context_state_processing_llm_response

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
