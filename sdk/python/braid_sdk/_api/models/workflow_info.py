from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.workflow_origin import WorkflowOrigin
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.problem import Problem
    from ..models.workflow_step_info import WorkflowStepInfo


T = TypeVar("T", bound="WorkflowInfo")


@_attrs_define
class WorkflowInfo:
    """A definition as `GET /v1/workflows` lists it. One that does not parse or validate is listed
    too, with `errors` naming its file's fields, and cannot run.

        Attributes:
            name (str): Its name (the file's `name`, or the file name when that is unreadable).
            origin (WorkflowOrigin): Where a definition was found.
                - `workspace`: `<workspace>/.braid/workflows/`: shared with the project; wins on a name clash.
                - `user`: `<data dir>/workflows/`: the person's own.
            parameters (Any): JSON Schema of its parameters (an object schema; `{}` when it takes none).
            source (str): The file it was read from.
            description (str | Unset): What it is for. Default: ''.
            errors (list[Problem] | Unset): What is wrong with the file, field by field; empty when it can run.
            steps (list[WorkflowStepInfo] | Unset): Its steps, in order.
    """

    name: str
    origin: WorkflowOrigin
    parameters: Any
    source: str
    description: str | Unset = ""
    errors: list[Problem] | Unset = UNSET
    steps: list[WorkflowStepInfo] | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        name = self.name

        origin = self.origin.value

        parameters = self.parameters

        source = self.source

        description = self.description

        errors: list[dict[str, Any]] | Unset = UNSET
        if not isinstance(self.errors, Unset):
            errors = []
            for errors_item_data in self.errors:
                errors_item = errors_item_data.to_dict()
                errors.append(errors_item)

        steps: list[dict[str, Any]] | Unset = UNSET
        if not isinstance(self.steps, Unset):
            steps = []
            for steps_item_data in self.steps:
                steps_item = steps_item_data.to_dict()
                steps.append(steps_item)

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "name": name,
                "origin": origin,
                "parameters": parameters,
                "source": source,
            }
        )
        if description is not UNSET:
            field_dict["description"] = description
        if errors is not UNSET:
            field_dict["errors"] = errors
        if steps is not UNSET:
            field_dict["steps"] = steps

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.problem import Problem
        from ..models.workflow_step_info import WorkflowStepInfo

        d = dict(src_dict)
        name = d.pop("name")

        origin = WorkflowOrigin(d.pop("origin"))

        parameters = d.pop("parameters")

        source = d.pop("source")

        description = d.pop("description", UNSET)

        _errors = d.pop("errors", UNSET)
        errors: list[Problem] | Unset = UNSET
        if _errors is not UNSET:
            errors = []
            for errors_item_data in _errors:
                errors_item = Problem.from_dict(errors_item_data)

                errors.append(errors_item)

        _steps = d.pop("steps", UNSET)
        steps: list[WorkflowStepInfo] | Unset = UNSET
        if _steps is not UNSET:
            steps = []
            for steps_item_data in _steps:
                steps_item = WorkflowStepInfo.from_dict(steps_item_data)

                steps.append(steps_item)

        workflow_info = cls(
            name=name,
            origin=origin,
            parameters=parameters,
            source=source,
            description=description,
            errors=errors,
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
