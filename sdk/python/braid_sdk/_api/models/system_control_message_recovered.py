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

T = TypeVar("T", bound="SystemControlMessageRecovered")


@_attrs_define
class SystemControlMessageRecovered:
    """The context was found mid-operation after a restart and moved to a safe state.

    Attributes:
        detail (str): What was done about it.
        interrupted_state (str): The state that was interrupted (its `type`).
        type_ (Literal['recovered']):
    """

    detail: str
    interrupted_state: str
    type_: Literal["recovered"]
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        detail = self.detail

        interrupted_state = self.interrupted_state

        type_ = self.type_

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "detail": detail,
                "interrupted_state": interrupted_state,
                "type": type_,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        detail = d.pop("detail")

        interrupted_state = d.pop("interrupted_state")

        type_ = cast(Literal["recovered"], d.pop("type"))
        if type_ != "recovered":
            raise ValueError(f"type must match const 'recovered', got '{type_}'")

        system_control_message_recovered = cls(
            detail=detail,
            interrupted_state=interrupted_state,
            type_=type_,
        )

        system_control_message_recovered.additional_properties = d
        return system_control_message_recovered

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
