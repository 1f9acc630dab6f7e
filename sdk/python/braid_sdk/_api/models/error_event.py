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

from ..models.error_code import ErrorCode
from ..types import UNSET, Unset

T = TypeVar("T", bound="ErrorEvent")


@_attrs_define
class ErrorEvent:
    """An error the person should see, and whether they can go on.

    Attributes:
        code (ErrorCode): Error categories shared by events and API errors.
            - `llm_not_configured`: No model is configured (which variables to set is in the message).
            - `llm_unavailable`: The model could not be reached.
            - `llm_rejected`: The model's provider refused the request.
            - `stream_interrupted`: The stream ended before the answer did.
            - `interrupted`: The person interrupted the operation before it finished (input whose pipeline step was stopped
            carries it: retry it to send it again).
            - `tool_failed`: A tool failed.
            - `timeout`: Something took longer than allowed.
            - `invalid_input`: A message or request did not validate.
            - `file_reference`: A referenced file could not be read.
            - `image_recognition`: An image could not be loaded or recognized (the message says why).
            - `storage_failed`: Reading or writing the store failed.
            - `not_found`: Not found.
            - `conflict`: Conflicts with the current state (e.g. approving a call that is not pending).
            - `unauthorized`: Authentication missing or wrong.
            - `forbidden`: The server's guard refused the request: a foreign `Host` or `Origin` header.
            - `unsupported_media_type`: The request body is not of an accepted type (bodies must be JSON).
            - `payload_too_large`: The request body is too large.
            - `method_not_allowed`: The route has no such method (the `Allow` header lists the ones it has).
            - `internal`: A bug or an unexpected failure.
            - `resume_point_unknown`: A client resumed an event stream after an id this context's log does not hold (the
            database was restored, or the context recreated): the client must reload the context's messages; the stream
            continues live.
        context_id (UUID): Identifies one context (conversation).
        message (str): What happened and what to do, in words.
        recoverable (bool): Whether retrying or continuing can succeed.
        type_ (Literal['error']):
        branch (None | str | Unset): The branch that turn works on.
        turn_id (None | Unset | UUID): The turn this event belongs to, when one was running (see `turn_completed`).
    """

    code: ErrorCode
    context_id: UUID
    message: str
    recoverable: bool
    type_: Literal["error"]
    branch: None | str | Unset = UNSET
    turn_id: None | Unset | UUID = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        code = self.code.value

        context_id = str(self.context_id)

        message = self.message

        recoverable = self.recoverable

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
                "code": code,
                "context_id": context_id,
                "message": message,
                "recoverable": recoverable,
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
        code = ErrorCode(d.pop("code"))

        context_id = UUID(d.pop("context_id"))

        message = d.pop("message")

        recoverable = d.pop("recoverable")

        type_ = cast(Literal["error"], d.pop("type"))
        if type_ != "error":
            raise ValueError(f"type must match const 'error', got '{type_}'")

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

        error_event = cls(
            code=code,
            context_id=context_id,
            message=message,
            recoverable=recoverable,
            type_=type_,
            branch=branch,
            turn_id=turn_id,
        )

        error_event.additional_properties = d
        return error_event

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
