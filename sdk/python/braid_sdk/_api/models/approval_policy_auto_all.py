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

T = TypeVar("T", bound="ApprovalPolicyAutoAll")


@_attrs_define
class ApprovalPolicyAutoAll:
    """Everything runs by itself (writes and commands included).

    Attributes:
        type_ (Literal['auto_all']):
    """

    type_: Literal["auto_all"]
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        type_ = self.type_

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "type": type_,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        type_ = cast(Literal["auto_all"], d.pop("type"))
        if type_ != "auto_all":
            raise ValueError(f"type must match const 'auto_all', got '{type_}'")

        approval_policy_auto_all = cls(
            type_=type_,
        )

        approval_policy_auto_all.additional_properties = d
        return approval_policy_auto_all

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
