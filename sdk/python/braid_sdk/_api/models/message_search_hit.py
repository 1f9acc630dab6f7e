from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.role import Role
from ..types import UNSET, Unset

T = TypeVar("T", bound="MessageSearchHit")


@_attrs_define
class MessageSearchHit:
    """One message a search found: enough to list it and to open its conversation at it.

    Attributes:
        context_id (UUID): Identifies one context (conversation).
        created_at (datetime.datetime): When it was written.
        message_id (UUID): Identifies one message in a context's pool, across all of its branches.
        role (Role): The author of a message.

            `user`, `assistant` and `tool` are stored. `system` exists only for the system prompt the
            engine builds for each request: it is never persisted, and storing it is a validation error.
            Any other role is rejected when reading, with an error that names it.
            - `user`: The person using Braid.
            - `assistant`: The model.
            - `tool`: The result of a tool call, linked to the call by its id.
            - `system`: The ephemeral system prompt: in memory only.
        snippet (str): Its text around the first match (a few dozen words, plain text, no markup).
        branch (None | str | Unset): A branch showing it (the active one when it does); absent when no branch shows it
            any
            more.
        title (None | str | Unset): The conversation's title; absent while it has none.
    """

    context_id: UUID
    created_at: datetime.datetime
    message_id: UUID
    role: Role
    snippet: str
    branch: None | str | Unset = UNSET
    title: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        context_id = str(self.context_id)

        created_at = self.created_at.isoformat()

        message_id = str(self.message_id)

        role = self.role.value

        snippet = self.snippet

        branch: None | str | Unset
        if isinstance(self.branch, Unset):
            branch = UNSET
        else:
            branch = self.branch

        title: None | str | Unset
        if isinstance(self.title, Unset):
            title = UNSET
        else:
            title = self.title

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "context_id": context_id,
                "created_at": created_at,
                "message_id": message_id,
                "role": role,
                "snippet": snippet,
            }
        )
        if branch is not UNSET:
            field_dict["branch"] = branch
        if title is not UNSET:
            field_dict["title"] = title

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        context_id = UUID(d.pop("context_id"))

        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))

        message_id = UUID(d.pop("message_id"))

        role = Role(d.pop("role"))

        snippet = d.pop("snippet")

        def _parse_branch(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        branch = _parse_branch(d.pop("branch", UNSET))

        def _parse_title(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        title = _parse_title(d.pop("title", UNSET))

        message_search_hit = cls(
            context_id=context_id,
            created_at=created_at,
            message_id=message_id,
            role=role,
            snippet=snippet,
            branch=branch,
            title=title,
        )

        message_search_hit.additional_properties = d
        return message_search_hit

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
