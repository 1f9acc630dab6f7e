from __future__ import annotations

import datetime
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

from ..models.turn_outcome import TurnOutcome
from ..types import UNSET, Unset

T = TypeVar("T", bound="TurnCompleted")


@_attrs_define
class TurnCompleted:
    """The end of a turn: what it came to. Every turn has exactly one.

    Attributes:
        branch (str): The name of a branch within a context, unique in that context (`main` by default).
        context_id (UUID): Identifies one context (conversation).
        outcome (TurnOutcome): How a turn ended.
            - `answered`: The work is done: the model answered (or the send needed no answer).
            - `failed`: It failed (`error` says why); a new send or `resume` goes on.
            - `paused`: The tool loop stopped at a limit (`resume` continues it), or a workflow run paused (its `resume`
            continues it, as a new turn).
            - `interrupted`: Someone interrupted it, or cancelled the workflow run it was.
            - `awaiting_approval`: It waits for a person to approve or deny tool calls (the approval starts a new turn), or
            at a workflow run's approval step (resuming the run approves, as a new turn; cancelling declines).
            - `awaiting_answer`: It waits for a person to answer the agent's question (the answer is a new send).
        timestamp (datetime.datetime): When it ended.
        turn_id (UUID): Identifies one turn of a context (`turn_id` in the API): the work one send, resume or
            approval starts, from its first event to its `turn_completed` event.
        type_ (Literal['turn_completed']):
        error (None | str | Unset): What failed, for a `failed` turn.
    """

    branch: str
    context_id: UUID
    outcome: TurnOutcome
    timestamp: datetime.datetime
    turn_id: UUID
    type_: Literal["turn_completed"]
    error: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        branch = self.branch

        context_id = str(self.context_id)

        outcome = self.outcome.value

        timestamp = self.timestamp.isoformat()

        turn_id = str(self.turn_id)

        type_ = self.type_

        error: None | str | Unset
        if isinstance(self.error, Unset):
            error = UNSET
        else:
            error = self.error

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "branch": branch,
                "context_id": context_id,
                "outcome": outcome,
                "timestamp": timestamp,
                "turn_id": turn_id,
                "type": type_,
            }
        )
        if error is not UNSET:
            field_dict["error"] = error

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        branch = d.pop("branch")

        context_id = UUID(d.pop("context_id"))

        outcome = TurnOutcome(d.pop("outcome"))

        timestamp = datetime.datetime.fromisoformat(d.pop("timestamp"))

        turn_id = UUID(d.pop("turn_id"))

        type_ = cast(Literal["turn_completed"], d.pop("type"))
        if type_ != "turn_completed":
            raise ValueError(f"type must match const 'turn_completed', got '{type_}'")

        def _parse_error(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        error = _parse_error(d.pop("error", UNSET))

        turn_completed = cls(
            branch=branch,
            context_id=context_id,
            outcome=outcome,
            timestamp=timestamp,
            turn_id=turn_id,
            type_=type_,
            error=error,
        )

        turn_completed.additional_properties = d
        return turn_completed

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
