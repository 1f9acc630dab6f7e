from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

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
    from ..models.state_transition import StateTransition


T = TypeVar("T", bound="StateResponse")


@_attrs_define
class StateResponse:
    """`GET /v1/contexts/{id}/state`.

    Attributes:
        state (ContextStateAwaitingLlmFirstChunk | ContextStateAwaitingToolApproval | ContextStateAwaitingUserAnswer |
            ContextStateCollectingToolResults | ContextStateConnectingToLlm | ContextStateEnhancingSystemPrompt |
            ContextStateExecutingTool | ContextStateExecutingWorkflow | ContextStateFailed | ContextStateIdle |
            ContextStateOptimizingContext | ContextStateParsingToolCalls | ContextStatePaused |
            ContextStatePreparingLlmRequest | ContextStateProcessingLlmResponse | ContextStateProcessingToolResults |
            ContextStateProcessingUserMessage | ContextStateRecognizingImages | ContextStateResolvingFileReferences |
            ContextStateStreamingLlmResponse | ContextStateToolAutoLoop): What a context is doing. Tagged by `type` in JSON,
            e.g.
            `{"type":"streaming_llm_response","chunks":3,"chars":120}`.
        history (list[StateTransition] | None | Unset): Every transition since the context was loaded, with
            `?history=true`.
    """

    state: (
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
    history: list[StateTransition] | None | Unset = UNSET
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

        state: dict[str, Any]
        if (
            isinstance(self.state, ContextStateIdle)
            or isinstance(self.state, ContextStateProcessingUserMessage)
            or isinstance(self.state, ContextStateResolvingFileReferences)
            or isinstance(self.state, ContextStateRecognizingImages)
            or isinstance(self.state, ContextStateEnhancingSystemPrompt)
            or isinstance(self.state, ContextStateOptimizingContext)
            or isinstance(self.state, ContextStatePreparingLlmRequest)
            or isinstance(self.state, ContextStateConnectingToLlm)
            or isinstance(self.state, ContextStateAwaitingLlmFirstChunk)
            or isinstance(self.state, ContextStateStreamingLlmResponse)
            or isinstance(self.state, ContextStateProcessingLlmResponse)
            or isinstance(self.state, ContextStateParsingToolCalls)
            or isinstance(self.state, ContextStateToolAutoLoop)
            or isinstance(self.state, ContextStateAwaitingToolApproval)
            or isinstance(self.state, ContextStateExecutingTool)
            or isinstance(self.state, ContextStateCollectingToolResults)
            or isinstance(self.state, ContextStateProcessingToolResults)
            or isinstance(self.state, ContextStateAwaitingUserAnswer)
            or isinstance(self.state, ContextStateExecutingWorkflow)
            or isinstance(self.state, ContextStatePaused)
        ):
            state = self.state.to_dict()
        else:
            state = self.state.to_dict()

        history: list[dict[str, Any]] | None | Unset
        if isinstance(self.history, Unset):
            history = UNSET
        elif isinstance(self.history, list):
            history = []
            for history_type_0_item_data in self.history:
                history_type_0_item = history_type_0_item_data.to_dict()
                history.append(history_type_0_item)

        else:
            history = self.history

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "state": state,
            }
        )
        if history is not UNSET:
            field_dict["history"] = history

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
        from ..models.state_transition import StateTransition

        d = dict(src_dict)

        def _parse_state(
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

        state = _parse_state(d.pop("state"))

        def _parse_history(data: object) -> list[StateTransition] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                history_type_0 = []
                _history_type_0 = data
                for history_type_0_item_data in _history_type_0:
                    history_type_0_item = StateTransition.from_dict(
                        history_type_0_item_data
                    )

                    history_type_0.append(history_type_0_item)

                return history_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[StateTransition] | None | Unset, data)

        history = _parse_history(d.pop("history", UNSET))

        state_response = cls(
            state=state,
            history=history,
        )

        state_response.additional_properties = d
        return state_response

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
