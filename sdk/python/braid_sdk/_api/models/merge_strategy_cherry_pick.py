from __future__ import annotations

from collections.abc import Mapping
from typing import (
    Any,
    Literal,
    Self,
    TypeVar,
    cast,
)
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="MergeStrategyCherryPick")


@_attrs_define
class MergeStrategyCherryPick:
    """Copy only the chosen messages, in the source's order, checking what they depend on.

    Attributes:
        message_ids (list[UUID]): The messages to copy; each must be on the source branch.
        type_ (Literal['cherry_pick']):
    """

    message_ids: list[UUID]
    type_: Literal["cherry_pick"]
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        message_ids = []
        for message_ids_item_data in self.message_ids:
            message_ids_item = str(message_ids_item_data)
            message_ids.append(message_ids_item)

        type_ = self.type_

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "message_ids": message_ids,
                "type": type_,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        message_ids = []
        _message_ids = d.pop("message_ids")
        for message_ids_item_data in _message_ids:
            message_ids_item = UUID(message_ids_item_data)

            message_ids.append(message_ids_item)

        type_ = cast(Literal["cherry_pick"], d.pop("type"))
        if type_ != "cherry_pick":
            raise ValueError(f"type must match const 'cherry_pick', got '{type_}'")

        merge_strategy_cherry_pick = cls(
            message_ids=message_ids,
            type_=type_,
        )

        merge_strategy_cherry_pick.additional_properties = d
        return merge_strategy_cherry_pick

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
