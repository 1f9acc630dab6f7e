from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.conflict_kind import ConflictKind
from ..models.resolution import Resolution

if TYPE_CHECKING:
    from ..models.conflict_message import ConflictMessage


T = TypeVar("T", bound="MergeConflict")


@_attrs_define
class MergeConflict:
    """A conflict: the merge will not complete until it has a resolution.

    Attributes:
        detail (str): What the conflict is, in words.
        id (str): Stable for the same branches: a later request names it in `resolutions`.
        kind (ConflictKind): What two branches disagree on.
            - `file_write`: Both branches wrote the same workspace file after their common ancestor.
            - `mode`: The branches end in different modes (plan / act).
            - `role`: The branches end in different agent roles (planner / actor).
            - `summary`: A summary on the source stands for messages the merged target would not have.
            - `file_reference`: The same file was referenced on both sides and read with different contents.
        messages (list[ConflictMessage]): The messages involved, target's side first.
        suggestions (list[Resolution]): The resolutions that make sense here, the recommended one first; only these are
            accepted for this conflict.
    """

    detail: str
    id: str
    kind: ConflictKind
    messages: list[ConflictMessage]
    suggestions: list[Resolution]
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        detail = self.detail

        id = self.id

        kind = self.kind.value

        messages = []
        for messages_item_data in self.messages:
            messages_item = messages_item_data.to_dict()
            messages.append(messages_item)

        suggestions = []
        for suggestions_item_data in self.suggestions:
            suggestions_item = suggestions_item_data.value
            suggestions.append(suggestions_item)

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "detail": detail,
                "id": id,
                "kind": kind,
                "messages": messages,
                "suggestions": suggestions,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.conflict_message import ConflictMessage

        d = dict(src_dict)
        detail = d.pop("detail")

        id = d.pop("id")

        kind = ConflictKind(d.pop("kind"))

        messages = []
        _messages = d.pop("messages")
        for messages_item_data in _messages:
            messages_item = ConflictMessage.from_dict(messages_item_data)

            messages.append(messages_item)

        suggestions = []
        _suggestions = d.pop("suggestions")
        for suggestions_item_data in _suggestions:
            suggestions_item = Resolution(suggestions_item_data)

            suggestions.append(suggestions_item)

        merge_conflict = cls(
            detail=detail,
            id=id,
            kind=kind,
            messages=messages,
            suggestions=suggestions,
        )

        merge_conflict.additional_properties = d
        return merge_conflict

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
