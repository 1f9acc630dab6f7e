from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="WorkflowRunResponse")


@_attrs_define
class WorkflowRunResponse:
    """The answer to starting a run (202): the run is stored as a `workflow_execution` message.

    Attributes:
        execution_id (str): The run's id, for pause / resume / cancel.
        message_id (UUID): Identifies one message in a context's pool, across all of its branches.
        queued (bool): Whether it waits behind a running turn (its status is `pending` until it starts).
        turn_id (UUID): Identifies one turn of a context (`turn_id` in the API): the work one send, resume or
            approval starts, from its first event to its `turn_completed` event.
        stream_after (int | None | Unset): The event id to stream from (as `Last-Event-ID` or `?after=`) to see every
            event of the
            turn; absent when the run emitted none before answering.
    """

    execution_id: str
    message_id: UUID
    queued: bool
    turn_id: UUID
    stream_after: int | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        execution_id = self.execution_id

        message_id = str(self.message_id)

        queued = self.queued

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
                "execution_id": execution_id,
                "message_id": message_id,
                "queued": queued,
                "turn_id": turn_id,
            }
        )
        if stream_after is not UNSET:
            field_dict["stream_after"] = stream_after

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        execution_id = d.pop("execution_id")

        message_id = UUID(d.pop("message_id"))

        queued = d.pop("queued")

        turn_id = UUID(d.pop("turn_id"))

        def _parse_stream_after(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        stream_after = _parse_stream_after(d.pop("stream_after", UNSET))

        workflow_run_response = cls(
            execution_id=execution_id,
            message_id=message_id,
            queued=queued,
            turn_id=turn_id,
            stream_after=stream_after,
        )

        workflow_run_response.additional_properties = d
        return workflow_run_response

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
