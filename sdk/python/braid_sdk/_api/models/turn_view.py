from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.turn_outcome import TurnOutcome
from ..models.turn_status import TurnStatus
from ..types import UNSET, Unset

T = TypeVar("T", bound="TurnView")


@_attrs_define
class TurnView:
    """Where a turn is: `GET /v1/contexts/{id}/turns/{turn_id}`.

    Attributes:
        branch (str): The name of a branch within a context, unique in that context (`main` by default).
        context_id (UUID): Identifies one context (conversation).
        status (TurnStatus): Where a turn is.
            - `queued`: Its send waits behind another turn.
            - `running`: It runs.
            - `completed`: It ended (`outcome` says how).
        turn_id (UUID): Identifies one turn of a context (`turn_id` in the API): the work one send, resume or
            approval starts, from its first event to its `turn_completed` event.
        completed_at (datetime.datetime | None | Unset): When it ended.
        error (None | str | Unset): What failed, for a `failed` turn.
        message_id (None | Unset | UUID): The id the send that started it answered with (absent for a resume or an
            approval).
        outcome (None | TurnOutcome | Unset): How it ended, once `completed`.
    """

    branch: str
    context_id: UUID
    status: TurnStatus
    turn_id: UUID
    completed_at: datetime.datetime | None | Unset = UNSET
    error: None | str | Unset = UNSET
    message_id: None | Unset | UUID = UNSET
    outcome: None | TurnOutcome | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        branch = self.branch

        context_id = str(self.context_id)

        status = self.status.value

        turn_id = str(self.turn_id)

        completed_at: None | str | Unset
        if isinstance(self.completed_at, Unset):
            completed_at = UNSET
        elif isinstance(self.completed_at, datetime.datetime):
            completed_at = self.completed_at.isoformat()
        else:
            completed_at = self.completed_at

        error: None | str | Unset
        if isinstance(self.error, Unset):
            error = UNSET
        else:
            error = self.error

        message_id: None | str | Unset
        if isinstance(self.message_id, Unset):
            message_id = UNSET
        elif isinstance(self.message_id, UUID):
            message_id = str(self.message_id)
        else:
            message_id = self.message_id

        outcome: None | str | Unset
        if isinstance(self.outcome, Unset):
            outcome = UNSET
        elif isinstance(self.outcome, TurnOutcome):
            outcome = self.outcome.value
        else:
            outcome = self.outcome

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "branch": branch,
                "context_id": context_id,
                "status": status,
                "turn_id": turn_id,
            }
        )
        if completed_at is not UNSET:
            field_dict["completed_at"] = completed_at
        if error is not UNSET:
            field_dict["error"] = error
        if message_id is not UNSET:
            field_dict["message_id"] = message_id
        if outcome is not UNSET:
            field_dict["outcome"] = outcome

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        branch = d.pop("branch")

        context_id = UUID(d.pop("context_id"))

        status = TurnStatus(d.pop("status"))

        turn_id = UUID(d.pop("turn_id"))

        def _parse_completed_at(data: object) -> datetime.datetime | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                completed_at_type_0 = datetime.datetime.fromisoformat(data)

                return completed_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None | Unset, data)

        completed_at = _parse_completed_at(d.pop("completed_at", UNSET))

        def _parse_error(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        error = _parse_error(d.pop("error", UNSET))

        def _parse_message_id(data: object) -> None | Unset | UUID:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                message_id_type_0 = UUID(data)

                return message_id_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | Unset | UUID, data)

        message_id = _parse_message_id(d.pop("message_id", UNSET))

        def _parse_outcome(data: object) -> None | TurnOutcome | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                outcome_type_0 = TurnOutcome(data)

                return outcome_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | TurnOutcome | Unset, data)

        outcome = _parse_outcome(d.pop("outcome", UNSET))

        turn_view = cls(
            branch=branch,
            context_id=context_id,
            status=status,
            turn_id=turn_id,
            completed_at=completed_at,
            error=error,
            message_id=message_id,
            outcome=outcome,
        )

        turn_view.additional_properties = d
        return turn_view

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
