//! The context's state machine (seed 001 "Fine-Grained State Machine"): one enum whose variant
//! says what the context is doing and whose data says how far it got, and the table of allowed
//! moves that the engine and the tests share.

use std::fmt;

use chrono::{DateTime, Utc};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
#[cfg(test)]
use ts_rs::TS;

use crate::ids::{MessageId, ToolCallId};

/// The command rule "approve for this session" on one waiting call would add.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[cfg_attr(test, derive(TS))]
pub struct OfferedRule {
    /// The waiting call.
    pub call_id: ToolCallId,
    /// The rule its approval for the session adds to the context's `command_rules`.
    pub rule: crate::CommandRule,
}

/// What a context is doing. Tagged by `type` in JSON, e.g.
/// `{"type":"streaming_llm_response","chunks":3,"chars":120}`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[cfg_attr(test, derive(TS))]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ContextState {
    /// Nothing running; ready for a message.
    #[default]
    Idle,
    /// Validating and parsing a new message.
    ProcessingUserMessage,
    /// Reading referenced files.
    ResolvingFileReferences {
        /// References to read.
        total: u32,
    },
    /// Recognizing images (vision or OCR).
    RecognizingImages {
        /// Images to recognize.
        total: u32,
    },
    /// Building the system prompt (mode, role, workspace, tools).
    EnhancingSystemPrompt,
    /// Checking the request against the token budget, trimming if needed.
    OptimizingContext,
    /// Building the provider request.
    PreparingLlmRequest,
    /// Connecting to the model.
    ConnectingToLlm {
        /// 1 for the first try, more when retrying a transient failure.
        attempt: u32,
        /// Why the previous attempt failed, on a retry.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[cfg_attr(test, ts(optional))]
        reason: Option<String>,
        /// How long the retry waits before it connects, in milliseconds.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[cfg_attr(test, ts(optional))]
        wait_ms: Option<u64>,
    },
    /// Connected; waiting for the first chunk.
    AwaitingLlmFirstChunk,
    /// Receiving the answer.
    StreamingLlmResponse {
        /// Chunks received so far.
        chunks: u32,
        /// Characters of text received so far.
        chars: u64,
    },
    /// The stream ended; storing the answer and looking for tool calls, plans and questions.
    ProcessingLlmResponse,
    /// Turning the model's tool calls into requests.
    ParsingToolCalls,
    /// A round of the tool loop is starting.
    ToolAutoLoop {
        /// The round, from 1.
        depth: u32,
        /// Tools executed in this loop so far.
        tools_executed: u32,
    },
    /// Waiting for a person to approve or deny calls.
    AwaitingToolApproval {
        /// The calls waiting for a decision.
        pending_requests: Vec<ToolCallId>,
        /// Their tools' names, in the same order.
        tool_names: Vec<String>,
        /// The command rule "approve for this session" would add, for each waiting
        /// `run_command` call a rule can describe (`cargo test` for `cargo test -q`).
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        #[cfg_attr(test, ts(as = "Option<Vec<OfferedRule>>", optional))]
        offered_rules: Vec<OfferedRule>,
    },
    /// Running a tool: "Executing tool 2/5: read_file".
    ExecutingTool {
        /// The tool running.
        tool_name: String,
        /// Its position in this round, from 1.
        index: u32,
        /// Calls in this round.
        total: u32,
        /// 1 for the first try, more when the call is tried again after a transient failure
        /// (its MCP server was reconnecting).
        attempt: u32,
        /// Calls of this round finished so far: a batch run together reports each call as it
        /// starts and again as it finishes (with this count one higher).
        #[serde(default, skip_serializing_if = "is_zero")]
        #[cfg_attr(test, ts(as = "Option<u32>", optional))]
        finished: u32,
    },
    /// Gathering the round's results.
    CollectingToolResults,
    /// Storing and formatting the round's results for the model.
    ProcessingToolResults,
    /// The agent asked a question; waiting for the person's answer.
    AwaitingUserAnswer {
        /// The `question` message.
        question_id: MessageId,
    },
    /// Running a workflow step.
    ExecutingWorkflow {
        /// The workflow.
        workflow_name: String,
        /// The run.
        execution_id: String,
        /// The step running, from 1.
        step: u32,
        /// Steps in all.
        total: u32,
    },
    /// The tool loop stopped before the model was done; `resume` continues it.
    Paused {
        /// Why it stopped.
        reason: LoopStopReason,
        /// Rounds completed.
        depth: u32,
        /// Tools executed.
        tools_executed: u32,
    },
    /// Something failed. A new message (or `resume`, when recoverable) goes on from here.
    Failed {
        /// What failed.
        error: String,
        /// Whether retrying can succeed.
        recoverable: bool,
    },
}

/// Why a tool loop stopped before the model finished.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[cfg_attr(test, derive(TS))]
#[serde(rename_all = "snake_case")]
pub enum LoopStopReason {
    /// The policy's `max_depth` rounds were used.
    DepthLimit,
    /// An iteration took longer than the configured timeout.
    Timeout,
    /// The person interrupted.
    Interrupted,
    /// The model repeated the same call (tool and arguments) in a cycle.
    CycleDetected,
}

impl fmt::Display for LoopStopReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            LoopStopReason::DepthLimit => "depth limit reached",
            LoopStopReason::Timeout => "iteration timed out",
            LoopStopReason::Interrupted => "interrupted",
            LoopStopReason::CycleDetected => "repeated call detected",
        })
    }
}

/// A state's variant without its data: the vocabulary of the transition table.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, JsonSchema,
)]
#[cfg_attr(test, derive(TS))]
#[serde(rename_all = "snake_case")]
#[allow(missing_docs)]
pub enum StateKind {
    Idle,
    ProcessingUserMessage,
    ResolvingFileReferences,
    RecognizingImages,
    EnhancingSystemPrompt,
    OptimizingContext,
    PreparingLlmRequest,
    ConnectingToLlm,
    AwaitingLlmFirstChunk,
    StreamingLlmResponse,
    ProcessingLlmResponse,
    ParsingToolCalls,
    ToolAutoLoop,
    AwaitingToolApproval,
    ExecutingTool,
    CollectingToolResults,
    ProcessingToolResults,
    AwaitingUserAnswer,
    ExecutingWorkflow,
    Paused,
    Failed,
}

impl StateKind {
    /// Every state kind.
    pub const ALL: [StateKind; 21] = [
        StateKind::Idle,
        StateKind::ProcessingUserMessage,
        StateKind::ResolvingFileReferences,
        StateKind::RecognizingImages,
        StateKind::EnhancingSystemPrompt,
        StateKind::OptimizingContext,
        StateKind::PreparingLlmRequest,
        StateKind::ConnectingToLlm,
        StateKind::AwaitingLlmFirstChunk,
        StateKind::StreamingLlmResponse,
        StateKind::ProcessingLlmResponse,
        StateKind::ParsingToolCalls,
        StateKind::ToolAutoLoop,
        StateKind::AwaitingToolApproval,
        StateKind::ExecutingTool,
        StateKind::CollectingToolResults,
        StateKind::ProcessingToolResults,
        StateKind::AwaitingUserAnswer,
        StateKind::ExecutingWorkflow,
        StateKind::Paused,
        StateKind::Failed,
    ];

    /// The name as it appears in JSON (`streaming_llm_response`).
    pub fn as_str(self) -> &'static str {
        use StateKind::*;
        match self {
            Idle => "idle",
            ProcessingUserMessage => "processing_user_message",
            ResolvingFileReferences => "resolving_file_references",
            RecognizingImages => "recognizing_images",
            EnhancingSystemPrompt => "enhancing_system_prompt",
            OptimizingContext => "optimizing_context",
            PreparingLlmRequest => "preparing_llm_request",
            ConnectingToLlm => "connecting_to_llm",
            AwaitingLlmFirstChunk => "awaiting_llm_first_chunk",
            StreamingLlmResponse => "streaming_llm_response",
            ProcessingLlmResponse => "processing_llm_response",
            ParsingToolCalls => "parsing_tool_calls",
            ToolAutoLoop => "tool_auto_loop",
            AwaitingToolApproval => "awaiting_tool_approval",
            ExecutingTool => "executing_tool",
            CollectingToolResults => "collecting_tool_results",
            ProcessingToolResults => "processing_tool_results",
            AwaitingUserAnswer => "awaiting_user_answer",
            ExecutingWorkflow => "executing_workflow",
            Paused => "paused",
            Failed => "failed",
        }
    }

    /// Whether a context may stay in this state while nothing runs, e.g. across a restart:
    /// it waits for a person, not for an operation.
    pub fn is_resting(self) -> bool {
        matches!(
            self,
            StateKind::Idle
                | StateKind::AwaitingToolApproval
                | StateKind::AwaitingUserAnswer
                | StateKind::Paused
                | StateKind::Failed
        )
    }

    /// The states this one may move to (besides `failed`, which every state may move to: a
    /// failure while failed records the newer error). This is the transition table, as data.
    pub fn successors(self) -> &'static [StateKind] {
        use StateKind::*;
        match self {
            Idle => &[
                ProcessingUserMessage,
                EnhancingSystemPrompt,
                ExecutingWorkflow,
            ],
            ProcessingUserMessage => &[
                ResolvingFileReferences,
                RecognizingImages,
                EnhancingSystemPrompt,
                OptimizingContext,
                PreparingLlmRequest,
                Idle,
                ExecutingWorkflow,
            ],
            ResolvingFileReferences => &[
                ResolvingFileReferences,
                RecognizingImages,
                EnhancingSystemPrompt,
                OptimizingContext,
                PreparingLlmRequest,
                Idle,
                ExecutingWorkflow,
            ],
            RecognizingImages => &[
                RecognizingImages,
                EnhancingSystemPrompt,
                OptimizingContext,
                PreparingLlmRequest,
                Idle,
                ExecutingWorkflow,
            ],
            EnhancingSystemPrompt => &[
                OptimizingContext,
                PreparingLlmRequest,
                Idle,
                ExecutingWorkflow,
            ],
            OptimizingContext => &[PreparingLlmRequest, Idle, ExecutingWorkflow],
            PreparingLlmRequest => &[ConnectingToLlm, Idle, ExecutingWorkflow],
            ConnectingToLlm => &[ConnectingToLlm, AwaitingLlmFirstChunk, ExecutingWorkflow],
            // The model server refused the images of the request: they are read with OCR and
            // the request is prepared again.
            AwaitingLlmFirstChunk => &[
                StreamingLlmResponse,
                ProcessingLlmResponse,
                ConnectingToLlm,
                RecognizingImages,
                Idle,
                ExecutingWorkflow,
            ],
            StreamingLlmResponse => &[
                StreamingLlmResponse,
                ProcessingLlmResponse,
                Idle,
                ExecutingWorkflow,
            ],
            ProcessingLlmResponse => &[
                Idle,
                ParsingToolCalls,
                AwaitingUserAnswer,
                ExecutingWorkflow,
            ],
            ParsingToolCalls => &[
                ToolAutoLoop,
                AwaitingToolApproval,
                ExecutingTool,
                CollectingToolResults,
                Paused,
            ],
            ToolAutoLoop => &[
                AwaitingToolApproval,
                ExecutingTool,
                CollectingToolResults,
                Paused,
            ],
            AwaitingToolApproval => &[
                AwaitingToolApproval,
                ExecutingTool,
                CollectingToolResults,
                Paused,
                ExecutingWorkflow,
            ],
            ExecutingTool => &[ExecutingTool, CollectingToolResults, ExecutingWorkflow],
            CollectingToolResults => &[ProcessingToolResults],
            ProcessingToolResults => &[
                EnhancingSystemPrompt,
                OptimizingContext,
                PreparingLlmRequest,
                AwaitingUserAnswer,
                Paused,
                Idle,
                ExecutingWorkflow,
            ],
            AwaitingUserAnswer => &[ProcessingUserMessage, Idle, ExecutingWorkflow],
            // A run moves between its steps' operations: a tool step waits for approval or
            // executes, a prompt step goes through the pipeline and the model.
            ExecutingWorkflow => &[
                ExecutingWorkflow,
                Idle,
                ProcessingUserMessage,
                EnhancingSystemPrompt,
                OptimizingContext,
                PreparingLlmRequest,
                AwaitingToolApproval,
                ExecutingTool,
            ],
            Paused => &[
                ProcessingUserMessage,
                EnhancingSystemPrompt,
                ToolAutoLoop,
                AwaitingToolApproval,
                ExecutingTool,
                Idle,
                ExecutingWorkflow,
            ],
            Failed => &[
                ProcessingUserMessage,
                EnhancingSystemPrompt,
                ToolAutoLoop,
                Idle,
                ExecutingWorkflow,
            ],
        }
    }

    /// Whether the table allows moving from `self` to `to`.
    pub fn can_move_to(self, to: StateKind) -> bool {
        to == StateKind::Failed || self.successors().contains(&to)
    }
}

impl fmt::Display for StateKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl ContextState {
    /// The variant without its data.
    pub fn kind(&self) -> StateKind {
        match self {
            ContextState::Idle => StateKind::Idle,
            ContextState::ProcessingUserMessage => StateKind::ProcessingUserMessage,
            ContextState::ResolvingFileReferences { .. } => StateKind::ResolvingFileReferences,
            ContextState::RecognizingImages { .. } => StateKind::RecognizingImages,
            ContextState::EnhancingSystemPrompt => StateKind::EnhancingSystemPrompt,
            ContextState::OptimizingContext => StateKind::OptimizingContext,
            ContextState::PreparingLlmRequest => StateKind::PreparingLlmRequest,
            ContextState::ConnectingToLlm { .. } => StateKind::ConnectingToLlm,
            ContextState::AwaitingLlmFirstChunk => StateKind::AwaitingLlmFirstChunk,
            ContextState::StreamingLlmResponse { .. } => StateKind::StreamingLlmResponse,
            ContextState::ProcessingLlmResponse => StateKind::ProcessingLlmResponse,
            ContextState::ParsingToolCalls => StateKind::ParsingToolCalls,
            ContextState::ToolAutoLoop { .. } => StateKind::ToolAutoLoop,
            ContextState::AwaitingToolApproval { .. } => StateKind::AwaitingToolApproval,
            ContextState::ExecutingTool { .. } => StateKind::ExecutingTool,
            ContextState::CollectingToolResults => StateKind::CollectingToolResults,
            ContextState::ProcessingToolResults => StateKind::ProcessingToolResults,
            ContextState::AwaitingUserAnswer { .. } => StateKind::AwaitingUserAnswer,
            ContextState::ExecutingWorkflow { .. } => StateKind::ExecutingWorkflow,
            ContextState::Paused { .. } => StateKind::Paused,
            ContextState::Failed { .. } => StateKind::Failed,
        }
    }

    /// Checks a move against the transition table.
    pub fn check_transition(&self, to: &ContextState) -> Result<(), InvalidTransition> {
        let (from, to) = (self.kind(), to.kind());
        if from.can_move_to(to) {
            Ok(())
        } else {
            Err(InvalidTransition { from, to })
        }
    }
}

fn is_zero(n: &u32) -> bool {
    *n == 0
}

/// A move the transition table does not allow.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("a context cannot move from `{from}` to `{to}`")]
pub struct InvalidTransition {
    /// Where it was.
    pub from: StateKind,
    /// Where it was asked to go.
    pub to: StateKind,
}

/// One recorded move, for the transition history (`GET .../state?history=true`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[cfg_attr(test, derive(TS))]
pub struct StateTransition {
    /// The state before.
    pub from: ContextState,
    /// The state after.
    pub to: ContextState,
    /// When it happened.
    pub at: DateTime<Utc>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn state_json_is_tagged_by_type_with_its_data() {
        let s = ContextState::StreamingLlmResponse {
            chunks: 3,
            chars: 120,
        };
        assert_eq!(
            serde_json::to_value(&s).unwrap(),
            serde_json::json!({"type":"streaming_llm_response","chunks":3,"chars":120})
        );
        assert_eq!(
            serde_json::to_value(ContextState::Idle).unwrap(),
            serde_json::json!({"type":"idle"})
        );
    }

    #[test]
    fn kind_names_match_the_serialized_tags() {
        let samples = [
            ContextState::Idle,
            ContextState::ConnectingToLlm {
                attempt: 1,
                reason: None,
                wait_ms: None,
            },
            ContextState::ExecutingTool {
                tool_name: "read_file".into(),
                index: 2,
                total: 5,
                attempt: 1,
                finished: 0,
            },
            ContextState::Failed {
                error: "x".into(),
                recoverable: true,
            },
        ];
        for s in samples {
            let v = serde_json::to_value(&s).unwrap();
            assert_eq!(v["type"], s.kind().as_str());
        }
    }
}
