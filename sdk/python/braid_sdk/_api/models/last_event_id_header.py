from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="LastEventIdHeader")


@_attrs_define
class LastEventIdHeader:
    """The header as the document describes it.

    Attributes:
        last_event_id (int | None | Unset): The `id:` of the last event received: the stream replays what came after it.
    """

    last_event_id: int | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        last_event_id: int | None | Unset
        if isinstance(self.last_event_id, Unset):
            last_event_id = UNSET
        else:
            last_event_id = self.last_event_id

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({})
        if last_event_id is not UNSET:
            field_dict["Last-Event-ID"] = last_event_id

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)

        def _parse_last_event_id(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        last_event_id = _parse_last_event_id(d.pop("Last-Event-ID", UNSET))

        last_event_id_header = cls(
            last_event_id=last_event_id,
        )

        last_event_id_header.additional_properties = d
        return last_event_id_header

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
