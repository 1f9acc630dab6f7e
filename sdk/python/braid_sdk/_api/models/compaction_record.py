from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="CompactionRecord")


@_attrs_define
class CompactionRecord:
    """One compaction: the optimizer left messages out of the request (dropped, summarized, or
    their output elided) that the previous request still held. Stored in the conversation as a
    `system_control` message, so no message ever leaves a request without a trace.

        Attributes:
            dropped (list[UUID]): Messages newly dropped, oldest first.
            duration_ms (int): How long the optimization took, the summary's model call included.
            limit (int): What the prompt may take: why it compacted (`tokens_before` was over it).
            strategy (str): The strategy that chose (`recent_n`, `intelligent`, `importance_scoring`).
            summarized (list[UUID]): Messages newly summarized, oldest first.
            tokens_after (int): Tokens of the request as sent.
            tokens_before (int): Tokens of the whole request before optimization.
            elided (list[UUID] | Unset): Tool results whose output was newly elided.
            fallback (None | str | Unset): Why a summary was not used, when one was tried.
            request_id (None | Unset | UUID): The request it was made for.
            summary_id (None | Unset | UUID): The summary written for them.
    """

    dropped: list[UUID]
    duration_ms: int
    limit: int
    strategy: str
    summarized: list[UUID]
    tokens_after: int
    tokens_before: int
    elided: list[UUID] | Unset = UNSET
    fallback: None | str | Unset = UNSET
    request_id: None | Unset | UUID = UNSET
    summary_id: None | Unset | UUID = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        dropped = []
        for dropped_item_data in self.dropped:
            dropped_item = str(dropped_item_data)
            dropped.append(dropped_item)

        duration_ms = self.duration_ms

        limit = self.limit

        strategy = self.strategy

        summarized = []
        for summarized_item_data in self.summarized:
            summarized_item = str(summarized_item_data)
            summarized.append(summarized_item)

        tokens_after = self.tokens_after

        tokens_before = self.tokens_before

        elided: list[str] | Unset = UNSET
        if not isinstance(self.elided, Unset):
            elided = []
            for elided_item_data in self.elided:
                elided_item = str(elided_item_data)
                elided.append(elided_item)

        fallback: None | str | Unset
        if isinstance(self.fallback, Unset):
            fallback = UNSET
        else:
            fallback = self.fallback

        request_id: None | str | Unset
        if isinstance(self.request_id, Unset):
            request_id = UNSET
        elif isinstance(self.request_id, UUID):
            request_id = str(self.request_id)
        else:
            request_id = self.request_id

        summary_id: None | str | Unset
        if isinstance(self.summary_id, Unset):
            summary_id = UNSET
        elif isinstance(self.summary_id, UUID):
            summary_id = str(self.summary_id)
        else:
            summary_id = self.summary_id

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "dropped": dropped,
                "duration_ms": duration_ms,
                "limit": limit,
                "strategy": strategy,
                "summarized": summarized,
                "tokens_after": tokens_after,
                "tokens_before": tokens_before,
            }
        )
        if elided is not UNSET:
            field_dict["elided"] = elided
        if fallback is not UNSET:
            field_dict["fallback"] = fallback
        if request_id is not UNSET:
            field_dict["request_id"] = request_id
        if summary_id is not UNSET:
            field_dict["summary_id"] = summary_id

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        dropped = []
        _dropped = d.pop("dropped")
        for dropped_item_data in _dropped:
            dropped_item = UUID(dropped_item_data)

            dropped.append(dropped_item)

        duration_ms = d.pop("duration_ms")

        limit = d.pop("limit")

        strategy = d.pop("strategy")

        summarized = []
        _summarized = d.pop("summarized")
        for summarized_item_data in _summarized:
            summarized_item = UUID(summarized_item_data)

            summarized.append(summarized_item)

        tokens_after = d.pop("tokens_after")

        tokens_before = d.pop("tokens_before")

        _elided = d.pop("elided", UNSET)
        elided: list[UUID] | Unset = UNSET
        if _elided is not UNSET:
            elided = []
            for elided_item_data in _elided:
                elided_item = UUID(elided_item_data)

                elided.append(elided_item)

        def _parse_fallback(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        fallback = _parse_fallback(d.pop("fallback", UNSET))

        def _parse_request_id(data: object) -> None | Unset | UUID:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                request_id_type_0 = UUID(data)

                return request_id_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | Unset | UUID, data)

        request_id = _parse_request_id(d.pop("request_id", UNSET))

        def _parse_summary_id(data: object) -> None | Unset | UUID:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                summary_id_type_0 = UUID(data)

                return summary_id_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | Unset | UUID, data)

        summary_id = _parse_summary_id(d.pop("summary_id", UNSET))

        compaction_record = cls(
            dropped=dropped,
            duration_ms=duration_ms,
            limit=limit,
            strategy=strategy,
            summarized=summarized,
            tokens_after=tokens_after,
            tokens_before=tokens_before,
            elided=elided,
            fallback=fallback,
            request_id=request_id,
            summary_id=summary_id,
        )

        compaction_record.additional_properties = d
        return compaction_record

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
