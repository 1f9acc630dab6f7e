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

T = TypeVar("T", bound="ContentDelta")


@_attrs_define
class ContentDelta:
    """A piece of streamed text.

    Attributes:
        context_id (UUID): Identifies one context (conversation).
        delta (str): The text.
        is_final (bool): Always `false` for a delta (the contract's marker).
        message_id (UUID): Identifies one message in a context's pool, across all of its branches.
        sequence (int): The piece's position in this message's stream, from 1.
        type_ (Literal['content_delta']):
    """

    context_id: UUID
    delta: str
    is_final: bool
    message_id: UUID
    sequence: int
    type_: Literal["content_delta"]
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        context_id = str(self.context_id)

        delta = self.delta

        is_final = self.is_final

        message_id = str(self.message_id)

        sequence = self.sequence

        type_ = self.type_

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "context_id": context_id,
                "delta": delta,
                "is_final": is_final,
                "message_id": message_id,
                "sequence": sequence,
                "type": type_,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        context_id = UUID(d.pop("context_id"))

        delta = d.pop("delta")

        is_final = d.pop("is_final")

        message_id = UUID(d.pop("message_id"))

        sequence = d.pop("sequence")

        type_ = cast(Literal["content_delta"], d.pop("type"))
        if type_ != "content_delta":
            raise ValueError(f"type must match const 'content_delta', got '{type_}'")

        content_delta = cls(
            context_id=context_id,
            delta=delta,
            is_final=is_final,
            message_id=message_id,
            sequence=sequence,
            type_=type_,
        )

        content_delta.additional_properties = d
        return content_delta

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
