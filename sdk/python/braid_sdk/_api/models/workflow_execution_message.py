from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.workflow_status import WorkflowStatus
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.error_detail import ErrorDetail


T = TypeVar("T", bound="WorkflowExecutionMessage")


@_attrs_define
class WorkflowExecutionMessage:
    """One run of a workflow and how far it got.

    Attributes:
        completed_steps (int): How many have completed. Default: 0.
        execution_id (str): This run's id.
        started_at (datetime.datetime): When the run started. Default:
            datetime.datetime.fromisoformat('1970-01-01T00:00:00Z').
        status (WorkflowStatus): Where a workflow run stands.
            - `pending`: Not started yet.
            - `running`: Running a step.
            - `paused`: Paused by the person; resumes at `current_step`.
            - `completed`: Every step completed.
            - `failed`: A step failed; `error` says why, `completed_steps` how far it got.
            - `cancelled`: Cancelled by the person.
        total_steps (int): How many steps the workflow has. Default: 0.
        updated_at (datetime.datetime): When it last changed. Default:
            datetime.datetime.fromisoformat('1970-01-01T00:00:00Z').
        workflow_name (str): The workflow's name.
        awaiting_approval (None | str | Unset): The question of the approval step the run waits on (status `paused`):
            resume goes on,
            cancel stops.
        current_step (None | str | Unset): The step running (or to run next); none once finished.
        error (ErrorDetail | None | Unset): Why it failed, when it did.
        result (Any | Unset): The final output, once completed.
    """

    execution_id: str
    status: WorkflowStatus
    workflow_name: str
    completed_steps: int = 0
    started_at: datetime.datetime = datetime.datetime.fromisoformat(
        "1970-01-01T00:00:00Z"
    )
    total_steps: int = 0
    updated_at: datetime.datetime = datetime.datetime.fromisoformat(
        "1970-01-01T00:00:00Z"
    )
    awaiting_approval: None | str | Unset = UNSET
    current_step: None | str | Unset = UNSET
    error: ErrorDetail | None | Unset = UNSET
    result: Any | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.error_detail import ErrorDetail

        completed_steps = self.completed_steps

        execution_id = self.execution_id

        started_at = self.started_at.isoformat()

        status = self.status.value

        total_steps = self.total_steps

        updated_at = self.updated_at.isoformat()

        workflow_name = self.workflow_name

        awaiting_approval: None | str | Unset
        if isinstance(self.awaiting_approval, Unset):
            awaiting_approval = UNSET
        else:
            awaiting_approval = self.awaiting_approval

        current_step: None | str | Unset
        if isinstance(self.current_step, Unset):
            current_step = UNSET
        else:
            current_step = self.current_step

        error: dict[str, Any] | None | Unset
        if isinstance(self.error, Unset):
            error = UNSET
        elif isinstance(self.error, ErrorDetail):
            error = self.error.to_dict()
        else:
            error = self.error

        result = self.result

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "completed_steps": completed_steps,
                "execution_id": execution_id,
                "started_at": started_at,
                "status": status,
                "total_steps": total_steps,
                "updated_at": updated_at,
                "workflow_name": workflow_name,
            }
        )
        if awaiting_approval is not UNSET:
            field_dict["awaiting_approval"] = awaiting_approval
        if current_step is not UNSET:
            field_dict["current_step"] = current_step
        if error is not UNSET:
            field_dict["error"] = error
        if result is not UNSET:
            field_dict["result"] = result

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.error_detail import ErrorDetail

        d = dict(src_dict)
        completed_steps = d.pop("completed_steps")

        execution_id = d.pop("execution_id")

        started_at = datetime.datetime.fromisoformat(d.pop("started_at"))

        status = WorkflowStatus(d.pop("status"))

        total_steps = d.pop("total_steps")

        updated_at = datetime.datetime.fromisoformat(d.pop("updated_at"))

        workflow_name = d.pop("workflow_name")

        def _parse_awaiting_approval(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        awaiting_approval = _parse_awaiting_approval(d.pop("awaiting_approval", UNSET))

        def _parse_current_step(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        current_step = _parse_current_step(d.pop("current_step", UNSET))

        def _parse_error(data: object) -> ErrorDetail | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                error_type_0 = ErrorDetail.from_dict(data)

                return error_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(ErrorDetail | None | Unset, data)

        error = _parse_error(d.pop("error", UNSET))

        result = d.pop("result", UNSET)

        workflow_execution_message = cls(
            completed_steps=completed_steps,
            execution_id=execution_id,
            started_at=started_at,
            status=status,
            total_steps=total_steps,
            updated_at=updated_at,
            workflow_name=workflow_name,
            awaiting_approval=awaiting_approval,
            current_step=current_step,
            error=error,
            result=result,
        )

        workflow_execution_message.additional_properties = d
        return workflow_execution_message

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
