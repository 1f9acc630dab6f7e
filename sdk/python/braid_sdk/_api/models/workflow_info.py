from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.workflow_origin import WorkflowOrigin

if TYPE_CHECKING:
    from ..models.problem import Problem
    from ..models.workflow_step_info import WorkflowStepInfo


T = TypeVar("T", bound="WorkflowInfo")


@_attrs_define
class WorkflowInfo:
    """A definition as `GET /v1/workflows` lists it. One that does not parse or validate is listed
    too, with `errors` naming its file's fields, and cannot run.

        Attributes:
            description (str): What it is for. Default: ''.
            errors (list[Problem]): What is wrong with the file, field by field; empty when it can run.
            name (str): Its name (the file's `name`, or the file name when that is unreadable).
            origin (WorkflowOrigin): Where a definition was found.
                - `workspace`: `<workspace>/.braid/workflows/`: shared with the project; wins on a name clash.
                - `user`: `<data dir>/workflows/`: the person's own.
            parameters (Any): JSON Schema of its parameters (an object schema; `{}` when it takes none).
            source (str): The file it was read from.
            steps (list[WorkflowStepInfo]): Its steps, in order.
    """

    errors: list[Problem]
    name: str
    origin: WorkflowOrigin
    parameters: Any
    source: str
    steps: list[WorkflowStepInfo]
    description: str = ""
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        description = self.description

        errors = []
        for errors_item_data in self.errors:
            errors_item = errors_item_data.to_dict()
            errors.append(errors_item)

        name = self.name

        origin = self.origin.value

        parameters = self.parameters

        source = self.source

        steps = []
        for steps_item_data in self.steps:
            steps_item = steps_item_data.to_dict()
            steps.append(steps_item)

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "description": description,
                "errors": errors,
                "name": name,
                "origin": origin,
                "parameters": parameters,
                "source": source,
                "steps": steps,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.problem import Problem
        from ..models.workflow_step_info import WorkflowStepInfo

        d = dict(src_dict)
        description = d.pop("description")

        errors = []
        _errors = d.pop("errors")
        for errors_item_data in _errors:
            errors_item = Problem.from_dict(errors_item_data)

            errors.append(errors_item)

        name = d.pop("name")

        origin = WorkflowOrigin(d.pop("origin"))

        parameters = d.pop("parameters")

        source = d.pop("source")

        steps = []
        _steps = d.pop("steps")
        for steps_item_data in _steps:
            steps_item = WorkflowStepInfo.from_dict(steps_item_data)

            steps.append(steps_item)

        workflow_info = cls(
            description=description,
            errors=errors,
            name=name,
            origin=origin,
            parameters=parameters,
            source=source,
            steps=steps,
        )

        workflow_info.additional_properties = d
        return workflow_info

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
