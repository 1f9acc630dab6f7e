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

T = TypeVar("T", bound="ContextStateExecutingWorkflow")


@_attrs_define
class ContextStateExecutingWorkflow:
    """Running a workflow step.

    Attributes:
        execution_id (str): The run.
        step (int): The step running, from 1.
        total (int): Steps in all.
        type_ (Literal['executing_workflow']):
        workflow_name (str): The workflow.
    """

    execution_id: str
    step: int
    total: int
    type_: Literal["executing_workflow"]
    workflow_name: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        execution_id = self.execution_id

        step = self.step

        total = self.total

        type_ = self.type_

        workflow_name = self.workflow_name

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "execution_id": execution_id,
                "step": step,
                "total": total,
                "type": type_,
                "workflow_name": workflow_name,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        execution_id = d.pop("execution_id")

        step = d.pop("step")

        total = d.pop("total")

        type_ = cast(Literal["executing_workflow"], d.pop("type"))
        if type_ != "executing_workflow":
            raise ValueError(
                f"type must match const 'executing_workflow', got '{type_}'"
            )

        workflow_name = d.pop("workflow_name")

        context_state_executing_workflow = cls(
            execution_id=execution_id,
            step=step,
            total=total,
            type_=type_,
            workflow_name=workflow_name,
        )

        context_state_executing_workflow.additional_properties = d
        return context_state_executing_workflow

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
