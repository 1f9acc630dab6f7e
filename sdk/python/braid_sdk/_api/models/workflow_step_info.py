from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.workflow_step_type import WorkflowStepType

T = TypeVar("T", bound="WorkflowStepInfo")


@_attrs_define
class WorkflowStepInfo:
    """One step of a definition, as listed.

    Attributes:
        name (str): The step's name (templates refer to it as `steps.<name>.output`).
        type_ (WorkflowStepType): What a step does.
            - `tool`: Calls a tool (built in or `mcp__server__tool`) under the approval policy.
            - `prompt`: Asks the model once; its streamed answer is the step's output.
            - `approval`: Waits for the person to continue (resume) or stop (cancel).
    """

    name: str
    type_: WorkflowStepType
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        name = self.name

        type_ = self.type_.value

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "name": name,
                "type": type_,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        name = d.pop("name")

        type_ = WorkflowStepType(d.pop("type"))

        workflow_step_info = cls(
            name=name,
            type_=type_,
        )

        workflow_step_info.additional_properties = d
        return workflow_step_info

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
