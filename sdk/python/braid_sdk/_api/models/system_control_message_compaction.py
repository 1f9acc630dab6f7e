from __future__ import annotations

from collections.abc import Mapping
from typing import (
    TYPE_CHECKING,
    Any,
    Literal,
    Self,
    TypeVar,
    cast,
)

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.compaction_record import CompactionRecord


T = TypeVar("T", bound="SystemControlMessageCompaction")


@_attrs_define
class SystemControlMessageCompaction:
    """The optimizer left messages out of the request to fit the window: what, why, and what
    it cost (`CompactionRecord`).

        Attributes:
            record (CompactionRecord): One compaction: the optimizer left messages out of the request (dropped, summarized,
                or
                their output elided) that the previous request still held. Stored in the conversation as a
                `system_control` message, so no message ever leaves a request without a trace.
            type_ (Literal['compaction']):
    """

    record: CompactionRecord
    type_: Literal["compaction"]
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        record = self.record.to_dict()

        type_ = self.type_

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "record": record,
                "type": type_,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.compaction_record import CompactionRecord

        d = dict(src_dict)
        record = CompactionRecord.from_dict(d.pop("record"))

        type_ = cast(Literal["compaction"], d.pop("type"))
        if type_ != "compaction":
            raise ValueError(f"type must match const 'compaction', got '{type_}'")

        system_control_message_compaction = cls(
            record=record,
            type_=type_,
        )

        system_control_message_compaction.additional_properties = d
        return system_control_message_compaction

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
