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

from ..types import UNSET, Unset

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
        branch (None | str | Unset): The branch that turn works on.
        turn_id (None | Unset | UUID): The turn this event belongs to, when one was running (see `turn_completed`).
    """

    context_id: UUID
    delta: str
    is_final: bool
    message_id: UUID
    sequence: int
    type_: Literal["content_delta"]
    branch: None | str | Unset = UNSET
    turn_id: None | Unset | UUID = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        context_id = str(self.context_id)

        delta = self.delta

        is_final = self.is_final

        message_id = str(self.message_id)

        sequence = self.sequence

        type_ = self.type_

        branch: None | str | Unset
        if isinstance(self.branch, Unset):
            branch = UNSET
        else:
            branch = self.branch

        turn_id: None | str | Unset
        if isinstance(self.turn_id, Unset):
            turn_id = UNSET
        elif isinstance(self.turn_id, UUID):
            turn_id = str(self.turn_id)
        else:
            turn_id = self.turn_id

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
        if branch is not UNSET:
            field_dict["branch"] = branch
        if turn_id is not UNSET:
            field_dict["turn_id"] = turn_id

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

        def _parse_branch(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        branch = _parse_branch(d.pop("branch", UNSET))

        def _parse_turn_id(data: object) -> None | Unset | UUID:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                turn_id_type_0 = UUID(data)

                return turn_id_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | Unset | UUID, data)

        turn_id = _parse_turn_id(d.pop("turn_id", UNSET))

        content_delta = cls(
            context_id=context_id,
            delta=delta,
            is_final=is_final,
            message_id=message_id,
            sequence=sequence,
            type_=type_,
            branch=branch,
            turn_id=turn_id,
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
