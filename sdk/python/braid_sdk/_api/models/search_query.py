from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define

from ..types import UNSET, Unset

T = TypeVar("T", bound="SearchQuery")


@_attrs_define
class SearchQuery:
    """Query of `GET /v1/search`.

    Attributes:
        q (str): The words to find (letters and digits; anything else separates words).
        limit (int | None | Unset): At most this many hits (1 to 100; 20 when absent).
    """

    q: str
    limit: int | None | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        q = self.q

        limit: int | None | Unset
        if isinstance(self.limit, Unset):
            limit = UNSET
        else:
            limit = self.limit

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "q": q,
            }
        )
        if limit is not UNSET:
            field_dict["limit"] = limit

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        q = d.pop("q")

        def _parse_limit(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        limit = _parse_limit(d.pop("limit", UNSET))

        search_query = cls(
            q=q,
            limit=limit,
        )

        return search_query
