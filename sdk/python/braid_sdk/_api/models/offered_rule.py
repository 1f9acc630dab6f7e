from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.command_rule import CommandRule


T = TypeVar("T", bound="OfferedRule")


@_attrs_define
class OfferedRule:
    """The command rule "approve for this session" on one waiting call would add.

    Attributes:
        call_id (str): The id a model gave one of its tool calls (`call_abc` for OpenAI, `toolu_...` for
            Anthropic). Kept exactly as the provider sent it, because results must echo it back.
        rule (CommandRule): A command that runs without asking under every approval policy: `program` with arguments
            that start with `args_prefix`, compared on the parsed program and arguments (never on a
            command line string). `{ "program": "cargo", "args_prefix": ["test"] }` allows
            `cargo test --release` but not `cargo publish`, `./cargo test` or `sh -c "cargo test"`.
    """

    call_id: str
    rule: CommandRule
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        call_id = self.call_id

        rule = self.rule.to_dict()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "call_id": call_id,
                "rule": rule,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.command_rule import CommandRule

        d = dict(src_dict)
        call_id = d.pop("call_id")

        rule = CommandRule.from_dict(d.pop("rule"))

        offered_rule = cls(
            call_id=call_id,
            rule=rule,
        )

        offered_rule.additional_properties = d
        return offered_rule

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
