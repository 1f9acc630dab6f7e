from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="PlanStep")


@_attrs_define
class PlanStep:
    """One step of a plan.

    Attributes:
        action (str): What will be done.
        reason (str): Why.
        step_number (int): Its position, from 1.
        estimated_time (None | str | Unset): A rough duration, as the agent wrote it (`5 minutes`).
        risks (list[str] | None | str | Unset): What could go wrong. A single string is accepted for one risk.
        tools_needed (list[str] | None | str | Unset): Tools the step will use. A single string is accepted for one
            tool.
    """

    action: str
    reason: str
    step_number: int
    estimated_time: None | str | Unset = UNSET
    risks: list[str] | None | str | Unset = UNSET
    tools_needed: list[str] | None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        action = self.action

        reason = self.reason

        step_number = self.step_number

        estimated_time: None | str | Unset
        if isinstance(self.estimated_time, Unset):
            estimated_time = UNSET
        else:
            estimated_time = self.estimated_time

        risks: list[str] | None | str | Unset
        if isinstance(self.risks, Unset):
            risks = UNSET
        elif isinstance(self.risks, list):
            risks = self.risks

        else:
            risks = self.risks

        tools_needed: list[str] | None | str | Unset
        if isinstance(self.tools_needed, Unset):
            tools_needed = UNSET
        elif isinstance(self.tools_needed, list):
            tools_needed = self.tools_needed

        else:
            tools_needed = self.tools_needed

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "action": action,
                "reason": reason,
                "step_number": step_number,
            }
        )
        if estimated_time is not UNSET:
            field_dict["estimated_time"] = estimated_time
        if risks is not UNSET:
            field_dict["risks"] = risks
        if tools_needed is not UNSET:
            field_dict["tools_needed"] = tools_needed

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        action = d.pop("action")

        reason = d.pop("reason")

        step_number = d.pop("step_number")

        def _parse_estimated_time(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        estimated_time = _parse_estimated_time(d.pop("estimated_time", UNSET))

        def _parse_risks(data: object) -> list[str] | None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                risks_type_0 = cast(list[str], data)

                return risks_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[str] | None | str | Unset, data)

        risks = _parse_risks(d.pop("risks", UNSET))

        def _parse_tools_needed(data: object) -> list[str] | None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                tools_needed_type_0 = cast(list[str], data)

                return tools_needed_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[str] | None | str | Unset, data)

        tools_needed = _parse_tools_needed(d.pop("tools_needed", UNSET))

        plan_step = cls(
            action=action,
            reason=reason,
            step_number=step_number,
            estimated_time=estimated_time,
            risks=risks,
            tools_needed=tools_needed,
        )

        plan_step.additional_properties = d
        return plan_step

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
