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

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.offered_rule import OfferedRule


T = TypeVar("T", bound="ContextStateAwaitingToolApproval")


@_attrs_define
class ContextStateAwaitingToolApproval:
    """Waiting for a person to approve or deny calls.

    Attributes:
        pending_requests (list[str]): The calls waiting for a decision.
        tool_names (list[str]): Their tools' names, in the same order.
        type_ (Literal['awaiting_tool_approval']):
        offered_rules (list[OfferedRule] | Unset): The command rule "approve for this session" would add, for each
            waiting
            `run_command` call a rule can describe (`cargo test` for `cargo test -q`).
    """

    pending_requests: list[str]
    tool_names: list[str]
    type_: Literal["awaiting_tool_approval"]
    offered_rules: list[OfferedRule] | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        pending_requests = self.pending_requests

        tool_names = self.tool_names

        type_ = self.type_

        offered_rules: list[dict[str, Any]] | Unset = UNSET
        if not isinstance(self.offered_rules, Unset):
            offered_rules = []
            for offered_rules_item_data in self.offered_rules:
                offered_rules_item = offered_rules_item_data.to_dict()
                offered_rules.append(offered_rules_item)

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "pending_requests": pending_requests,
                "tool_names": tool_names,
                "type": type_,
            }
        )
        if offered_rules is not UNSET:
            field_dict["offered_rules"] = offered_rules

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.offered_rule import OfferedRule

        d = dict(src_dict)
        pending_requests = cast(list[str], d.pop("pending_requests"))

        tool_names = cast(list[str], d.pop("tool_names"))

        type_ = cast(Literal["awaiting_tool_approval"], d.pop("type"))
        if type_ != "awaiting_tool_approval":
            raise ValueError(
                f"type must match const 'awaiting_tool_approval', got '{type_}'"
            )

        _offered_rules = d.pop("offered_rules", UNSET)
        offered_rules: list[OfferedRule] | Unset = UNSET
        if _offered_rules is not UNSET:
            offered_rules = []
            for offered_rules_item_data in _offered_rules:
                offered_rules_item = OfferedRule.from_dict(offered_rules_item_data)

                offered_rules.append(offered_rules_item)

        context_state_awaiting_tool_approval = cls(
            pending_requests=pending_requests,
            tool_names=tool_names,
            type_=type_,
            offered_rules=offered_rules,
        )

        context_state_awaiting_tool_approval.additional_properties = d
        return context_state_awaiting_tool_approval

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
