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

T = TypeVar("T", bound="SystemControlMessageBranchSwitch")


@_attrs_define
class SystemControlMessageBranchSwitch:
    """The active branch changed. No longer written (a switch is not part of the
    conversation); kept so that lines stored by earlier versions still read.

        Attributes:
            from_ (str): The name of a branch within a context, unique in that context (`main` by default).
            to (str): The name of a branch within a context, unique in that context (`main` by default).
            type_ (Literal['branch_switch']):
    """

    from_: str
    to: str
    type_: Literal["branch_switch"]
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from_ = self.from_

        to = self.to

        type_ = self.type_

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "from": from_,
                "to": to,
                "type": type_,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        from_ = d.pop("from")

        to = d.pop("to")

        type_ = cast(Literal["branch_switch"], d.pop("type"))
        if type_ != "branch_switch":
            raise ValueError(f"type must match const 'branch_switch', got '{type_}'")

        system_control_message_branch_switch = cls(
            from_=from_,
            to=to,
            type_=type_,
        )

        system_control_message_branch_switch.additional_properties = d
        return system_control_message_branch_switch

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
