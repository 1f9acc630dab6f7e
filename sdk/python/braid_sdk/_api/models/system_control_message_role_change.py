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

from ..models.agent_role import AgentRole

T = TypeVar("T", bound="SystemControlMessageRoleChange")


@_attrs_define
class SystemControlMessageRoleChange:
    """The agent role changed; the tools follow it from here on.

    Attributes:
        from_ (AgentRole): The agent's role, which bounds the tools it may use in any mode.
            - `planner`: Reads only.
            - `actor`: May also write files and run commands.
        to (AgentRole): The agent's role, which bounds the tools it may use in any mode.
            - `planner`: Reads only.
            - `actor`: May also write files and run commands.
        type_ (Literal['role_change']):
    """

    from_: AgentRole
    to: AgentRole
    type_: Literal["role_change"]
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
        from_ = AgentRole(d.pop("from"))

        to = AgentRole(d.pop("to"))

        type_ = cast(Literal["role_change"], d.pop("type"))
        if type_ != "role_change":
            raise ValueError(f"type must match const 'role_change', got '{type_}'")

        system_control_message_role_change = cls(
            from_=from_,
            to=to,
            type_=type_,
        )

        system_control_message_role_change.additional_properties = d
        return system_control_message_role_change

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
