"""Contains all the data models used in inputs/outputs"""

from .add_mcp_server_request import AddMcpServerRequest
from .agent_role import AgentRole
from .answer_question_request import AnswerQuestionRequest
from .api_error import ApiError
from .api_error_body import ApiErrorBody
from .approval_decision import ApprovalDecision
from .approval_policy_auto_all import ApprovalPolicyAutoAll
from .approval_policy_limited_auto import ApprovalPolicyLimitedAuto
from .approval_policy_manual import ApprovalPolicyManual
from .approval_policy_white_list import ApprovalPolicyWhiteList
from .approval_request import ApprovalRequest
from .approval_response import ApprovalResponse
from .approval_status import ApprovalStatus
from .branch_info import BranchInfo
from .branch_list import BranchList
from .branch_path import BranchPath
from .capability_source import CapabilitySource
from .command_rule import CommandRule
from .compaction_record import CompactionRecord
from .conflict_kind import ConflictKind
from .conflict_message import ConflictMessage
from .conflict_resolution import ConflictResolution
from .content_delta import ContentDelta
from .content_final import ContentFinal
from .context_config import ContextConfig
from .context_config_input import ContextConfigInput
from .context_list import ContextList
from .context_list_entry import ContextListEntry
from .context_path import ContextPath
from .context_state_awaiting_llm_first_chunk import ContextStateAwaitingLlmFirstChunk
from .context_state_awaiting_tool_approval import ContextStateAwaitingToolApproval
from .context_state_awaiting_user_answer import ContextStateAwaitingUserAnswer
from .context_state_collecting_tool_results import ContextStateCollectingToolResults
from .context_state_connecting_to_llm import ContextStateConnectingToLlm
from .context_state_enhancing_system_prompt import ContextStateEnhancingSystemPrompt
from .context_state_executing_tool import ContextStateExecutingTool
from .context_state_executing_workflow import ContextStateExecutingWorkflow
from .context_state_failed import ContextStateFailed
from .context_state_idle import ContextStateIdle
from .context_state_optimizing_context import ContextStateOptimizingContext
from .context_state_parsing_tool_calls import ContextStateParsingToolCalls
from .context_state_paused import ContextStatePaused
from .context_state_preparing_llm_request import ContextStatePreparingLlmRequest
from .context_state_processing_llm_response import ContextStateProcessingLlmResponse
from .context_state_processing_tool_results import ContextStateProcessingToolResults
from .context_state_processing_user_message import ContextStateProcessingUserMessage
from .context_state_recognizing_images import ContextStateRecognizingImages
from .context_state_resolving_file_references import ContextStateResolvingFileReferences
from .context_state_streaming_llm_response import ContextStateStreamingLlmResponse
from .context_state_tool_auto_loop import ContextStateToolAutoLoop
from .context_summary import ContextSummary
from .context_update import ContextUpdate
from .context_update_metadata import ContextUpdateMetadata
from .contexts_query import ContextsQuery
from .correct_summary_request import CorrectSummaryRequest
from .count_figure import CountFigure
from .create_branch_request import CreateBranchRequest
from .create_context_request import CreateContextRequest
from .decision import Decision
from .dependency_edge import DependencyEdge
from .dependency_graph import DependencyGraph
from .dependency_node import DependencyNode
from .dependency_relation import DependencyRelation
from .dependency_scope import DependencyScope
from .directory_node import DirectoryNode
from .ecosystem import Ecosystem
from .elicitation_action import ElicitationAction
from .elicitation_path import ElicitationPath
from .error_code import ErrorCode
from .error_detail import ErrorDetail
from .error_event import ErrorEvent
from .events_query import EventsQuery
from .execution_path import ExecutionPath
from .file_change_creates import FileChangeCreates
from .file_change_deletes import FileChangeDeletes
from .file_change_overwrites import FileChangeOverwrites
from .file_change_preview import FileChangePreview
from .file_change_preview_request import FileChangePreviewRequest
from .file_change_replaces import FileChangeReplaces
from .file_change_unshowable import FileChangeUnshowable
from .file_info import FileInfo
from .file_reference_message import FileReferenceMessage
from .file_reference_payload import FileReferencePayload
from .file_resolution_failed import FileResolutionFailed
from .file_resolution_pending import FileResolutionPending
from .file_resolution_resolved import FileResolutionResolved
from .files_query import FilesQuery
from .flag_figure import FlagFigure
from .get_mcp_prompt_request import GetMcpPromptRequest
from .get_mcp_prompt_request_arguments import GetMcpPromptRequestArguments
from .health import Health
from .heartbeat import Heartbeat
from .image_message import ImageMessage
from .image_payload import ImagePayload
from .image_source_base_64 import ImageSourceBase64
from .image_source_file_path import ImageSourceFilePath
from .image_source_url import ImageSourceUrl
from .kind_name import KindName
from .last_event_id_header import LastEventIdHeader
from .ledger_part import LedgerPart
from .line_range import LineRange
from .loop_stop_reason import LoopStopReason
from .mcp_config_editing import McpConfigEditing
from .mcp_elicitation import McpElicitation
from .mcp_elicitation_list import McpElicitationList
from .mcp_elicitation_reply import McpElicitationReply
from .mcp_prompt_argument import McpPromptArgument
from .mcp_prompt_info import McpPromptInfo
from .mcp_prompt_list import McpPromptList
from .mcp_prompt_text import McpPromptText
from .mcp_resource_info import McpResourceInfo
from .mcp_resource_list import McpResourceList
from .mcp_resource_message import McpResourceMessage
from .mcp_resource_payload import McpResourcePayload
from .mcp_server_definition import McpServerDefinition
from .mcp_server_definition_env import McpServerDefinitionEnv
from .mcp_server_definition_headers import McpServerDefinitionHeaders
from .mcp_server_info import McpServerInfo
from .mcp_server_list import McpServerList
from .mcp_server_path import McpServerPath
from .mcp_server_status import McpServerStatus
from .mcp_tool_request_message import McpToolRequestMessage
from .mcp_tool_result_message_error import McpToolResultMessageError
from .mcp_tool_result_message_success import McpToolResultMessageSuccess
from .merge_conflict import MergeConflict
from .merge_held import MergeHeld
from .merge_outcome import MergeOutcome
from .merge_request import MergeRequest
from .merge_strategy_append import MergeStrategyAppend
from .merge_strategy_cherry_pick import MergeStrategyCherryPick
from .merge_strategy_name import MergeStrategyName
from .merge_strategy_rebase import MergeStrategyRebase
from .merge_strategy_summary import MergeStrategySummary
from .merge_warning import MergeWarning
from .merged_summary import MergedSummary
from .message_file_reference import MessageFileReference
from .message_file_reference_metadata import MessageFileReferenceMetadata
from .message_image import MessageImage
from .message_image_metadata import MessageImageMetadata
from .message_list import MessageList
from .message_mcp_resource import MessageMcpResource
from .message_mcp_resource_metadata import MessageMcpResourceMetadata
from .message_mcp_tool_request import MessageMcpToolRequest
from .message_mcp_tool_request_metadata import MessageMcpToolRequestMetadata
from .message_mcp_tool_result import MessageMcpToolResult
from .message_mcp_tool_result_metadata import MessageMcpToolResultMetadata
from .message_path import MessagePath
from .message_plan import MessagePlan
from .message_plan_metadata import MessagePlanMetadata
from .message_processing import MessageProcessing
from .message_processing_metadata import MessageProcessingMetadata
from .message_project_structure import MessageProjectStructure
from .message_project_structure_metadata import MessageProjectStructureMetadata
from .message_question import MessageQuestion
from .message_question_metadata import MessageQuestionMetadata
from .message_search_hit import MessageSearchHit
from .message_search_results import MessageSearchResults
from .message_status import MessageStatus
from .message_system_control import MessageSystemControl
from .message_system_control_metadata import MessageSystemControlMetadata
from .message_text import MessageText
from .message_text_metadata import MessageTextMetadata
from .message_tool_request import MessageToolRequest
from .message_tool_request_metadata import MessageToolRequestMetadata
from .message_tool_result import MessageToolResult
from .message_tool_result_metadata import MessageToolResultMetadata
from .message_update_changed import MessageUpdateChanged
from .message_update_completed import MessageUpdateCompleted
from .message_update_created import MessageUpdateCreated
from .message_update_deleted import MessageUpdateDeleted
from .message_update_status_changed import MessageUpdateStatusChanged
from .message_view import MessageView
from .message_workflow_execution import MessageWorkflowExecution
from .message_workflow_execution_metadata import MessageWorkflowExecutionMetadata
from .messages_query import MessagesQuery
from .mode import Mode
from .model_capabilities_view import ModelCapabilitiesView
from .model_list import ModelList
from .model_request_list import ModelRequestList
from .model_request_record import ModelRequestRecord
from .o_auth_callback_query import OAuthCallbackQuery
from .offered_rule import OfferedRule
from .openapi_response_200 import OpenapiResponse200
from .optimization_config import OptimizationConfig
from .optimization_config_input import OptimizationConfigInput
from .optimization_strategy_importance_scoring import (
    OptimizationStrategyImportanceScoring,
)
from .optimization_strategy_importance_scoring_weights import (
    OptimizationStrategyImportanceScoringWeights,
)
from .optimization_strategy_input_importance_scoring import (
    OptimizationStrategyInputImportanceScoring,
)
from .optimization_strategy_input_importance_scoring_weights import (
    OptimizationStrategyInputImportanceScoringWeights,
)
from .optimization_strategy_input_intelligent import (
    OptimizationStrategyInputIntelligent,
)
from .optimization_strategy_input_recent_n import OptimizationStrategyInputRecentN
from .optimization_strategy_intelligent import OptimizationStrategyIntelligent
from .optimization_strategy_recent_n import OptimizationStrategyRecentN
from .page_from import PageFrom
from .pending_call import PendingCall
from .pin_fact_request import PinFactRequest
from .plan_message import PlanMessage
from .plan_step import PlanStep
from .prepared_image import PreparedImage
from .problem import Problem
from .processing_message import ProcessingMessage
from .processor_name import ProcessorName
from .progress import Progress
from .project_structure_message_dependencies import ProjectStructureMessageDependencies
from .project_structure_message_file_list import ProjectStructureMessageFileList
from .project_structure_message_tree import ProjectStructureMessageTree
from .prompt_path import PromptPath
from .question_answer import QuestionAnswer
from .question_answer_payload import QuestionAnswerPayload
from .question_message import QuestionMessage
from .question_option import QuestionOption
from .recognition_method import RecognitionMethod
from .recognition_mode import RecognitionMode
from .recognition_result import RecognitionResult
from .refine_plan_request import RefinePlanRequest
from .request_budget import RequestBudget
from .request_path import RequestPath
from .requests_query import RequestsQuery
from .resolution import Resolution
from .resource_content_binary import ResourceContentBinary
from .resource_content_text import ResourceContentText
from .resume_response import ResumeResponse
from .role import Role
from .rule_origin import RuleOrigin
from .run_workflow_request import RunWorkflowRequest
from .run_workflow_request_parameters import RunWorkflowRequestParameters
from .sandbox_mode import SandboxMode
from .search_query import SearchQuery
from .send_message_request import SendMessageRequest
from .send_message_request_client_metadata_type_0 import (
    SendMessageRequestClientMetadataType0,
)
from .send_message_response import SendMessageResponse
from .sent_as_elided import SentAsElided
from .sent_as_summary import SentAsSummary
from .sent_as_truncated import SentAsTruncated
from .sent_as_whole import SentAsWhole
from .sent_message import SentMessage
from .server_settings import ServerSettings
from .set_mode_request import SetModeRequest
from .severity import Severity
from .skip_reason import SkipReason
from .skipped_message import SkippedMessage
from .state_query import StateQuery
from .state_response import StateResponse
from .state_transition import StateTransition
from .system_control_message_branch_merge import SystemControlMessageBranchMerge
from .system_control_message_branch_switch import SystemControlMessageBranchSwitch
from .system_control_message_compaction import SystemControlMessageCompaction
from .system_control_message_failure_resolved import SystemControlMessageFailureResolved
from .system_control_message_loop_stopped import SystemControlMessageLoopStopped
from .system_control_message_mode_change import SystemControlMessageModeChange
from .system_control_message_pinned_fact import SystemControlMessagePinnedFact
from .system_control_message_recovered import SystemControlMessageRecovered
from .system_control_message_role_change import SystemControlMessageRoleChange
from .system_control_message_summary import SystemControlMessageSummary
from .text_message import TextMessage
from .text_part_reasoning import TextPartReasoning
from .text_part_text import TextPartText
from .text_payload import TextPayload
from .token_budget import TokenBudget
from .tool_call import ToolCall
from .tool_calling import ToolCalling
from .tool_calling_figure import ToolCallingFigure
from .tool_example import ToolExample
from .tool_info import ToolInfo
from .tool_list import ToolList
from .tool_request_message import ToolRequestMessage
from .tool_result_message_error import ToolResultMessageError
from .tool_result_message_success import ToolResultMessageSuccess
from .tool_result_payload import ToolResultPayload
from .tool_source import ToolSource
from .tools_part import ToolsPart
from .turn_completed import TurnCompleted
from .turn_outcome import TurnOutcome
from .turn_path import TurnPath
from .turn_status import TurnStatus
from .turn_view import TurnView
from .update_branch_request import UpdateBranchRequest
from .update_context_request import UpdateContextRequest
from .view_marker import ViewMarker
from .view_marker_kind import ViewMarkerKind
from .warning_kind import WarningKind
from .workflow_execution_message import WorkflowExecutionMessage
from .workflow_info import WorkflowInfo
from .workflow_list import WorkflowList
from .workflow_origin import WorkflowOrigin
from .workflow_path import WorkflowPath
from .workflow_payload import WorkflowPayload
from .workflow_payload_parameters import WorkflowPayloadParameters
from .workflow_run_response import WorkflowRunResponse
from .workflow_status import WorkflowStatus
from .workflow_step_info import WorkflowStepInfo
from .workflow_step_type import WorkflowStepType
from .workflows_query import WorkflowsQuery
from .workspace_file_list import WorkspaceFileList
from .workspace_instructions_info import WorkspaceInstructionsInfo

__all__ = (
    "AddMcpServerRequest",
    "AgentRole",
    "AnswerQuestionRequest",
    "ApiError",
    "ApiErrorBody",
    "ApprovalDecision",
    "ApprovalPolicyAutoAll",
    "ApprovalPolicyLimitedAuto",
    "ApprovalPolicyManual",
    "ApprovalPolicyWhiteList",
    "ApprovalRequest",
    "ApprovalResponse",
    "ApprovalStatus",
    "BranchInfo",
    "BranchList",
    "BranchPath",
    "CapabilitySource",
    "CommandRule",
    "CompactionRecord",
    "ConflictKind",
    "ConflictMessage",
    "ConflictResolution",
    "ContentDelta",
    "ContentFinal",
    "ContextConfig",
    "ContextConfigInput",
    "ContextList",
    "ContextListEntry",
    "ContextPath",
    "ContextStateAwaitingLlmFirstChunk",
    "ContextStateAwaitingToolApproval",
    "ContextStateAwaitingUserAnswer",
    "ContextStateCollectingToolResults",
    "ContextStateConnectingToLlm",
    "ContextStateEnhancingSystemPrompt",
    "ContextStateExecutingTool",
    "ContextStateExecutingWorkflow",
    "ContextStateFailed",
    "ContextStateIdle",
    "ContextStateOptimizingContext",
    "ContextStateParsingToolCalls",
    "ContextStatePaused",
    "ContextStatePreparingLlmRequest",
    "ContextStateProcessingLlmResponse",
    "ContextStateProcessingToolResults",
    "ContextStateProcessingUserMessage",
    "ContextStateRecognizingImages",
    "ContextStateResolvingFileReferences",
    "ContextStateStreamingLlmResponse",
    "ContextStateToolAutoLoop",
    "ContextSummary",
    "ContextUpdate",
    "ContextUpdateMetadata",
    "ContextsQuery",
    "CorrectSummaryRequest",
    "CountFigure",
    "CreateBranchRequest",
    "CreateContextRequest",
    "Decision",
    "DependencyEdge",
    "DependencyGraph",
    "DependencyNode",
    "DependencyRelation",
    "DependencyScope",
    "DirectoryNode",
    "Ecosystem",
    "ElicitationAction",
    "ElicitationPath",
    "ErrorCode",
    "ErrorDetail",
    "ErrorEvent",
    "EventsQuery",
    "ExecutionPath",
    "FileChangeCreates",
    "FileChangeDeletes",
    "FileChangeOverwrites",
    "FileChangePreview",
    "FileChangePreviewRequest",
    "FileChangeReplaces",
    "FileChangeUnshowable",
    "FileInfo",
    "FileReferenceMessage",
    "FileReferencePayload",
    "FileResolutionFailed",
    "FileResolutionPending",
    "FileResolutionResolved",
    "FilesQuery",
    "FlagFigure",
    "GetMcpPromptRequest",
    "GetMcpPromptRequestArguments",
    "Health",
    "Heartbeat",
    "ImageMessage",
    "ImagePayload",
    "ImageSourceBase64",
    "ImageSourceFilePath",
    "ImageSourceUrl",
    "KindName",
    "LastEventIdHeader",
    "LedgerPart",
    "LineRange",
    "LoopStopReason",
    "McpConfigEditing",
    "McpElicitation",
    "McpElicitationList",
    "McpElicitationReply",
    "McpPromptArgument",
    "McpPromptInfo",
    "McpPromptList",
    "McpPromptText",
    "McpResourceInfo",
    "McpResourceList",
    "McpResourceMessage",
    "McpResourcePayload",
    "McpServerDefinition",
    "McpServerDefinitionEnv",
    "McpServerDefinitionHeaders",
    "McpServerInfo",
    "McpServerList",
    "McpServerPath",
    "McpServerStatus",
    "McpToolRequestMessage",
    "McpToolResultMessageError",
    "McpToolResultMessageSuccess",
    "MergeConflict",
    "MergeHeld",
    "MergeOutcome",
    "MergeRequest",
    "MergeStrategyAppend",
    "MergeStrategyCherryPick",
    "MergeStrategyName",
    "MergeStrategyRebase",
    "MergeStrategySummary",
    "MergeWarning",
    "MergedSummary",
    "MessageFileReference",
    "MessageFileReferenceMetadata",
    "MessageImage",
    "MessageImageMetadata",
    "MessageList",
    "MessageMcpResource",
    "MessageMcpResourceMetadata",
    "MessageMcpToolRequest",
    "MessageMcpToolRequestMetadata",
    "MessageMcpToolResult",
    "MessageMcpToolResultMetadata",
    "MessagePath",
    "MessagePlan",
    "MessagePlanMetadata",
    "MessageProcessing",
    "MessageProcessingMetadata",
    "MessageProjectStructure",
    "MessageProjectStructureMetadata",
    "MessageQuestion",
    "MessageQuestionMetadata",
    "MessageSearchHit",
    "MessageSearchResults",
    "MessageStatus",
    "MessageSystemControl",
    "MessageSystemControlMetadata",
    "MessageText",
    "MessageTextMetadata",
    "MessageToolRequest",
    "MessageToolRequestMetadata",
    "MessageToolResult",
    "MessageToolResultMetadata",
    "MessageUpdateChanged",
    "MessageUpdateCompleted",
    "MessageUpdateCreated",
    "MessageUpdateDeleted",
    "MessageUpdateStatusChanged",
    "MessageView",
    "MessageWorkflowExecution",
    "MessageWorkflowExecutionMetadata",
    "MessagesQuery",
    "Mode",
    "ModelCapabilitiesView",
    "ModelList",
    "ModelRequestList",
    "ModelRequestRecord",
    "OAuthCallbackQuery",
    "OfferedRule",
    "OpenapiResponse200",
    "OptimizationConfig",
    "OptimizationConfigInput",
    "OptimizationStrategyImportanceScoring",
    "OptimizationStrategyImportanceScoringWeights",
    "OptimizationStrategyInputImportanceScoring",
    "OptimizationStrategyInputImportanceScoringWeights",
    "OptimizationStrategyInputIntelligent",
    "OptimizationStrategyInputRecentN",
    "OptimizationStrategyIntelligent",
    "OptimizationStrategyRecentN",
    "PageFrom",
    "PendingCall",
    "PinFactRequest",
    "PlanMessage",
    "PlanStep",
    "PreparedImage",
    "Problem",
    "ProcessingMessage",
    "ProcessorName",
    "Progress",
    "ProjectStructureMessageDependencies",
    "ProjectStructureMessageFileList",
    "ProjectStructureMessageTree",
    "PromptPath",
    "QuestionAnswer",
    "QuestionAnswerPayload",
    "QuestionMessage",
    "QuestionOption",
    "RecognitionMethod",
    "RecognitionMode",
    "RecognitionResult",
    "RefinePlanRequest",
    "RequestBudget",
    "RequestPath",
    "RequestsQuery",
    "Resolution",
    "ResourceContentBinary",
    "ResourceContentText",
    "ResumeResponse",
    "Role",
    "RuleOrigin",
    "RunWorkflowRequest",
    "RunWorkflowRequestParameters",
    "SandboxMode",
    "SearchQuery",
    "SendMessageRequest",
    "SendMessageRequestClientMetadataType0",
    "SendMessageResponse",
    "SentAsElided",
    "SentAsSummary",
    "SentAsTruncated",
    "SentAsWhole",
    "SentMessage",
    "ServerSettings",
    "SetModeRequest",
    "Severity",
    "SkipReason",
    "SkippedMessage",
    "StateQuery",
    "StateResponse",
    "StateTransition",
    "SystemControlMessageBranchMerge",
    "SystemControlMessageBranchSwitch",
    "SystemControlMessageCompaction",
    "SystemControlMessageFailureResolved",
    "SystemControlMessageLoopStopped",
    "SystemControlMessageModeChange",
    "SystemControlMessagePinnedFact",
    "SystemControlMessageRecovered",
    "SystemControlMessageRoleChange",
    "SystemControlMessageSummary",
    "TextMessage",
    "TextPartReasoning",
    "TextPartText",
    "TextPayload",
    "TokenBudget",
    "ToolCall",
    "ToolCalling",
    "ToolCallingFigure",
    "ToolExample",
    "ToolInfo",
    "ToolList",
    "ToolRequestMessage",
    "ToolResultMessageError",
    "ToolResultMessageSuccess",
    "ToolResultPayload",
    "ToolSource",
    "ToolsPart",
    "TurnCompleted",
    "TurnOutcome",
    "TurnPath",
    "TurnStatus",
    "TurnView",
    "UpdateBranchRequest",
    "UpdateContextRequest",
    "ViewMarker",
    "ViewMarkerKind",
    "WarningKind",
    "WorkflowExecutionMessage",
    "WorkflowInfo",
    "WorkflowList",
    "WorkflowOrigin",
    "WorkflowPath",
    "WorkflowPayload",
    "WorkflowPayloadParameters",
    "WorkflowRunResponse",
    "WorkflowStatus",
    "WorkflowStepInfo",
    "WorkflowStepType",
    "WorkflowsQuery",
    "WorkspaceFileList",
    "WorkspaceInstructionsInfo",
)
