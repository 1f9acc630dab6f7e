from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.file_reference_payload import FileReferencePayload
    from ..models.image_payload import ImagePayload
    from ..models.mcp_resource_payload import McpResourcePayload
    from ..models.question_answer_payload import QuestionAnswerPayload
    from ..models.send_message_request_client_metadata_type_0 import (
        SendMessageRequestClientMetadataType0,
    )
    from ..models.text_payload import TextPayload
    from ..models.tool_result_payload import ToolResultPayload
    from ..models.workflow_payload import WorkflowPayload


T = TypeVar("T", bound="SendMessageRequest")


@_attrs_define
class SendMessageRequest:
    """A request to add a message to a context.

    Attributes:
        payload (FileReferencePayload | ImagePayload | McpResourcePayload | QuestionAnswerPayload | TextPayload |
            ToolResultPayload | WorkflowPayload): The payload variants, tagged by `type`.
        client_metadata (None | SendMessageRequestClientMetadataType0 | Unset): The client's own data, kept with the
            message and returned unchanged.
    """

    payload: (
        FileReferencePayload
        | ImagePayload
        | McpResourcePayload
        | QuestionAnswerPayload
        | TextPayload
        | ToolResultPayload
        | WorkflowPayload
    )
    client_metadata: None | SendMessageRequestClientMetadataType0 | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.file_reference_payload import FileReferencePayload
        from ..models.image_payload import ImagePayload
        from ..models.question_answer_payload import QuestionAnswerPayload
        from ..models.send_message_request_client_metadata_type_0 import (
            SendMessageRequestClientMetadataType0,
        )
        from ..models.text_payload import TextPayload
        from ..models.tool_result_payload import ToolResultPayload
        from ..models.workflow_payload import WorkflowPayload

        payload: dict[str, Any]
        if (
            isinstance(self.payload, TextPayload)
            or isinstance(self.payload, FileReferencePayload)
            or isinstance(self.payload, ImagePayload)
            or isinstance(self.payload, WorkflowPayload)
            or isinstance(self.payload, ToolResultPayload)
            or isinstance(self.payload, QuestionAnswerPayload)
        ):
            payload = self.payload.to_dict()
        else:
            payload = self.payload.to_dict()

        client_metadata: dict[str, Any] | None | Unset
        if isinstance(self.client_metadata, Unset):
            client_metadata = UNSET
        elif isinstance(self.client_metadata, SendMessageRequestClientMetadataType0):
            client_metadata = self.client_metadata.to_dict()
        else:
            client_metadata = self.client_metadata

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "payload": payload,
            }
        )
        if client_metadata is not UNSET:
            field_dict["client_metadata"] = client_metadata

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.file_reference_payload import FileReferencePayload
        from ..models.image_payload import ImagePayload
        from ..models.mcp_resource_payload import McpResourcePayload
        from ..models.question_answer_payload import QuestionAnswerPayload
        from ..models.send_message_request_client_metadata_type_0 import (
            SendMessageRequestClientMetadataType0,
        )
        from ..models.text_payload import TextPayload
        from ..models.tool_result_payload import ToolResultPayload
        from ..models.workflow_payload import WorkflowPayload

        d = dict(src_dict)

        def _parse_payload(
            data: object,
        ) -> (
            FileReferencePayload
            | ImagePayload
            | McpResourcePayload
            | QuestionAnswerPayload
            | TextPayload
            | ToolResultPayload
            | WorkflowPayload
        ):
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_message_payload_type_0 = TextPayload.from_dict(data)

                return componentsschemas_message_payload_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_message_payload_type_1 = (
                    FileReferencePayload.from_dict(data)
                )

                return componentsschemas_message_payload_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_message_payload_type_2 = ImagePayload.from_dict(data)

                return componentsschemas_message_payload_type_2
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_message_payload_type_3 = WorkflowPayload.from_dict(
                    data
                )

                return componentsschemas_message_payload_type_3
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_message_payload_type_4 = ToolResultPayload.from_dict(
                    data
                )

                return componentsschemas_message_payload_type_4
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_message_payload_type_5 = (
                    QuestionAnswerPayload.from_dict(data)
                )

                return componentsschemas_message_payload_type_5
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            if not isinstance(data, dict):
                raise TypeError()
            componentsschemas_message_payload_type_6 = McpResourcePayload.from_dict(
                data
            )

            return componentsschemas_message_payload_type_6

        payload = _parse_payload(d.pop("payload"))

        def _parse_client_metadata(
            data: object,
        ) -> None | SendMessageRequestClientMetadataType0 | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                client_metadata_type_0 = (
                    SendMessageRequestClientMetadataType0.from_dict(data)
                )

                return client_metadata_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | SendMessageRequestClientMetadataType0 | Unset, data)

        client_metadata = _parse_client_metadata(d.pop("client_metadata", UNSET))

        send_message_request = cls(
            payload=payload,
            client_metadata=client_metadata,
        )

        send_message_request.additional_properties = d
        return send_message_request

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
