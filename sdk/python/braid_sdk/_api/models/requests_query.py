from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast
from uuid import UUID

from attrs import define as _attrs_define

from ..types import UNSET, Unset

T = TypeVar("T", bound="RequestsQuery")


@_attrs_define
class RequestsQuery:
    """Query of `GET /v1/contexts/{id}/requests`.

    Attributes:
        before (None | Unset | UUID): Only requests older than this one (the previous page's last id).
        branch (None | str | Unset): Only requests made on this branch.
        limit (int | None | Unset): At most this many (default 20, at most 1000).
    """

    before: None | Unset | UUID = UNSET
    branch: None | str | Unset = UNSET
    limit: int | None | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
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

        limit: int | None | Unset
        if isinstance(self.limit, Unset):
            limit = UNSET
        else:
            limit = self.limit

        field_dict: dict[str, Any] = {}

        field_dict.update({})
        if before is not UNSET:
            field_dict["before"] = before
        if branch is not UNSET:
            field_dict["branch"] = branch
        if limit is not UNSET:
            field_dict["limit"] = limit

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)

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

        def _parse_limit(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        limit = _parse_limit(d.pop("limit", UNSET))

        requests_query = cls(
            before=before,
            branch=branch,
            limit=limit,
        )

        return requests_query
