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
    from ..models.message_system_control_metadata import MessageSystemControlMetadata
    from ..models.system_control_message_branch_merge import (
        SystemControlMessageBranchMerge,
    )
    from ..models.system_control_message_branch_switch import (
        SystemControlMessageBranchSwitch,
    )
    from ..models.system_control_message_compaction import (
        SystemControlMessageCompaction,
    )
    from ..models.system_control_message_failure_resolved import (
        SystemControlMessageFailureResolved,
    )
    from ..models.system_control_message_loop_stopped import (
        SystemControlMessageLoopStopped,
    )
    from ..models.system_control_message_mode_change import (
        SystemControlMessageModeChange,
    )
    from ..models.system_control_message_pinned_fact import (
        SystemControlMessagePinnedFact,
    )
    from ..models.system_control_message_recovered import SystemControlMessageRecovered
    from ..models.system_control_message_role_change import (
        SystemControlMessageRoleChange,
    )
    from ..models.system_control_message_summary import SystemControlMessageSummary


T = TypeVar("T", bound="MessageSystemControl")


@_attrs_define
class MessageSystemControl:
    """A notice about the conversation itself; never sent to a model.

    Attributes:
        data (SystemControlMessageBranchMerge | SystemControlMessageBranchSwitch | SystemControlMessageCompaction |
            SystemControlMessageFailureResolved | SystemControlMessageLoopStopped | SystemControlMessageModeChange |
            SystemControlMessagePinnedFact | SystemControlMessageRecovered | SystemControlMessageRoleChange |
            SystemControlMessageSummary): A control notice.
        kind (Literal['system_control']):
        role (Role): The author of a message.

            `user`, `assistant` and `tool` are stored. `system` exists only for the system prompt the
            engine builds for each request: it is never persisted, and storing it is a validation error.
            Any other role is rejected when reading, with an error that names it.
            - `user`: The person using Braid.
            - `assistant`: The model.
            - `tool`: The result of a tool call, linked to the call by its id.
            - `system`: The ephemeral system prompt: in memory only.
        created_at (datetime.datetime | Unset): When it was created (when it was read, when absent). Default:
            datetime.datetime.fromisoformat('1970-01-01T00:00:00Z').
        error (ErrorDetail | None | Unset): Why processing failed, for a `failed` message; absent otherwise.
        id (UUID | Unset): Identifies one message in a context's pool, across all of its branches.
        metadata (MessageSystemControlMetadata | Unset): Internal notes, never sent to a model.
        schema_version (int | Unset): The version this message is written in; always the current one when Braid writes.
            Absent
            (with `kind`) means the current one. Default: 0.
        status (MessageStatus | Unset): Where a message stands.
            - `pending`: Created, not yet processed.
            - `processing`: Going through the pipeline (files being read, images recognized...).
            - `streaming`: Being streamed from the model.
            - `complete`: Done.
            - `failed`: Processing failed.
            - `incomplete`: Cut short (a stream interrupted, a crash mid-stream); what arrived is kept.
        updated_at (datetime.datetime | Unset): When it last changed (`created_at` when absent). Default:
            datetime.datetime.fromisoformat('1970-01-01T00:00:00Z').
    """

    data: (
        SystemControlMessageBranchMerge
        | SystemControlMessageBranchSwitch
        | SystemControlMessageCompaction
        | SystemControlMessageFailureResolved
        | SystemControlMessageLoopStopped
        | SystemControlMessageModeChange
        | SystemControlMessagePinnedFact
        | SystemControlMessageRecovered
        | SystemControlMessageRoleChange
        | SystemControlMessageSummary
    )
    kind: Literal["system_control"]
    role: Role
    created_at: datetime.datetime | Unset = datetime.datetime.fromisoformat(
        "1970-01-01T00:00:00Z"
    )
    error: ErrorDetail | None | Unset = UNSET
    id: UUID | Unset = UNSET
    metadata: MessageSystemControlMetadata | Unset = UNSET
    schema_version: int | Unset = 0
    status: MessageStatus | Unset = UNSET
    updated_at: datetime.datetime | Unset = datetime.datetime.fromisoformat(
        "1970-01-01T00:00:00Z"
    )
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.error_detail import ErrorDetail
        from ..models.system_control_message_branch_merge import (
            SystemControlMessageBranchMerge,
        )
        from ..models.system_control_message_branch_switch import (
            SystemControlMessageBranchSwitch,
        )
        from ..models.system_control_message_compaction import (
            SystemControlMessageCompaction,
        )
        from ..models.system_control_message_failure_resolved import (
            SystemControlMessageFailureResolved,
        )
        from ..models.system_control_message_loop_stopped import (
            SystemControlMessageLoopStopped,
        )
        from ..models.system_control_message_mode_change import (
            SystemControlMessageModeChange,
        )
        from ..models.system_control_message_recovered import (
            SystemControlMessageRecovered,
        )
        from ..models.system_control_message_role_change import (
            SystemControlMessageRoleChange,
        )
        from ..models.system_control_message_summary import SystemControlMessageSummary

        data: dict[str, Any]
        if (
            isinstance(self.data, SystemControlMessageModeChange)
            or isinstance(self.data, SystemControlMessageRoleChange)
            or isinstance(self.data, SystemControlMessageBranchMerge)
            or isinstance(self.data, SystemControlMessageBranchSwitch)
            or isinstance(self.data, SystemControlMessageSummary)
            or isinstance(self.data, SystemControlMessageLoopStopped)
            or isinstance(self.data, SystemControlMessageRecovered)
            or isinstance(self.data, SystemControlMessageFailureResolved)
            or isinstance(self.data, SystemControlMessageCompaction)
        ):
            data = self.data.to_dict()
        else:
            data = self.data.to_dict()

        kind = self.kind

        role = self.role.value

        created_at: str | Unset = UNSET
        if not isinstance(self.created_at, Unset):
            created_at = self.created_at.isoformat()

        error: dict[str, Any] | None | Unset
        if isinstance(self.error, Unset):
            error = UNSET
        elif isinstance(self.error, ErrorDetail):
            error = self.error.to_dict()
        else:
            error = self.error

        id: str | Unset = UNSET
        if not isinstance(self.id, Unset):
            id = str(self.id)

        metadata: dict[str, Any] | Unset = UNSET
        if not isinstance(self.metadata, Unset):
            metadata = self.metadata.to_dict()

        schema_version = self.schema_version

        status: str | Unset = UNSET
        if not isinstance(self.status, Unset):
            status = self.status.value

        updated_at: str | Unset = UNSET
        if not isinstance(self.updated_at, Unset):
            updated_at = self.updated_at.isoformat()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "data": data,
                "kind": kind,
                "role": role,
            }
        )
        if created_at is not UNSET:
            field_dict["created_at"] = created_at
        if error is not UNSET:
            field_dict["error"] = error
        if id is not UNSET:
            field_dict["id"] = id
        if metadata is not UNSET:
            field_dict["metadata"] = metadata
        if schema_version is not UNSET:
            field_dict["schema_version"] = schema_version
        if status is not UNSET:
            field_dict["status"] = status
        if updated_at is not UNSET:
            field_dict["updated_at"] = updated_at

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.error_detail import ErrorDetail
        from ..models.message_system_control_metadata import (
            MessageSystemControlMetadata,
        )
        from ..models.system_control_message_branch_merge import (
            SystemControlMessageBranchMerge,
        )
        from ..models.system_control_message_branch_switch import (
            SystemControlMessageBranchSwitch,
        )
        from ..models.system_control_message_compaction import (
            SystemControlMessageCompaction,
        )
        from ..models.system_control_message_failure_resolved import (
            SystemControlMessageFailureResolved,
        )
        from ..models.system_control_message_loop_stopped import (
            SystemControlMessageLoopStopped,
        )
        from ..models.system_control_message_mode_change import (
            SystemControlMessageModeChange,
        )
        from ..models.system_control_message_pinned_fact import (
            SystemControlMessagePinnedFact,
        )
        from ..models.system_control_message_recovered import (
            SystemControlMessageRecovered,
        )
        from ..models.system_control_message_role_change import (
            SystemControlMessageRoleChange,
        )
        from ..models.system_control_message_summary import SystemControlMessageSummary

        d = dict(src_dict)

        def _parse_data(
            data: object,
        ) -> (
            SystemControlMessageBranchMerge
            | SystemControlMessageBranchSwitch
            | SystemControlMessageCompaction
            | SystemControlMessageFailureResolved
            | SystemControlMessageLoopStopped
            | SystemControlMessageModeChange
            | SystemControlMessagePinnedFact
            | SystemControlMessageRecovered
            | SystemControlMessageRoleChange
            | SystemControlMessageSummary
        ):
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_system_control_message_type_0 = (
                    SystemControlMessageModeChange.from_dict(data)
                )

                return componentsschemas_system_control_message_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_system_control_message_type_1 = (
                    SystemControlMessageRoleChange.from_dict(data)
                )

                return componentsschemas_system_control_message_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_system_control_message_type_2 = (
                    SystemControlMessageBranchMerge.from_dict(data)
                )

                return componentsschemas_system_control_message_type_2
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_system_control_message_type_3 = (
                    SystemControlMessageBranchSwitch.from_dict(data)
                )

                return componentsschemas_system_control_message_type_3
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_system_control_message_type_4 = (
                    SystemControlMessageSummary.from_dict(data)
                )

                return componentsschemas_system_control_message_type_4
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_system_control_message_type_5 = (
                    SystemControlMessageLoopStopped.from_dict(data)
                )

                return componentsschemas_system_control_message_type_5
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_system_control_message_type_6 = (
                    SystemControlMessageRecovered.from_dict(data)
                )

                return componentsschemas_system_control_message_type_6
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_system_control_message_type_7 = (
                    SystemControlMessageFailureResolved.from_dict(data)
                )

                return componentsschemas_system_control_message_type_7
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_system_control_message_type_8 = (
                    SystemControlMessageCompaction.from_dict(data)
                )

                return componentsschemas_system_control_message_type_8
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            if not isinstance(data, dict):
                raise TypeError()
            componentsschemas_system_control_message_type_9 = (
                SystemControlMessagePinnedFact.from_dict(data)
            )

            return componentsschemas_system_control_message_type_9

        data = _parse_data(d.pop("data"))

        kind = cast(Literal["system_control"], d.pop("kind"))
        if kind != "system_control":
            raise ValueError(f"kind must match const 'system_control', got '{kind}'")

        role = Role(d.pop("role"))

        _created_at = d.pop("created_at", UNSET)
        created_at: datetime.datetime | Unset
        if isinstance(_created_at, Unset):
            created_at = UNSET
        else:
            created_at = datetime.datetime.fromisoformat(_created_at)

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

        _id = d.pop("id", UNSET)
        id: UUID | Unset
        if isinstance(_id, Unset):
            id = UNSET
        else:
            id = UUID(_id)

        _metadata = d.pop("metadata", UNSET)
        metadata: MessageSystemControlMetadata | Unset
        if isinstance(_metadata, Unset):
            metadata = UNSET
        else:
            metadata = MessageSystemControlMetadata.from_dict(_metadata)

        schema_version = d.pop("schema_version", UNSET)

        _status = d.pop("status", UNSET)
        status: MessageStatus | Unset
        if isinstance(_status, Unset):
            status = UNSET
        else:
            status = MessageStatus(_status)

        _updated_at = d.pop("updated_at", UNSET)
        updated_at: datetime.datetime | Unset
        if isinstance(_updated_at, Unset):
            updated_at = UNSET
        else:
            updated_at = datetime.datetime.fromisoformat(_updated_at)

        message_system_control = cls(
            data=data,
            kind=kind,
            role=role,
            created_at=created_at,
            error=error,
            id=id,
            metadata=metadata,
            schema_version=schema_version,
            status=status,
            updated_at=updated_at,
        )

        message_system_control.additional_properties = d
        return message_system_control

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
