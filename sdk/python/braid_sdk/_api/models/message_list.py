from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.message_file_reference import MessageFileReference
    from ..models.message_image import MessageImage
    from ..models.message_mcp_resource import MessageMcpResource
    from ..models.message_mcp_tool_request import MessageMcpToolRequest
    from ..models.message_mcp_tool_result import MessageMcpToolResult
    from ..models.message_plan import MessagePlan
    from ..models.message_processing import MessageProcessing
    from ..models.message_project_structure import MessageProjectStructure
    from ..models.message_question import MessageQuestion
    from ..models.message_system_control import MessageSystemControl
    from ..models.message_text import MessageText
    from ..models.message_tool_request import MessageToolRequest
    from ..models.message_tool_result import MessageToolResult
    from ..models.message_workflow_execution import MessageWorkflowExecution
    from ..models.view_marker import ViewMarker


T = TypeVar("T", bound="MessageList")


@_attrs_define
class MessageList:
    """`GET /v1/contexts/{id}/messages`.

    Attributes:
        messages (list[MessageFileReference | MessageImage | MessageMcpResource | MessageMcpToolRequest |
            MessageMcpToolResult | MessagePlan | MessageProcessing | MessageProjectStructure | MessageQuestion |
            MessageSystemControl | MessageText | MessageToolRequest | MessageToolResult | MessageWorkflowExecution]): The
            messages, oldest first.
        markers (list[ViewMarker] | Unset): `view=optimized` only: where the request leaves messages out (dropped to fit
            the
            window, or summarized), each standing before the listed message it precedes. A page
            carries the markers that stand before its messages, and the last page also those at
            the end; a listing filtered by `kind` carries none.
        next_after (None | Unset | UUID): Pass as `after` to get the next page; absent on the last page.
        next_before (None | Unset | UUID): Pass as `before` to get the page of older messages; absent when none are
            older (and on
            pages read with `after`).
    """

    messages: list[
        MessageFileReference
        | MessageImage
        | MessageMcpResource
        | MessageMcpToolRequest
        | MessageMcpToolResult
        | MessagePlan
        | MessageProcessing
        | MessageProjectStructure
        | MessageQuestion
        | MessageSystemControl
        | MessageText
        | MessageToolRequest
        | MessageToolResult
        | MessageWorkflowExecution
    ]
    markers: list[ViewMarker] | Unset = UNSET
    next_after: None | Unset | UUID = UNSET
    next_before: None | Unset | UUID = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.message_file_reference import MessageFileReference
        from ..models.message_image import MessageImage
        from ..models.message_mcp_resource import MessageMcpResource
        from ..models.message_mcp_tool_request import MessageMcpToolRequest
        from ..models.message_mcp_tool_result import MessageMcpToolResult
        from ..models.message_plan import MessagePlan
        from ..models.message_processing import MessageProcessing
        from ..models.message_project_structure import MessageProjectStructure
        from ..models.message_system_control import MessageSystemControl
        from ..models.message_text import MessageText
        from ..models.message_tool_request import MessageToolRequest
        from ..models.message_tool_result import MessageToolResult
        from ..models.message_workflow_execution import MessageWorkflowExecution

        messages = []
        for messages_item_data in self.messages:
            messages_item: dict[str, Any]
            if (
                isinstance(messages_item_data, MessageText)
                or isinstance(messages_item_data, MessageImage)
                or isinstance(messages_item_data, MessageFileReference)
                or isinstance(messages_item_data, MessageProjectStructure)
                or isinstance(messages_item_data, MessageToolRequest)
                or isinstance(messages_item_data, MessageToolResult)
                or isinstance(messages_item_data, MessageMcpToolRequest)
                or isinstance(messages_item_data, MessageMcpToolResult)
                or isinstance(messages_item_data, MessageMcpResource)
                or isinstance(messages_item_data, MessageWorkflowExecution)
                or isinstance(messages_item_data, MessageSystemControl)
                or isinstance(messages_item_data, MessageProcessing)
                or isinstance(messages_item_data, MessagePlan)
            ):
                messages_item = messages_item_data.to_dict()
            else:
                messages_item = messages_item_data.to_dict()

            messages.append(messages_item)

        markers: list[dict[str, Any]] | Unset = UNSET
        if not isinstance(self.markers, Unset):
            markers = []
            for markers_item_data in self.markers:
                markers_item = markers_item_data.to_dict()
                markers.append(markers_item)

        next_after: None | str | Unset
        if isinstance(self.next_after, Unset):
            next_after = UNSET
        elif isinstance(self.next_after, UUID):
            next_after = str(self.next_after)
        else:
            next_after = self.next_after

        next_before: None | str | Unset
        if isinstance(self.next_before, Unset):
            next_before = UNSET
        elif isinstance(self.next_before, UUID):
            next_before = str(self.next_before)
        else:
            next_before = self.next_before

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "messages": messages,
            }
        )
        if markers is not UNSET:
            field_dict["markers"] = markers
        if next_after is not UNSET:
            field_dict["next_after"] = next_after
        if next_before is not UNSET:
            field_dict["next_before"] = next_before

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.message_file_reference import MessageFileReference
        from ..models.message_image import MessageImage
        from ..models.message_mcp_resource import MessageMcpResource
        from ..models.message_mcp_tool_request import MessageMcpToolRequest
        from ..models.message_mcp_tool_result import MessageMcpToolResult
        from ..models.message_plan import MessagePlan
        from ..models.message_processing import MessageProcessing
        from ..models.message_project_structure import MessageProjectStructure
        from ..models.message_question import MessageQuestion
        from ..models.message_system_control import MessageSystemControl
        from ..models.message_text import MessageText
        from ..models.message_tool_request import MessageToolRequest
        from ..models.message_tool_result import MessageToolResult
        from ..models.message_workflow_execution import MessageWorkflowExecution
        from ..models.view_marker import ViewMarker

        d = dict(src_dict)
        messages = []
        _messages = d.pop("messages")
        for messages_item_data in _messages:

            def _parse_messages_item(
                data: object,
            ) -> (
                MessageFileReference
                | MessageImage
                | MessageMcpResource
                | MessageMcpToolRequest
                | MessageMcpToolResult
                | MessagePlan
                | MessageProcessing
                | MessageProjectStructure
                | MessageQuestion
                | MessageSystemControl
                | MessageText
                | MessageToolRequest
                | MessageToolResult
                | MessageWorkflowExecution
            ):
                try:
                    if not isinstance(data, dict):
                        raise TypeError()
                    componentsschemas_message_type_0 = MessageText.from_dict(data)

                    return componentsschemas_message_type_0
                except (TypeError, ValueError, AttributeError, KeyError):
                    pass
                try:
                    if not isinstance(data, dict):
                        raise TypeError()
                    componentsschemas_message_type_1 = MessageImage.from_dict(data)

                    return componentsschemas_message_type_1
                except (TypeError, ValueError, AttributeError, KeyError):
                    pass
                try:
                    if not isinstance(data, dict):
                        raise TypeError()
                    componentsschemas_message_type_2 = MessageFileReference.from_dict(
                        data
                    )

                    return componentsschemas_message_type_2
                except (TypeError, ValueError, AttributeError, KeyError):
                    pass
                try:
                    if not isinstance(data, dict):
                        raise TypeError()
                    componentsschemas_message_type_3 = (
                        MessageProjectStructure.from_dict(data)
                    )

                    return componentsschemas_message_type_3
                except (TypeError, ValueError, AttributeError, KeyError):
                    pass
                try:
                    if not isinstance(data, dict):
                        raise TypeError()
                    componentsschemas_message_type_4 = MessageToolRequest.from_dict(
                        data
                    )

                    return componentsschemas_message_type_4
                except (TypeError, ValueError, AttributeError, KeyError):
                    pass
                try:
                    if not isinstance(data, dict):
                        raise TypeError()
                    componentsschemas_message_type_5 = MessageToolResult.from_dict(data)

                    return componentsschemas_message_type_5
                except (TypeError, ValueError, AttributeError, KeyError):
                    pass
                try:
                    if not isinstance(data, dict):
                        raise TypeError()
                    componentsschemas_message_type_6 = MessageMcpToolRequest.from_dict(
                        data
                    )

                    return componentsschemas_message_type_6
                except (TypeError, ValueError, AttributeError, KeyError):
                    pass
                try:
                    if not isinstance(data, dict):
                        raise TypeError()
                    componentsschemas_message_type_7 = MessageMcpToolResult.from_dict(
                        data
                    )

                    return componentsschemas_message_type_7
                except (TypeError, ValueError, AttributeError, KeyError):
                    pass
                try:
                    if not isinstance(data, dict):
                        raise TypeError()
                    componentsschemas_message_type_8 = MessageMcpResource.from_dict(
                        data
                    )

                    return componentsschemas_message_type_8
                except (TypeError, ValueError, AttributeError, KeyError):
                    pass
                try:
                    if not isinstance(data, dict):
                        raise TypeError()
                    componentsschemas_message_type_9 = (
                        MessageWorkflowExecution.from_dict(data)
                    )

                    return componentsschemas_message_type_9
                except (TypeError, ValueError, AttributeError, KeyError):
                    pass
                try:
                    if not isinstance(data, dict):
                        raise TypeError()
                    componentsschemas_message_type_10 = MessageSystemControl.from_dict(
                        data
                    )

                    return componentsschemas_message_type_10
                except (TypeError, ValueError, AttributeError, KeyError):
                    pass
                try:
                    if not isinstance(data, dict):
                        raise TypeError()
                    componentsschemas_message_type_11 = MessageProcessing.from_dict(
                        data
                    )

                    return componentsschemas_message_type_11
                except (TypeError, ValueError, AttributeError, KeyError):
                    pass
                try:
                    if not isinstance(data, dict):
                        raise TypeError()
                    componentsschemas_message_type_12 = MessagePlan.from_dict(data)

                    return componentsschemas_message_type_12
                except (TypeError, ValueError, AttributeError, KeyError):
                    pass
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_message_type_13 = MessageQuestion.from_dict(data)

                return componentsschemas_message_type_13

            messages_item = _parse_messages_item(messages_item_data)

            messages.append(messages_item)

        _markers = d.pop("markers", UNSET)
        markers: list[ViewMarker] | Unset = UNSET
        if _markers is not UNSET:
            markers = []
            for markers_item_data in _markers:
                markers_item = ViewMarker.from_dict(markers_item_data)

                markers.append(markers_item)

        def _parse_next_after(data: object) -> None | Unset | UUID:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                next_after_type_0 = UUID(data)

                return next_after_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | Unset | UUID, data)

        next_after = _parse_next_after(d.pop("next_after", UNSET))

        def _parse_next_before(data: object) -> None | Unset | UUID:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                next_before_type_0 = UUID(data)

                return next_before_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | Unset | UUID, data)

        next_before = _parse_next_before(d.pop("next_before", UNSET))

        message_list = cls(
            messages=messages,
            markers=markers,
            next_after=next_after,
            next_before=next_before,
        )

        message_list.additional_properties = d
        return message_list

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
