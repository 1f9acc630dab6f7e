from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="MergedSummary")


@_attrs_define
class MergedSummary:
    """What a summary merge brings back (or would, in a dry run).

    Attributes:
        count (int): How many messages it stands for.
        from_ (UUID): Identifies one message in a context's pool, across all of its branches.
        ledger (str): The ledger of the summarized messages (paths, commands, errors), appended verbatim.
        text (str): The summary: the model's, or the person's edit.
        to (UUID): Identifies one message in a context's pool, across all of its branches.
    """

    count: int
    from_: UUID
    ledger: str
    text: str
    to: UUID
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        count = self.count

        from_ = str(self.from_)

        ledger = self.ledger

        text = self.text

        to = str(self.to)

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "count": count,
                "from": from_,
                "ledger": ledger,
                "text": text,
                "to": to,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        count = d.pop("count")

        from_ = UUID(d.pop("from"))

        ledger = d.pop("ledger")

        text = d.pop("text")

        to = UUID(d.pop("to"))

        merged_summary = cls(
            count=count,
            from_=from_,
            ledger=ledger,
            text=text,
            to=to,
        )

        merged_summary.additional_properties = d
        return merged_summary

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
