from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.view_marker_kind import ViewMarkerKind
from ..types import UNSET, Unset

T = TypeVar("T", bound="ViewMarker")


@_attrs_define
class ViewMarker:
    """A run of consecutive branch messages that the optimized view (what the next request
    sends) leaves out; the full view lists them all.

        Attributes:
            count (int): How many messages the run holds.
            first (UUID): Identifies one message in a context's pool, across all of its branches.
            kind (ViewMarkerKind): What happened to the messages a [`ViewMarker`] stands for.
                - `summarized`: A stored summary is sent in their place.
                - `dropped`: Left out of the request to fit the model's window.
            last (UUID): Identifies one message in a context's pool, across all of its branches.
            tokens (int): Their tokens as the model would count them.
            before (None | Unset | UUID): The listed message the marker stands before; absent when it follows the last one.
            summary (None | Unset | UUID): The summary sent in their place (`summarized` only).
    """

    count: int
    first: UUID
    kind: ViewMarkerKind
    last: UUID
    tokens: int
    before: None | Unset | UUID = UNSET
    summary: None | Unset | UUID = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        count = self.count

        first = str(self.first)

        kind = self.kind.value

        last = str(self.last)

        tokens = self.tokens

        before: None | str | Unset
        if isinstance(self.before, Unset):
            before = UNSET
        elif isinstance(self.before, UUID):
            before = str(self.before)
        else:
            before = self.before

        summary: None | str | Unset
        if isinstance(self.summary, Unset):
            summary = UNSET
        elif isinstance(self.summary, UUID):
            summary = str(self.summary)
        else:
            summary = self.summary

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "count": count,
                "first": first,
                "kind": kind,
                "last": last,
                "tokens": tokens,
            }
        )
        if before is not UNSET:
            field_dict["before"] = before
        if summary is not UNSET:
            field_dict["summary"] = summary

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        count = d.pop("count")

        first = UUID(d.pop("first"))

        kind = ViewMarkerKind(d.pop("kind"))

        last = UUID(d.pop("last"))

        tokens = d.pop("tokens")

        def _parse_before(data: object) -> None | Unset | UUID:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                before_type_0 = UUID(data)

                return before_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | Unset | UUID, data)

        before = _parse_before(d.pop("before", UNSET))

        def _parse_summary(data: object) -> None | Unset | UUID:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                summary_type_0 = UUID(data)

                return summary_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | Unset | UUID, data)

        summary = _parse_summary(d.pop("summary", UNSET))

        view_marker = cls(
            count=count,
            first=first,
            kind=kind,
            last=last,
            tokens=tokens,
            before=before,
            summary=summary,
        )

        view_marker.additional_properties = d
        return view_marker

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
