from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.kind_name import KindName
from ..models.message_view import MessageView
from ..models.page_from import PageFrom
from ..types import UNSET, Unset

T = TypeVar("T", bound="MessagesQuery")


@_attrs_define
class MessagesQuery:
    """Query of `GET /v1/contexts/{id}/messages`.

    Attributes:
        after (None | Unset | UUID): Only messages after this message id (the previous page's `next_after`).
        before (None | Unset | UUID): Only messages before this message id, the newest of them (the previous page's
            `next_before`, or the last message listed to page back from the end); not with `after`.
        branch (None | str | Unset): The branch; the active one when absent.
        from_ (None | PageFrom | Unset): Without `after` or `before`: `start` (the oldest messages, the default) or
            `end` (the
            newest, with `next_before` to page back), as a reader opening a long conversation wants.
        kind (KindName | None | Unset): Only messages of this kind (`text`, `tool_request`...).
        limit (int | None | Unset): At most this many (default 100, at most 1000).
        view (MessageView | None | Unset): `full` (stored history, the default) or `optimized` (what the model would be
            sent).
    """

    after: None | Unset | UUID = UNSET
    before: None | Unset | UUID = UNSET
    branch: None | str | Unset = UNSET
    from_: None | PageFrom | Unset = UNSET
    kind: KindName | None | Unset = UNSET
    limit: int | None | Unset = UNSET
    view: MessageView | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        after: None | str | Unset
        if isinstance(self.after, Unset):
            after = UNSET
        elif isinstance(self.after, UUID):
            after = str(self.after)
        else:
            after = self.after

        before: None | str | Unset
        if isinstance(self.before, Unset):
            before = UNSET
        elif isinstance(self.before, UUID):
            before = str(self.before)
        else:
            before = self.before

        branch: None | str | Unset
        if isinstance(self.branch, Unset):
            branch = UNSET
        else:
            branch = self.branch

        from_: None | str | Unset
        if isinstance(self.from_, Unset):
            from_ = UNSET
        elif isinstance(self.from_, PageFrom):
            from_ = self.from_.value
        else:
            from_ = self.from_

        kind: None | str | Unset
        if isinstance(self.kind, Unset):
            kind = UNSET
        elif isinstance(self.kind, KindName):
            kind = self.kind.value
        else:
            kind = self.kind

        limit: int | None | Unset
        if isinstance(self.limit, Unset):
            limit = UNSET
        else:
            limit = self.limit

        view: None | str | Unset
        if isinstance(self.view, Unset):
            view = UNSET
        elif isinstance(self.view, MessageView):
            view = self.view.value
        else:
            view = self.view

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({})
        if after is not UNSET:
            field_dict["after"] = after
        if before is not UNSET:
            field_dict["before"] = before
        if branch is not UNSET:
            field_dict["branch"] = branch
        if from_ is not UNSET:
            field_dict["from"] = from_
        if kind is not UNSET:
            field_dict["kind"] = kind
        if limit is not UNSET:
            field_dict["limit"] = limit
        if view is not UNSET:
            field_dict["view"] = view

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)

        def _parse_after(data: object) -> None | Unset | UUID:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                after_type_0 = UUID(data)

                return after_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | Unset | UUID, data)

        after = _parse_after(d.pop("after", UNSET))

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

        def _parse_branch(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        branch = _parse_branch(d.pop("branch", UNSET))

        def _parse_from_(data: object) -> None | PageFrom | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                from_type_0 = PageFrom(data)

                return from_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | PageFrom | Unset, data)

        from_ = _parse_from_(d.pop("from", UNSET))

        def _parse_kind(data: object) -> KindName | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                kind_type_0 = KindName(data)

                return kind_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(KindName | None | Unset, data)

        kind = _parse_kind(d.pop("kind", UNSET))

        def _parse_limit(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        limit = _parse_limit(d.pop("limit", UNSET))

        def _parse_view(data: object) -> MessageView | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                view_type_0 = MessageView(data)

                return view_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(MessageView | None | Unset, data)

        view = _parse_view(d.pop("view", UNSET))

        messages_query = cls(
            after=after,
            before=before,
            branch=branch,
            from_=from_,
            kind=kind,
            limit=limit,
            view=view,
        )

        messages_query.additional_properties = d
        return messages_query

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
