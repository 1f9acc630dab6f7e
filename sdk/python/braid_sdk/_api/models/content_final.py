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

T = TypeVar("T", bound="ContentFinal")


@_attrs_define
class ContentFinal:
    """The end of a streamed message; its full text is stored before this is emitted.

    Attributes:
        context_id (UUID): Identifies one context (conversation).
        is_final (bool): Always `true`.
        message_id (UUID): Identifies one message in a context's pool, across all of its branches.
        sequence (int): The last sequence number sent for it.
        type_ (Literal['content_final']):
    """

    context_id: UUID
    is_final: bool
    message_id: UUID
    sequence: int
    type_: Literal["content_final"]
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        context_id = str(self.context_id)

        is_final = self.is_final

        message_id = str(self.message_id)

        sequence = self.sequence

        type_ = self.type_

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "context_id": context_id,
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

        is_final = d.pop("is_final")

        message_id = UUID(d.pop("message_id"))

        sequence = d.pop("sequence")

        type_ = cast(Literal["content_final"], d.pop("type"))
        if type_ != "content_final":
            raise ValueError(f"type must match const 'content_final', got '{type_}'")

        content_final = cls(
            context_id=context_id,
            is_final=is_final,
            message_id=message_id,
            sequence=sequence,
            type_=type_,
        )

        content_final.additional_properties = d
        return content_final

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
