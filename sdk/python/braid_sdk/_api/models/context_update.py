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

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.context_state_awaiting_llm_first_chunk import (
        ContextStateAwaitingLlmFirstChunk,
    )
    from ..models.context_state_awaiting_tool_approval import (
        ContextStateAwaitingToolApproval,
    )
    from ..models.context_state_awaiting_user_answer import (
        ContextStateAwaitingUserAnswer,
    )
    from ..models.context_state_collecting_tool_results import (
        ContextStateCollectingToolResults,
    )
    from ..models.context_state_connecting_to_llm import ContextStateConnectingToLlm
    from ..models.context_state_enhancing_system_prompt import (
        ContextStateEnhancingSystemPrompt,
    )
    from ..models.context_state_executing_tool import ContextStateExecutingTool
    from ..models.context_state_executing_workflow import ContextStateExecutingWorkflow
    from ..models.context_state_failed import ContextStateFailed
    from ..models.context_state_idle import ContextStateIdle
    from ..models.context_state_optimizing_context import ContextStateOptimizingContext
    from ..models.context_state_parsing_tool_calls import ContextStateParsingToolCalls
    from ..models.context_state_paused import ContextStatePaused
    from ..models.context_state_preparing_llm_request import (
        ContextStatePreparingLlmRequest,
    )
    from ..models.context_state_processing_llm_response import (
        ContextStateProcessingLlmResponse,
    )
    from ..models.context_state_processing_tool_results import (
        ContextStateProcessingToolResults,
    )
    from ..models.context_state_processing_user_message import (
        ContextStateProcessingUserMessage,
    )
    from ..models.context_state_recognizing_images import ContextStateRecognizingImages
    from ..models.context_state_resolving_file_references import (
        ContextStateResolvingFileReferences,
    )
    from ..models.context_state_streaming_llm_response import (
        ContextStateStreamingLlmResponse,
    )
    from ..models.context_state_tool_auto_loop import ContextStateToolAutoLoop
    from ..models.context_update_metadata import ContextUpdateMetadata
    from ..models.message_update_changed import MessageUpdateChanged
    from ..models.message_update_completed import MessageUpdateCompleted
    from ..models.message_update_created import MessageUpdateCreated
    from ..models.message_update_deleted import MessageUpdateDeleted
    from ..models.message_update_status_changed import MessageUpdateStatusChanged
    from ..models.pending_call import PendingCall


T = TypeVar("T", bound="ContextUpdate")


@_attrs_define
class ContextUpdate:
    """A state change and/or a message lifecycle change. Carries no large text.

    Attributes:
        context_id (UUID): Identifies one context (conversation).
        current_state (ContextStateAwaitingLlmFirstChunk | ContextStateAwaitingToolApproval |
            ContextStateAwaitingUserAnswer | ContextStateCollectingToolResults | ContextStateConnectingToLlm |
            ContextStateEnhancingSystemPrompt | ContextStateExecutingTool | ContextStateExecutingWorkflow |
            ContextStateFailed | ContextStateIdle | ContextStateOptimizingContext | ContextStateParsingToolCalls |
            ContextStatePaused | ContextStatePreparingLlmRequest | ContextStateProcessingLlmResponse |
            ContextStateProcessingToolResults | ContextStateProcessingUserMessage | ContextStateRecognizingImages |
            ContextStateResolvingFileReferences | ContextStateStreamingLlmResponse | ContextStateToolAutoLoop): What a
            context is doing. Tagged by `type` in JSON, e.g.
            `{"type":"streaming_llm_response","chunks":3,"chars":120}`.
        metadata (ContextUpdateMetadata): Lightweight details (e.g. an optimization's token counts).
        timestamp (datetime.datetime): When it happened.
        type_ (Literal['context_update']):
        branch (None | str | Unset): The branch that turn works on.
        message_update (MessageUpdateChanged | MessageUpdateCompleted | MessageUpdateCreated | MessageUpdateDeleted |
            MessageUpdateStatusChanged | None | Unset): The message change, when there was one.
        pending_calls (list[PendingCall] | Unset): The calls waiting for a decision, with their tools and arguments: set
            when this update
            moves the context to `awaiting_tool_approval`.
        previous_state (ContextStateAwaitingLlmFirstChunk | ContextStateAwaitingToolApproval |
            ContextStateAwaitingUserAnswer | ContextStateCollectingToolResults | ContextStateConnectingToLlm |
            ContextStateEnhancingSystemPrompt | ContextStateExecutingTool | ContextStateExecutingWorkflow |
            ContextStateFailed | ContextStateIdle | ContextStateOptimizingContext | ContextStateParsingToolCalls |
            ContextStatePaused | ContextStatePreparingLlmRequest | ContextStateProcessingLlmResponse |
            ContextStateProcessingToolResults | ContextStateProcessingUserMessage | ContextStateRecognizingImages |
            ContextStateResolvingFileReferences | ContextStateStreamingLlmResponse | ContextStateToolAutoLoop | None |
            Unset): The state before, when this update is a state change.
        turn_id (None | Unset | UUID): The turn this event belongs to, when one was running (see `turn_completed`).
    """

    context_id: UUID
    current_state: (
        ContextStateAwaitingLlmFirstChunk
        | ContextStateAwaitingToolApproval
        | ContextStateAwaitingUserAnswer
        | ContextStateCollectingToolResults
        | ContextStateConnectingToLlm
        | ContextStateEnhancingSystemPrompt
        | ContextStateExecutingTool
        | ContextStateExecutingWorkflow
        | ContextStateFailed
        | ContextStateIdle
        | ContextStateOptimizingContext
        | ContextStateParsingToolCalls
        | ContextStatePaused
        | ContextStatePreparingLlmRequest
        | ContextStateProcessingLlmResponse
        | ContextStateProcessingToolResults
        | ContextStateProcessingUserMessage
        | ContextStateRecognizingImages
        | ContextStateResolvingFileReferences
        | ContextStateStreamingLlmResponse
        | ContextStateToolAutoLoop
    )
    metadata: ContextUpdateMetadata
    timestamp: datetime.datetime
    type_: Literal["context_update"]
    branch: None | str | Unset = UNSET
    message_update: (
        MessageUpdateChanged
        | MessageUpdateCompleted
        | MessageUpdateCreated
        | MessageUpdateDeleted
        | MessageUpdateStatusChanged
        | None
        | Unset
    ) = UNSET
    pending_calls: list[PendingCall] | Unset = UNSET
    previous_state: (
        ContextStateAwaitingLlmFirstChunk
        | ContextStateAwaitingToolApproval
        | ContextStateAwaitingUserAnswer
        | ContextStateCollectingToolResults
        | ContextStateConnectingToLlm
        | ContextStateEnhancingSystemPrompt
        | ContextStateExecutingTool
        | ContextStateExecutingWorkflow
        | ContextStateFailed
        | ContextStateIdle
        | ContextStateOptimizingContext
        | ContextStateParsingToolCalls
        | ContextStatePaused
        | ContextStatePreparingLlmRequest
        | ContextStateProcessingLlmResponse
        | ContextStateProcessingToolResults
        | ContextStateProcessingUserMessage
        | ContextStateRecognizingImages
        | ContextStateResolvingFileReferences
        | ContextStateStreamingLlmResponse
        | ContextStateToolAutoLoop
        | None
        | Unset
    ) = UNSET
    turn_id: None | Unset | UUID = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.context_state_awaiting_llm_first_chunk import (
            ContextStateAwaitingLlmFirstChunk,
        )
        from ..models.context_state_awaiting_tool_approval import (
            ContextStateAwaitingToolApproval,
        )
        from ..models.context_state_awaiting_user_answer import (
            ContextStateAwaitingUserAnswer,
        )
        from ..models.context_state_collecting_tool_results import (
            ContextStateCollectingToolResults,
        )
        from ..models.context_state_connecting_to_llm import ContextStateConnectingToLlm
        from ..models.context_state_enhancing_system_prompt import (
            ContextStateEnhancingSystemPrompt,
        )
        from ..models.context_state_executing_tool import ContextStateExecutingTool
        from ..models.context_state_executing_workflow import (
            ContextStateExecutingWorkflow,
        )
        from ..models.context_state_failed import ContextStateFailed
        from ..models.context_state_idle import ContextStateIdle
        from ..models.context_state_optimizing_context import (
            ContextStateOptimizingContext,
        )
        from ..models.context_state_parsing_tool_calls import (
            ContextStateParsingToolCalls,
        )
        from ..models.context_state_paused import ContextStatePaused
        from ..models.context_state_preparing_llm_request import (
            ContextStatePreparingLlmRequest,
        )
        from ..models.context_state_processing_llm_response import (
            ContextStateProcessingLlmResponse,
        )
        from ..models.context_state_processing_tool_results import (
            ContextStateProcessingToolResults,
        )
        from ..models.context_state_processing_user_message import (
            ContextStateProcessingUserMessage,
        )
        from ..models.context_state_recognizing_images import (
            ContextStateRecognizingImages,
        )
        from ..models.context_state_resolving_file_references import (
            ContextStateResolvingFileReferences,
        )
        from ..models.context_state_streaming_llm_response import (
            ContextStateStreamingLlmResponse,
        )
        from ..models.context_state_tool_auto_loop import ContextStateToolAutoLoop
        from ..models.message_update_changed import MessageUpdateChanged
        from ..models.message_update_completed import MessageUpdateCompleted
        from ..models.message_update_created import MessageUpdateCreated
        from ..models.message_update_deleted import MessageUpdateDeleted
        from ..models.message_update_status_changed import MessageUpdateStatusChanged

        context_id = str(self.context_id)

        current_state: dict[str, Any]
        if (
            isinstance(self.current_state, ContextStateIdle)
            or isinstance(self.current_state, ContextStateProcessingUserMessage)
            or isinstance(self.current_state, ContextStateResolvingFileReferences)
            or isinstance(self.current_state, ContextStateRecognizingImages)
            or isinstance(self.current_state, ContextStateEnhancingSystemPrompt)
            or isinstance(self.current_state, ContextStateOptimizingContext)
            or isinstance(self.current_state, ContextStatePreparingLlmRequest)
            or isinstance(self.current_state, ContextStateConnectingToLlm)
            or isinstance(self.current_state, ContextStateAwaitingLlmFirstChunk)
            or isinstance(self.current_state, ContextStateStreamingLlmResponse)
            or isinstance(self.current_state, ContextStateProcessingLlmResponse)
            or isinstance(self.current_state, ContextStateParsingToolCalls)
            or isinstance(self.current_state, ContextStateToolAutoLoop)
            or isinstance(self.current_state, ContextStateAwaitingToolApproval)
            or isinstance(self.current_state, ContextStateExecutingTool)
            or isinstance(self.current_state, ContextStateCollectingToolResults)
            or isinstance(self.current_state, ContextStateProcessingToolResults)
            or isinstance(self.current_state, ContextStateAwaitingUserAnswer)
            or isinstance(self.current_state, ContextStateExecutingWorkflow)
            or isinstance(self.current_state, ContextStatePaused)
        ):
            current_state = self.current_state.to_dict()
        else:
            current_state = self.current_state.to_dict()

        metadata = self.metadata.to_dict()

        timestamp = self.timestamp.isoformat()

        type_ = self.type_

        branch: None | str | Unset
        if isinstance(self.branch, Unset):
            branch = UNSET
        else:
            branch = self.branch

        message_update: dict[str, Any] | None | Unset
        if isinstance(self.message_update, Unset):
            message_update = UNSET
        elif (
            isinstance(self.message_update, MessageUpdateCreated)
            or isinstance(self.message_update, MessageUpdateStatusChanged)
            or isinstance(self.message_update, MessageUpdateCompleted)
            or isinstance(self.message_update, MessageUpdateChanged)
            or isinstance(self.message_update, MessageUpdateDeleted)
        ):
            message_update = self.message_update.to_dict()
        else:
            message_update = self.message_update

        pending_calls: list[dict[str, Any]] | Unset = UNSET
        if not isinstance(self.pending_calls, Unset):
            pending_calls = []
            for pending_calls_item_data in self.pending_calls:
                pending_calls_item = pending_calls_item_data.to_dict()
                pending_calls.append(pending_calls_item)

        previous_state: dict[str, Any] | None | Unset
        if isinstance(self.previous_state, Unset):
            previous_state = UNSET
        elif (
            isinstance(self.previous_state, ContextStateIdle)
            or isinstance(self.previous_state, ContextStateProcessingUserMessage)
            or isinstance(self.previous_state, ContextStateResolvingFileReferences)
            or isinstance(self.previous_state, ContextStateRecognizingImages)
            or isinstance(self.previous_state, ContextStateEnhancingSystemPrompt)
            or isinstance(self.previous_state, ContextStateOptimizingContext)
            or isinstance(self.previous_state, ContextStatePreparingLlmRequest)
            or isinstance(self.previous_state, ContextStateConnectingToLlm)
            or isinstance(self.previous_state, ContextStateAwaitingLlmFirstChunk)
            or isinstance(self.previous_state, ContextStateStreamingLlmResponse)
            or isinstance(self.previous_state, ContextStateProcessingLlmResponse)
            or isinstance(self.previous_state, ContextStateParsingToolCalls)
            or isinstance(self.previous_state, ContextStateToolAutoLoop)
            or isinstance(self.previous_state, ContextStateAwaitingToolApproval)
            or isinstance(self.previous_state, ContextStateExecutingTool)
            or isinstance(self.previous_state, ContextStateCollectingToolResults)
            or isinstance(self.previous_state, ContextStateProcessingToolResults)
            or isinstance(self.previous_state, ContextStateAwaitingUserAnswer)
            or isinstance(self.previous_state, ContextStateExecutingWorkflow)
            or isinstance(self.previous_state, ContextStatePaused)
            or isinstance(self.previous_state, ContextStateFailed)
        ):
            previous_state = self.previous_state.to_dict()
        else:
            previous_state = self.previous_state

        turn_id: None | str | Unset
        if isinstance(self.turn_id, Unset):
            turn_id = UNSET
        elif isinstance(self.turn_id, UUID):
            turn_id = str(self.turn_id)
        else:
            turn_id = self.turn_id

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "context_id": context_id,
                "current_state": current_state,
                "metadata": metadata,
                "timestamp": timestamp,
                "type": type_,
            }
        )
        if branch is not UNSET:
            field_dict["branch"] = branch
        if message_update is not UNSET:
            field_dict["message_update"] = message_update
        if pending_calls is not UNSET:
            field_dict["pending_calls"] = pending_calls
        if previous_state is not UNSET:
            field_dict["previous_state"] = previous_state
        if turn_id is not UNSET:
            field_dict["turn_id"] = turn_id

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.context_state_awaiting_llm_first_chunk import (
            ContextStateAwaitingLlmFirstChunk,
        )
        from ..models.context_state_awaiting_tool_approval import (
            ContextStateAwaitingToolApproval,
        )
        from ..models.context_state_awaiting_user_answer import (
            ContextStateAwaitingUserAnswer,
        )
        from ..models.context_state_collecting_tool_results import (
            ContextStateCollectingToolResults,
        )
        from ..models.context_state_connecting_to_llm import ContextStateConnectingToLlm
        from ..models.context_state_enhancing_system_prompt import (
            ContextStateEnhancingSystemPrompt,
        )
        from ..models.context_state_executing_tool import ContextStateExecutingTool
        from ..models.context_state_executing_workflow import (
            ContextStateExecutingWorkflow,
        )
        from ..models.context_state_failed import ContextStateFailed
        from ..models.context_state_idle import ContextStateIdle
        from ..models.context_state_optimizing_context import (
            ContextStateOptimizingContext,
        )
        from ..models.context_state_parsing_tool_calls import (
            ContextStateParsingToolCalls,
        )
        from ..models.context_state_paused import ContextStatePaused
        from ..models.context_state_preparing_llm_request import (
            ContextStatePreparingLlmRequest,
        )
        from ..models.context_state_processing_llm_response import (
            ContextStateProcessingLlmResponse,
        )
        from ..models.context_state_processing_tool_results import (
            ContextStateProcessingToolResults,
        )
        from ..models.context_state_processing_user_message import (
            ContextStateProcessingUserMessage,
        )
        from ..models.context_state_recognizing_images import (
            ContextStateRecognizingImages,
        )
        from ..models.context_state_resolving_file_references import (
            ContextStateResolvingFileReferences,
        )
        from ..models.context_state_streaming_llm_response import (
            ContextStateStreamingLlmResponse,
        )
        from ..models.context_state_tool_auto_loop import ContextStateToolAutoLoop
        from ..models.context_update_metadata import ContextUpdateMetadata
        from ..models.message_update_changed import MessageUpdateChanged
        from ..models.message_update_completed import MessageUpdateCompleted
        from ..models.message_update_created import MessageUpdateCreated
        from ..models.message_update_deleted import MessageUpdateDeleted
        from ..models.message_update_status_changed import MessageUpdateStatusChanged
        from ..models.pending_call import PendingCall

        d = dict(src_dict)
        context_id = UUID(d.pop("context_id"))

        def _parse_current_state(
            data: object,
        ) -> (
            ContextStateAwaitingLlmFirstChunk
            | ContextStateAwaitingToolApproval
            | ContextStateAwaitingUserAnswer
            | ContextStateCollectingToolResults
            | ContextStateConnectingToLlm
            | ContextStateEnhancingSystemPrompt
            | ContextStateExecutingTool
            | ContextStateExecutingWorkflow
            | ContextStateFailed
            | ContextStateIdle
            | ContextStateOptimizingContext
            | ContextStateParsingToolCalls
            | ContextStatePaused
            | ContextStatePreparingLlmRequest
            | ContextStateProcessingLlmResponse
            | ContextStateProcessingToolResults
            | ContextStateProcessingUserMessage
            | ContextStateRecognizingImages
            | ContextStateResolvingFileReferences
            | ContextStateStreamingLlmResponse
            | ContextStateToolAutoLoop
        ):
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_context_state_type_0 = ContextStateIdle.from_dict(
                    data
                )

                return componentsschemas_context_state_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_context_state_type_1 = (
                    ContextStateProcessingUserMessage.from_dict(data)
                )

                return componentsschemas_context_state_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_context_state_type_2 = (
                    ContextStateResolvingFileReferences.from_dict(data)
                )

                return componentsschemas_context_state_type_2
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_context_state_type_3 = (
                    ContextStateRecognizingImages.from_dict(data)
                )

                return componentsschemas_context_state_type_3
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_context_state_type_4 = (
                    ContextStateEnhancingSystemPrompt.from_dict(data)
                )

                return componentsschemas_context_state_type_4
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_context_state_type_5 = (
                    ContextStateOptimizingContext.from_dict(data)
                )

                return componentsschemas_context_state_type_5
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_context_state_type_6 = (
                    ContextStatePreparingLlmRequest.from_dict(data)
                )

                return componentsschemas_context_state_type_6
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_context_state_type_7 = (
                    ContextStateConnectingToLlm.from_dict(data)
                )

                return componentsschemas_context_state_type_7
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_context_state_type_8 = (
                    ContextStateAwaitingLlmFirstChunk.from_dict(data)
                )

                return componentsschemas_context_state_type_8
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_context_state_type_9 = (
                    ContextStateStreamingLlmResponse.from_dict(data)
                )

                return componentsschemas_context_state_type_9
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_context_state_type_10 = (
                    ContextStateProcessingLlmResponse.from_dict(data)
                )

                return componentsschemas_context_state_type_10
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_context_state_type_11 = (
                    ContextStateParsingToolCalls.from_dict(data)
                )

                return componentsschemas_context_state_type_11
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_context_state_type_12 = (
                    ContextStateToolAutoLoop.from_dict(data)
                )

                return componentsschemas_context_state_type_12
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_context_state_type_13 = (
                    ContextStateAwaitingToolApproval.from_dict(data)
                )

                return componentsschemas_context_state_type_13
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_context_state_type_14 = (
                    ContextStateExecutingTool.from_dict(data)
                )

                return componentsschemas_context_state_type_14
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_context_state_type_15 = (
                    ContextStateCollectingToolResults.from_dict(data)
                )

                return componentsschemas_context_state_type_15
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_context_state_type_16 = (
                    ContextStateProcessingToolResults.from_dict(data)
                )

                return componentsschemas_context_state_type_16
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_context_state_type_17 = (
                    ContextStateAwaitingUserAnswer.from_dict(data)
                )

                return componentsschemas_context_state_type_17
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_context_state_type_18 = (
                    ContextStateExecutingWorkflow.from_dict(data)
                )

                return componentsschemas_context_state_type_18
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_context_state_type_19 = ContextStatePaused.from_dict(
                    data
                )

                return componentsschemas_context_state_type_19
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            if not isinstance(data, dict):
                raise TypeError()
            componentsschemas_context_state_type_20 = ContextStateFailed.from_dict(data)

            return componentsschemas_context_state_type_20

        current_state = _parse_current_state(d.pop("current_state"))

        metadata = ContextUpdateMetadata.from_dict(d.pop("metadata"))

        timestamp = datetime.datetime.fromisoformat(d.pop("timestamp"))

        type_ = cast(Literal["context_update"], d.pop("type"))
        if type_ != "context_update":
            raise ValueError(f"type must match const 'context_update', got '{type_}'")

        def _parse_branch(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        branch = _parse_branch(d.pop("branch", UNSET))

        def _parse_message_update(
            data: object,
        ) -> (
            MessageUpdateChanged
            | MessageUpdateCompleted
            | MessageUpdateCreated
            | MessageUpdateDeleted
            | MessageUpdateStatusChanged
            | None
            | Unset
        ):
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_message_update_type_0 = (
                    MessageUpdateCreated.from_dict(data)
                )

                return componentsschemas_message_update_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_message_update_type_1 = (
                    MessageUpdateStatusChanged.from_dict(data)
                )

                return componentsschemas_message_update_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_message_update_type_2 = (
                    MessageUpdateCompleted.from_dict(data)
                )

                return componentsschemas_message_update_type_2
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_message_update_type_3 = (
                    MessageUpdateChanged.from_dict(data)
                )

                return componentsschemas_message_update_type_3
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_message_update_type_4 = (
                    MessageUpdateDeleted.from_dict(data)
                )

                return componentsschemas_message_update_type_4
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(
                MessageUpdateChanged
                | MessageUpdateCompleted
                | MessageUpdateCreated
                | MessageUpdateDeleted
                | MessageUpdateStatusChanged
                | None
                | Unset,
                data,
            )

        message_update = _parse_message_update(d.pop("message_update", UNSET))

        _pending_calls = d.pop("pending_calls", UNSET)
        pending_calls: list[PendingCall] | Unset = UNSET
        if _pending_calls is not UNSET:
            pending_calls = []
            for pending_calls_item_data in _pending_calls:
                pending_calls_item = PendingCall.from_dict(pending_calls_item_data)

                pending_calls.append(pending_calls_item)

        def _parse_previous_state(
            data: object,
        ) -> (
            ContextStateAwaitingLlmFirstChunk
            | ContextStateAwaitingToolApproval
            | ContextStateAwaitingUserAnswer
            | ContextStateCollectingToolResults
            | ContextStateConnectingToLlm
            | ContextStateEnhancingSystemPrompt
            | ContextStateExecutingTool
            | ContextStateExecutingWorkflow
            | ContextStateFailed
            | ContextStateIdle
            | ContextStateOptimizingContext
            | ContextStateParsingToolCalls
            | ContextStatePaused
            | ContextStatePreparingLlmRequest
            | ContextStateProcessingLlmResponse
            | ContextStateProcessingToolResults
            | ContextStateProcessingUserMessage
            | ContextStateRecognizingImages
            | ContextStateResolvingFileReferences
            | ContextStateStreamingLlmResponse
            | ContextStateToolAutoLoop
            | None
            | Unset
        ):
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_context_state_type_0 = ContextStateIdle.from_dict(
                    data
                )

                return componentsschemas_context_state_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_context_state_type_1 = (
                    ContextStateProcessingUserMessage.from_dict(data)
                )

                return componentsschemas_context_state_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_context_state_type_2 = (
                    ContextStateResolvingFileReferences.from_dict(data)
                )

                return componentsschemas_context_state_type_2
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_context_state_type_3 = (
                    ContextStateRecognizingImages.from_dict(data)
                )

                return componentsschemas_context_state_type_3
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_context_state_type_4 = (
                    ContextStateEnhancingSystemPrompt.from_dict(data)
                )

                return componentsschemas_context_state_type_4
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_context_state_type_5 = (
                    ContextStateOptimizingContext.from_dict(data)
                )

                return componentsschemas_context_state_type_5
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_context_state_type_6 = (
                    ContextStatePreparingLlmRequest.from_dict(data)
                )

                return componentsschemas_context_state_type_6
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_context_state_type_7 = (
                    ContextStateConnectingToLlm.from_dict(data)
                )

                return componentsschemas_context_state_type_7
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_context_state_type_8 = (
                    ContextStateAwaitingLlmFirstChunk.from_dict(data)
                )

                return componentsschemas_context_state_type_8
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_context_state_type_9 = (
                    ContextStateStreamingLlmResponse.from_dict(data)
                )

                return componentsschemas_context_state_type_9
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_context_state_type_10 = (
                    ContextStateProcessingLlmResponse.from_dict(data)
                )

                return componentsschemas_context_state_type_10
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_context_state_type_11 = (
                    ContextStateParsingToolCalls.from_dict(data)
                )

                return componentsschemas_context_state_type_11
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_context_state_type_12 = (
                    ContextStateToolAutoLoop.from_dict(data)
                )

                return componentsschemas_context_state_type_12
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_context_state_type_13 = (
                    ContextStateAwaitingToolApproval.from_dict(data)
                )

                return componentsschemas_context_state_type_13
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_context_state_type_14 = (
                    ContextStateExecutingTool.from_dict(data)
                )

                return componentsschemas_context_state_type_14
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_context_state_type_15 = (
                    ContextStateCollectingToolResults.from_dict(data)
                )

                return componentsschemas_context_state_type_15
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_context_state_type_16 = (
                    ContextStateProcessingToolResults.from_dict(data)
                )

                return componentsschemas_context_state_type_16
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_context_state_type_17 = (
                    ContextStateAwaitingUserAnswer.from_dict(data)
                )

                return componentsschemas_context_state_type_17
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_context_state_type_18 = (
                    ContextStateExecutingWorkflow.from_dict(data)
                )

                return componentsschemas_context_state_type_18
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_context_state_type_19 = ContextStatePaused.from_dict(
                    data
                )

                return componentsschemas_context_state_type_19
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_context_state_type_20 = ContextStateFailed.from_dict(
                    data
                )

                return componentsschemas_context_state_type_20
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(
                ContextStateAwaitingLlmFirstChunk
                | ContextStateAwaitingToolApproval
                | ContextStateAwaitingUserAnswer
                | ContextStateCollectingToolResults
                | ContextStateConnectingToLlm
                | ContextStateEnhancingSystemPrompt
                | ContextStateExecutingTool
                | ContextStateExecutingWorkflow
                | ContextStateFailed
                | ContextStateIdle
                | ContextStateOptimizingContext
                | ContextStateParsingToolCalls
                | ContextStatePaused
                | ContextStatePreparingLlmRequest
                | ContextStateProcessingLlmResponse
                | ContextStateProcessingToolResults
                | ContextStateProcessingUserMessage
                | ContextStateRecognizingImages
                | ContextStateResolvingFileReferences
                | ContextStateStreamingLlmResponse
                | ContextStateToolAutoLoop
                | None
                | Unset,
                data,
            )

        previous_state = _parse_previous_state(d.pop("previous_state", UNSET))

        def _parse_turn_id(data: object) -> None | Unset | UUID:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                turn_id_type_0 = UUID(data)

                return turn_id_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | Unset | UUID, data)

        turn_id = _parse_turn_id(d.pop("turn_id", UNSET))

        context_update = cls(
            context_id=context_id,
            current_state=current_state,
            metadata=metadata,
            timestamp=timestamp,
            type_=type_,
            branch=branch,
            message_update=message_update,
            pending_calls=pending_calls,
            previous_state=previous_state,
            turn_id=turn_id,
        )

        context_update.additional_properties = d
        return context_update

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
