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

from ..models.mode import Mode

T = TypeVar("T", bound="SystemControlMessageModeChange")


@_attrs_define
class SystemControlMessageModeChange:
    """The mode changed; the system prompt follows it from here on.

    Attributes:
        from_ (Mode): Plan or act: what the agent is allowed to do right now.
            - `plan`: Read-only tools and planning instructions: the agent proposes, the person decides.
            - `act`: Every tool the role allows.
        to (Mode): Plan or act: what the agent is allowed to do right now.
            - `plan`: Read-only tools and planning instructions: the agent proposes, the person decides.
            - `act`: Every tool the role allows.
        type_ (Literal['mode_change']):
    """

    from_: Mode
    to: Mode
    type_: Literal["mode_change"]
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from_ = self.from_.value

        to = self.to.value

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
        from_ = Mode(d.pop("from"))

        to = Mode(d.pop("to"))

        type_ = cast(Literal["mode_change"], d.pop("type"))
        if type_ != "mode_change":
            raise ValueError(f"type must match const 'mode_change', got '{type_}'")

        system_control_message_mode_change = cls(
            from_=from_,
            to=to,
            type_=type_,
        )

        system_control_message_mode_change.additional_properties = d
        return system_control_message_mode_change

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
