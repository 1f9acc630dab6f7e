from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.context_config import ContextConfig
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
    from ..models.model_capabilities_view import ModelCapabilitiesView
    from ..models.token_budget import TokenBudget
    from ..models.workspace_instructions_info import WorkspaceInstructionsInfo


T = TypeVar("T", bound="ContextSummary")


@_attrs_define
class ContextSummary:
    """A context as `GET /v1/contexts/{id}` (and `POST /v1/contexts`) answers it.

    Attributes:
        active_branch (str): The name of a branch within a context, unique in that context (`main` by default).
        branches (list[str]): Every branch's name.
        config (ContextConfig): A context's configuration.
        created_at (datetime.datetime): When it was created.
        id (UUID): Identifies one context (conversation).
        message_count (int): Messages in the active branch.
        pinned (list[UUID]): The active branch's pinned messages and facts, in order: never dropped or summarized.
        state (ContextStateAwaitingLlmFirstChunk | ContextStateAwaitingToolApproval | ContextStateAwaitingUserAnswer |
            ContextStateCollectingToolResults | ContextStateConnectingToLlm | ContextStateEnhancingSystemPrompt |
            ContextStateExecutingTool | ContextStateExecutingWorkflow | ContextStateFailed | ContextStateIdle |
            ContextStateOptimizingContext | ContextStateParsingToolCalls | ContextStatePaused |
            ContextStatePreparingLlmRequest | ContextStateProcessingLlmResponse | ContextStateProcessingToolResults |
            ContextStateProcessingUserMessage | ContextStateRecognizingImages | ContextStateResolvingFileReferences |
            ContextStateStreamingLlmResponse | ContextStateToolAutoLoop): What a context is doing. Tagged by `type` in JSON,
            e.g.
            `{"type":"streaming_llm_response","chunks":3,"chars":120}`.
        token_budget (TokenBudget): Tokens used by a request against the budget.
        updated_at (datetime.datetime): When it last changed.
        capabilities (ModelCapabilitiesView | None | Unset): What the context's model can do, and where each figure came
            from; absent when no model
            is configured.
        instructions (None | Unset | WorkspaceInstructionsInfo): The workspace's instructions file the system prompt
            carries, when there is one.
        title (None | str | Unset): Its title; written by the model after the first exchange when none was given.
    """

    active_branch: str
    branches: list[str]
    config: ContextConfig
    created_at: datetime.datetime
    id: UUID
    message_count: int
    pinned: list[UUID]
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
    token_budget: TokenBudget
    updated_at: datetime.datetime
    capabilities: ModelCapabilitiesView | None | Unset = UNSET
    instructions: None | Unset | WorkspaceInstructionsInfo = UNSET
    title: None | str | Unset = UNSET
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
        from ..models.model_capabilities_view import ModelCapabilitiesView
        from ..models.workspace_instructions_info import WorkspaceInstructionsInfo

        active_branch = self.active_branch

        branches = self.branches

        config = self.config.to_dict()

        created_at = self.created_at.isoformat()

        id = str(self.id)

        message_count = self.message_count

        pinned = []
        for pinned_item_data in self.pinned:
            pinned_item = str(pinned_item_data)
            pinned.append(pinned_item)

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

        token_budget = self.token_budget.to_dict()

        updated_at = self.updated_at.isoformat()

        capabilities: dict[str, Any] | None | Unset
        if isinstance(self.capabilities, Unset):
            capabilities = UNSET
        elif isinstance(self.capabilities, ModelCapabilitiesView):
            capabilities = self.capabilities.to_dict()
        else:
            capabilities = self.capabilities

        instructions: dict[str, Any] | None | Unset
        if isinstance(self.instructions, Unset):
            instructions = UNSET
        elif isinstance(self.instructions, WorkspaceInstructionsInfo):
            instructions = self.instructions.to_dict()
        else:
            instructions = self.instructions

        title: None | str | Unset
        if isinstance(self.title, Unset):
            title = UNSET
        else:
            title = self.title

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "active_branch": active_branch,
                "branches": branches,
                "config": config,
                "created_at": created_at,
                "id": id,
                "message_count": message_count,
                "pinned": pinned,
                "state": state,
                "token_budget": token_budget,
                "updated_at": updated_at,
            }
        )
        if capabilities is not UNSET:
            field_dict["capabilities"] = capabilities
        if instructions is not UNSET:
            field_dict["instructions"] = instructions
        if title is not UNSET:
            field_dict["title"] = title

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.context_config import ContextConfig
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
        from ..models.model_capabilities_view import ModelCapabilitiesView
        from ..models.token_budget import TokenBudget
        from ..models.workspace_instructions_info import WorkspaceInstructionsInfo

        d = dict(src_dict)
        active_branch = d.pop("active_branch")

        branches = cast(list[str], d.pop("branches"))

        config = ContextConfig.from_dict(d.pop("config"))

        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))

        id = UUID(d.pop("id"))

        message_count = d.pop("message_count")

        pinned = []
        _pinned = d.pop("pinned")
        for pinned_item_data in _pinned:
            pinned_item = UUID(pinned_item_data)

            pinned.append(pinned_item)

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

        token_budget = TokenBudget.from_dict(d.pop("token_budget"))

        updated_at = datetime.datetime.fromisoformat(d.pop("updated_at"))

        def _parse_capabilities(data: object) -> ModelCapabilitiesView | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                capabilities_type_0 = ModelCapabilitiesView.from_dict(data)

                return capabilities_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(ModelCapabilitiesView | None | Unset, data)

        capabilities = _parse_capabilities(d.pop("capabilities", UNSET))

        def _parse_instructions(
            data: object,
        ) -> None | Unset | WorkspaceInstructionsInfo:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                instructions_type_0 = WorkspaceInstructionsInfo.from_dict(data)

                return instructions_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | Unset | WorkspaceInstructionsInfo, data)

        instructions = _parse_instructions(d.pop("instructions", UNSET))

        def _parse_title(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        title = _parse_title(d.pop("title", UNSET))

        context_summary = cls(
            active_branch=active_branch,
            branches=branches,
            config=config,
            created_at=created_at,
            id=id,
            message_count=message_count,
            pinned=pinned,
            state=state,
            token_budget=token_budget,
            updated_at=updated_at,
            capabilities=capabilities,
            instructions=instructions,
            title=title,
        )

        context_summary.additional_properties = d
        return context_summary

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
