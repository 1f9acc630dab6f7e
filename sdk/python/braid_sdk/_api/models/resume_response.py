from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="ResumeResponse")


@_attrs_define
class ResumeResponse:
    """The 202 answer to a resume: the turn that continues the loop.

    Attributes:
        turn_id (UUID): Identifies one turn of a context (`turn_id` in the API): the work one send, resume or
            approval starts, from its first event to its `turn_completed` event.
        stream_after (int | None | Unset): The event id to stream from (as `Last-Event-ID` or `?after=`) to see every
            event of the
            turn: the last event before it.
    """

    turn_id: UUID
    stream_after: int | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        turn_id = str(self.turn_id)

        stream_after: int | None | Unset
        if isinstance(self.stream_after, Unset):
            stream_after = UNSET
        else:
            stream_after = self.stream_after

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "turn_id": turn_id,
            }
        )
        if stream_after is not UNSET:
            field_dict["stream_after"] = stream_after

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        turn_id = UUID(d.pop("turn_id"))

        def _parse_stream_after(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        stream_after = _parse_stream_after(d.pop("stream_after", UNSET))

        resume_response = cls(
            turn_id=turn_id,
            stream_after=stream_after,
        )

        resume_response.additional_properties = d
        return resume_response

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
