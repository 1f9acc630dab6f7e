from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

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


T = TypeVar("T", bound="StateTransition")


@_attrs_define
class StateTransition:
    """One recorded move, for the transition history (`GET .../state?history=true`).

    Attributes:
        at (datetime.datetime): When it happened.
        from_ (ContextStateAwaitingLlmFirstChunk | ContextStateAwaitingToolApproval | ContextStateAwaitingUserAnswer |
            ContextStateCollectingToolResults | ContextStateConnectingToLlm | ContextStateEnhancingSystemPrompt |
            ContextStateExecutingTool | ContextStateExecutingWorkflow | ContextStateFailed | ContextStateIdle |
            ContextStateOptimizingContext | ContextStateParsingToolCalls | ContextStatePaused |
            ContextStatePreparingLlmRequest | ContextStateProcessingLlmResponse | ContextStateProcessingToolResults |
            ContextStateProcessingUserMessage | ContextStateRecognizingImages | ContextStateResolvingFileReferences |
            ContextStateStreamingLlmResponse | ContextStateToolAutoLoop): What a context is doing. Tagged by `type` in JSON,
            e.g.
            `{"type":"streaming_llm_response","chunks":3,"chars":120}`.
        to (ContextStateAwaitingLlmFirstChunk | ContextStateAwaitingToolApproval | ContextStateAwaitingUserAnswer |
            ContextStateCollectingToolResults | ContextStateConnectingToLlm | ContextStateEnhancingSystemPrompt |
            ContextStateExecutingTool | ContextStateExecutingWorkflow | ContextStateFailed | ContextStateIdle |
            ContextStateOptimizingContext | ContextStateParsingToolCalls | ContextStatePaused |
            ContextStatePreparingLlmRequest | ContextStateProcessingLlmResponse | ContextStateProcessingToolResults |
            ContextStateProcessingUserMessage | ContextStateRecognizingImages | ContextStateResolvingFileReferences |
            ContextStateStreamingLlmResponse | ContextStateToolAutoLoop): What a context is doing. Tagged by `type` in JSON,
            e.g.
            `{"type":"streaming_llm_response","chunks":3,"chars":120}`.
    """

    at: datetime.datetime
    from_: (
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
    to: (
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

        at = self.at.isoformat()

        from_: dict[str, Any]
        if (
            isinstance(self.from_, ContextStateIdle)
            or isinstance(self.from_, ContextStateProcessingUserMessage)
            or isinstance(self.from_, ContextStateResolvingFileReferences)
            or isinstance(self.from_, ContextStateRecognizingImages)
            or isinstance(self.from_, ContextStateEnhancingSystemPrompt)
            or isinstance(self.from_, ContextStateOptimizingContext)
            or isinstance(self.from_, ContextStatePreparingLlmRequest)
            or isinstance(self.from_, ContextStateConnectingToLlm)
            or isinstance(self.from_, ContextStateAwaitingLlmFirstChunk)
            or isinstance(self.from_, ContextStateStreamingLlmResponse)
            or isinstance(self.from_, ContextStateProcessingLlmResponse)
            or isinstance(self.from_, ContextStateParsingToolCalls)
            or isinstance(self.from_, ContextStateToolAutoLoop)
            or isinstance(self.from_, ContextStateAwaitingToolApproval)
            or isinstance(self.from_, ContextStateExecutingTool)
            or isinstance(self.from_, ContextStateCollectingToolResults)
            or isinstance(self.from_, ContextStateProcessingToolResults)
            or isinstance(self.from_, ContextStateAwaitingUserAnswer)
            or isinstance(self.from_, ContextStateExecutingWorkflow)
            or isinstance(self.from_, ContextStatePaused)
        ):
            from_ = self.from_.to_dict()
        else:
            from_ = self.from_.to_dict()

        to: dict[str, Any]
        if (
            isinstance(self.to, ContextStateIdle)
            or isinstance(self.to, ContextStateProcessingUserMessage)
            or isinstance(self.to, ContextStateResolvingFileReferences)
            or isinstance(self.to, ContextStateRecognizingImages)
            or isinstance(self.to, ContextStateEnhancingSystemPrompt)
            or isinstance(self.to, ContextStateOptimizingContext)
            or isinstance(self.to, ContextStatePreparingLlmRequest)
            or isinstance(self.to, ContextStateConnectingToLlm)
            or isinstance(self.to, ContextStateAwaitingLlmFirstChunk)
            or isinstance(self.to, ContextStateStreamingLlmResponse)
            or isinstance(self.to, ContextStateProcessingLlmResponse)
            or isinstance(self.to, ContextStateParsingToolCalls)
            or isinstance(self.to, ContextStateToolAutoLoop)
            or isinstance(self.to, ContextStateAwaitingToolApproval)
            or isinstance(self.to, ContextStateExecutingTool)
            or isinstance(self.to, ContextStateCollectingToolResults)
            or isinstance(self.to, ContextStateProcessingToolResults)
            or isinstance(self.to, ContextStateAwaitingUserAnswer)
            or isinstance(self.to, ContextStateExecutingWorkflow)
            or isinstance(self.to, ContextStatePaused)
        ):
            to = self.to.to_dict()
        else:
            to = self.to.to_dict()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "at": at,
                "from": from_,
                "to": to,
            }
        )

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

        d = dict(src_dict)
        at = datetime.datetime.fromisoformat(d.pop("at"))

        def _parse_from_(
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

        from_ = _parse_from_(d.pop("from"))

        def _parse_to(
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

        to = _parse_to(d.pop("to"))

        state_transition = cls(
            at=at,
            from_=from_,
            to=to,
        )

        state_transition.additional_properties = d
        return state_transition

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
