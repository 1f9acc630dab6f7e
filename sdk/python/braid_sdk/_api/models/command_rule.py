from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define

from ..models.rule_origin import RuleOrigin
from ..types import UNSET, Unset

T = TypeVar("T", bound="CommandRule")


@_attrs_define
class CommandRule:
    """A command that runs without asking under every approval policy: `program` with arguments
    that start with `args_prefix`, compared on the parsed program and arguments (never on a
    command line string). `{ "program": "cargo", "args_prefix": ["test"] }` allows
    `cargo test --release` but not `cargo publish`, `./cargo test` or `sh -c "cargo test"`.

        Attributes:
            program (str): The program exactly as the call names it: a bare name (`cargo`, looked up in PATH) or,
                to allow one binary, its absolute path.
            args_prefix (list[str] | Unset): The arguments the call's arguments must start with, compared one by one and
                exactly.
            origin (RuleOrigin | Unset): Where a command rule came from.
                - `configuration`: Written in the context's configuration (or its API call).
                - `session_approval`: Added by a person's "approve for this session" on a command.
    """

    program: str
    args_prefix: list[str] | Unset = UNSET
    origin: RuleOrigin | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        program = self.program

        args_prefix: list[str] | Unset = UNSET
        if not isinstance(self.args_prefix, Unset):
            args_prefix = self.args_prefix

        origin: str | Unset = UNSET
        if not isinstance(self.origin, Unset):
            origin = self.origin.value

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "program": program,
            }
        )
        if args_prefix is not UNSET:
            field_dict["args_prefix"] = args_prefix
        if origin is not UNSET:
            field_dict["origin"] = origin

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        program = d.pop("program")

        args_prefix = cast(list[str], d.pop("args_prefix", UNSET))

        _origin = d.pop("origin", UNSET)
        origin: RuleOrigin | Unset
        if isinstance(_origin, Unset):
            origin = UNSET
        else:
            origin = RuleOrigin(_origin)

        command_rule = cls(
            program=program,
            args_prefix=args_prefix,
            origin=origin,
        )

        return command_rule
