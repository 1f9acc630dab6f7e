from __future__ import annotations

from collections.abc import Mapping
from typing import (
    Any,
    Literal,
    Self,
    TypeVar,
    cast,
)

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="MergeStrategySummary")


@_attrs_define
class MergeStrategySummary:
    """Bring the source's conclusions back as one marked message: its messages since the
    common ancestor summarized by the model, with the ledger of their paths and commands
    appended verbatim, naming the branch and the range it stands for. A dry run shows the
    summary; sending it back as `text` stores the person's edit without asking again.

        Attributes:
            type_ (Literal['summary']):
            text (None | str | Unset): The summary to store (the dry run's, as the person edited it); absent: the model
                writes it.
    """

    type_: Literal["summary"]
    text: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        type_ = self.type_

        text: None | str | Unset
        if isinstance(self.text, Unset):
            text = UNSET
        else:
            text = self.text

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "type": type_,
            }
        )
        if text is not UNSET:
            field_dict["text"] = text

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        type_ = cast(Literal["summary"], d.pop("type"))
        if type_ != "summary":
            raise ValueError(f"type must match const 'summary', got '{type_}'")

        def _parse_text(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        text = _parse_text(d.pop("text", UNSET))

        merge_strategy_summary = cls(
            type_=type_,
            text=text,
        )

        merge_strategy_summary.additional_properties = d
        return merge_strategy_summary

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
