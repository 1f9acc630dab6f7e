from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import (
    TYPE_CHECKING,
    Any,
    Literal,
    Self,
    TypeVar,
    cast,
)
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.message_status import MessageStatus
from ..models.role import Role
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.error_detail import ErrorDetail
    from ..models.message_workflow_execution_metadata import (
        MessageWorkflowExecutionMetadata,
    )
    from ..models.workflow_execution_message import WorkflowExecutionMessage


T = TypeVar("T", bound="MessageWorkflowExecution")


@_attrs_define
class MessageWorkflowExecution:
    """A workflow run's progress.

    Attributes:
        created_at (datetime.datetime): When it was created (when it was read, when absent). Default:
            datetime.datetime.fromisoformat('1970-01-01T00:00:00Z').
        data (WorkflowExecutionMessage): One run of a workflow and how far it got.
        id (UUID): Identifies one message in a context's pool, across all of its branches.
        kind (Literal['workflow_execution']):
        metadata (MessageWorkflowExecutionMetadata): Internal notes, never sent to a model.
        role (Role): The author of a message.

            `user`, `assistant` and `tool` are stored. `system` exists only for the system prompt the
            engine builds for each request: it is never persisted, and storing it is a validation error.
            Any other role is rejected when reading, with an error that names it.
            - `user`: The person using Braid.
            - `assistant`: The model.
            - `tool`: The result of a tool call, linked to the call by its id.
            - `system`: The ephemeral system prompt: in memory only.
        schema_version (int): The version this message is written in; always the current one when Braid writes. Absent
            (with `kind`) means the current one. Default: 0.
        status (MessageStatus): Where a message stands.
            - `pending`: Created, not yet processed.
            - `processing`: Going through the pipeline (files being read, images recognized...).
            - `streaming`: Being streamed from the model.
            - `complete`: Done.
            - `failed`: Processing failed.
            - `incomplete`: Cut short (a stream interrupted, a crash mid-stream); what arrived is kept.
        updated_at (datetime.datetime): When it last changed (`created_at` when absent). Default:
            datetime.datetime.fromisoformat('1970-01-01T00:00:00Z').
        error (ErrorDetail | None | Unset): Why processing failed, for a `failed` message; absent otherwise.
    """

    data: WorkflowExecutionMessage
    id: UUID
    kind: Literal["workflow_execution"]
    metadata: MessageWorkflowExecutionMetadata
    role: Role
    status: MessageStatus
    created_at: datetime.datetime = datetime.datetime.fromisoformat(
        "1970-01-01T00:00:00Z"
    )
    schema_version: int = 0
    updated_at: datetime.datetime = datetime.datetime.fromisoformat(
        "1970-01-01T00:00:00Z"
    )
    error: ErrorDetail | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.error_detail import ErrorDetail

        created_at = self.created_at.isoformat()

        data = self.data.to_dict()

        id = str(self.id)

        kind = self.kind

        metadata = self.metadata.to_dict()

        role = self.role.value

        schema_version = self.schema_version

        status = self.status.value

        updated_at = self.updated_at.isoformat()

        error: dict[str, Any] | None | Unset
        if isinstance(self.error, Unset):
            error = UNSET
        elif isinstance(self.error, ErrorDetail):
            error = self.error.to_dict()
        else:
            error = self.error

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "created_at": created_at,
                "data": data,
                "id": id,
                "kind": kind,
                "metadata": metadata,
                "role": role,
                "schema_version": schema_version,
                "status": status,
                "updated_at": updated_at,
            }
        )
        if error is not UNSET:
            field_dict["error"] = error

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.error_detail import ErrorDetail
        from ..models.message_workflow_execution_metadata import (
            MessageWorkflowExecutionMetadata,
        )
        from ..models.workflow_execution_message import WorkflowExecutionMessage

        d = dict(src_dict)
        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))

        data = WorkflowExecutionMessage.from_dict(d.pop("data"))

        id = UUID(d.pop("id"))

        kind = cast(Literal["workflow_execution"], d.pop("kind"))
        if kind != "workflow_execution":
            raise ValueError(
                f"kind must match const 'workflow_execution', got '{kind}'"
            )

        metadata = MessageWorkflowExecutionMetadata.from_dict(d.pop("metadata"))

        role = Role(d.pop("role"))

        schema_version = d.pop("schema_version")

        status = MessageStatus(d.pop("status"))

        updated_at = datetime.datetime.fromisoformat(d.pop("updated_at"))

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

        message_workflow_execution = cls(
            created_at=created_at,
            data=data,
            id=id,
            kind=kind,
            metadata=metadata,
            role=role,
            schema_version=schema_version,
            status=status,
            updated_at=updated_at,
            error=error,
        )

        message_workflow_execution.additional_properties = d
        return message_workflow_execution

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
