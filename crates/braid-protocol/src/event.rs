//! Events a context emits (DESIGN.md "Events and the HTTP API"), streamed to clients over SSE
//! with the event's name as the SSE `event:` and its payload as `data:`.

use chrono::{DateTime, Utc};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
#[cfg(test)]
use ts_rs::TS;

use crate::ids::{BranchName, ContextId, ContextTurnId, MessageId, ToolCallId};
use crate::kinds::KindName;
use crate::message::{MessageStatus, Metadata};
use crate::role::Role;
use crate::state::ContextState;

/// Any event of a context. In JSON (as stored in the event log) the name is `type` and the
/// payload's fields sit beside it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[cfg_attr(test, derive(TS))]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ContextEvent {
    /// The state changed, or a message was created, changed status or completed.
    ContextUpdate(ContextUpdate),
    /// A piece of streamed text.
    ContentDelta(ContentDelta),
    /// The end of a streamed message.
    ContentFinal(ContentFinal),
    /// Something went wrong that the person should know.
    Error(ErrorEvent),
    /// Keeps idle connections open (every 15 s).
    Heartbeat(Heartbeat),
    /// A turn ended, and how: once per turn, its last event.
    TurnCompleted(TurnCompleted),
}

impl ContextEvent {
    /// The SSE event name (`context_update`, `content_delta`, ...).
    pub fn name(&self) -> &'static str {
        match self {
            ContextEvent::ContextUpdate(_) => "context_update",
            ContextEvent::ContentDelta(_) => "content_delta",
            ContextEvent::ContentFinal(_) => "content_final",
            ContextEvent::Error(_) => "error",
            ContextEvent::Heartbeat(_) => "heartbeat",
            ContextEvent::TurnCompleted(_) => "turn_completed",
        }
    }

    /// The payload alone, as the SSE `data:` line carries it.
    pub fn payload_json(&self) -> String {
        let payload = match self {
            ContextEvent::ContextUpdate(e) => serde_json::to_string(e),
            ContextEvent::ContentDelta(e) => serde_json::to_string(e),
            ContextEvent::ContentFinal(e) => serde_json::to_string(e),
            ContextEvent::Error(e) => serde_json::to_string(e),
            ContextEvent::Heartbeat(e) => serde_json::to_string(e),
            ContextEvent::TurnCompleted(e) => serde_json::to_string(e),
        };
        // These payloads hold only strings, numbers and maps with string keys: they always
        // serialize.
        payload.unwrap_or_default()
    }

    /// Marks the event as one of `turn`, working on `branch` (a `heartbeat` belongs to no
    /// turn; a `turn_completed` names its own).
    pub fn stamp_turn(&mut self, turn: ContextTurnId, branch: &BranchName) {
        let (turn_id, on) = match self {
            ContextEvent::ContextUpdate(e) => (&mut e.turn_id, &mut e.branch),
            ContextEvent::ContentDelta(e) => (&mut e.turn_id, &mut e.branch),
            ContextEvent::ContentFinal(e) => (&mut e.turn_id, &mut e.branch),
            ContextEvent::Error(e) => (&mut e.turn_id, &mut e.branch),
            ContextEvent::Heartbeat(_) | ContextEvent::TurnCompleted(_) => return,
        };
        *turn_id = Some(turn);
        *on = Some(branch.clone());
    }

    /// The turn the event belongs to, if any.
    pub fn turn_id(&self) -> Option<ContextTurnId> {
        match self {
            ContextEvent::ContextUpdate(e) => e.turn_id,
            ContextEvent::ContentDelta(e) => e.turn_id,
            ContextEvent::ContentFinal(e) => e.turn_id,
            ContextEvent::Error(e) => e.turn_id,
            ContextEvent::TurnCompleted(e) => Some(e.turn_id),
            ContextEvent::Heartbeat(_) => None,
        }
    }
}

/// A state change and/or a message lifecycle change. Carries no large text.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[cfg_attr(test, derive(TS))]
pub struct ContextUpdate {
    /// The context.
    pub context_id: ContextId,
    /// The state now.
    pub current_state: ContextState,
    /// The state before, when this update is a state change.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(test, ts(optional))]
    pub previous_state: Option<ContextState>,
    /// The message change, when there was one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(test, ts(optional))]
    pub message_update: Option<MessageUpdate>,
    /// When it happened.
    pub timestamp: DateTime<Utc>,
    /// Lightweight details (e.g. an optimization's token counts).
    #[serde(default)]
    #[cfg_attr(test, ts(type = "Record<string, unknown>"))]
    pub metadata: Metadata,
    /// The calls waiting for a decision, with their tools and arguments: set when this update
    /// moves the context to `awaiting_tool_approval`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[cfg_attr(test, ts(as = "Option<Vec<PendingCall>>", optional))]
    pub pending_calls: Vec<PendingCall>,
    /// The turn this event belongs to, when one was running (see `turn_completed`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(test, ts(optional))]
    pub turn_id: Option<ContextTurnId>,
    /// The branch that turn works on.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(test, ts(optional))]
    pub branch: Option<BranchName>,
}

/// A tool call waiting for a person's decision, as the approval's `context_update` lists it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[cfg_attr(test, derive(TS))]
pub struct PendingCall {
    /// The call, as an approval names it.
    pub call_id: ToolCallId,
    /// The tool it calls.
    pub tool_name: String,
    /// The arguments the model gave (as parsed; the raw text when they are not JSON).
    #[cfg_attr(test, ts(type = "unknown"))]
    pub arguments: serde_json::Value,
}

/// A message's lifecycle step (seed 001 "Message lifecycle updates").
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[cfg_attr(test, derive(TS))]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum MessageUpdate {
    /// The message was added.
    Created {
        /// Its id.
        message_id: MessageId,
        /// Its kind.
        kind: KindName,
        /// Its role.
        role: Role,
    },
    /// Its status changed.
    StatusChanged {
        /// Its id.
        message_id: MessageId,
        /// Its kind.
        kind: KindName,
        /// The new status.
        status: MessageStatus,
    },
    /// It is final.
    Completed {
        /// Its id.
        message_id: MessageId,
        /// Its kind.
        kind: KindName,
    },
    /// Its content or metadata changed outside a turn (pinned, unpinned, a summary
    /// corrected): read it again.
    Changed {
        /// Its id.
        message_id: MessageId,
        /// Its kind.
        kind: KindName,
    },
    /// It was deleted (input that failed or waited, removed by the person).
    Deleted {
        /// Its id.
        message_id: MessageId,
        /// Its kind.
        kind: KindName,
    },
}

/// A piece of streamed text.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[cfg_attr(test, derive(TS))]
pub struct ContentDelta {
    /// The context.
    pub context_id: ContextId,
    /// The message being streamed.
    pub message_id: MessageId,
    /// The piece's position in this message's stream, from 1.
    pub sequence: u64,
    /// The text.
    pub delta: String,
    /// Always `false` for a delta (the contract's marker).
    pub is_final: bool,
    /// The turn this event belongs to, when one was running (see `turn_completed`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(test, ts(optional))]
    pub turn_id: Option<ContextTurnId>,
    /// The branch that turn works on.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(test, ts(optional))]
    pub branch: Option<BranchName>,
}

/// The end of a streamed message; its full text is stored before this is emitted.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[cfg_attr(test, derive(TS))]
pub struct ContentFinal {
    /// The context.
    pub context_id: ContextId,
    /// The message.
    pub message_id: MessageId,
    /// The last sequence number sent for it.
    pub sequence: u64,
    /// Always `true`.
    pub is_final: bool,
    /// The turn this event belongs to, when one was running (see `turn_completed`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(test, ts(optional))]
    pub turn_id: Option<ContextTurnId>,
    /// The branch that turn works on.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(test, ts(optional))]
    pub branch: Option<BranchName>,
}

/// An error the person should see, and whether they can go on.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[cfg_attr(test, derive(TS))]
pub struct ErrorEvent {
    /// The context.
    pub context_id: ContextId,
    /// What kind of error.
    pub code: ErrorCode,
    /// What happened and what to do, in words.
    pub message: String,
    /// Whether retrying or continuing can succeed.
    pub recoverable: bool,
    /// The turn this event belongs to, when one was running (see `turn_completed`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(test, ts(optional))]
    pub turn_id: Option<ContextTurnId>,
    /// The branch that turn works on.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(test, ts(optional))]
    pub branch: Option<BranchName>,
}

/// Error categories shared by events and API errors.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[cfg_attr(test, derive(TS))]
#[serde(rename_all = "snake_case")]
pub enum ErrorCode {
    /// No model is configured (which variables to set is in the message).
    LlmNotConfigured,
    /// The model could not be reached.
    LlmUnavailable,
    /// The model's provider refused the request.
    LlmRejected,
    /// The stream ended before the answer did.
    StreamInterrupted,
    /// The person interrupted the operation before it finished (input whose pipeline step was
    /// stopped carries it: retry it to send it again).
    Interrupted,
    /// A tool failed.
    ToolFailed,
    /// Something took longer than allowed.
    Timeout,
    /// A message or request did not validate.
    InvalidInput,
    /// A referenced file could not be read.
    FileReference,
    /// An image could not be loaded or recognized (the message says why).
    ImageRecognition,
    /// Reading or writing the store failed.
    StorageFailed,
    /// Not found.
    NotFound,
    /// Conflicts with the current state (e.g. approving a call that is not pending).
    Conflict,
    /// Authentication missing or wrong.
    Unauthorized,
    /// The server's guard refused the request: a foreign `Host` or `Origin` header.
    Forbidden,
    /// The request body is not of an accepted type (bodies must be JSON).
    UnsupportedMediaType,
    /// The request body is too large.
    PayloadTooLarge,
    /// The route has no such method (the `Allow` header lists the ones it has).
    MethodNotAllowed,
    /// A bug or an unexpected failure.
    Internal,
    /// A client resumed an event stream after an id this context's log does not hold (the
    /// database was restored, or the context recreated): the client must reload the context's
    /// messages; the stream continues live.
    ResumePointUnknown,
}

/// Keeps a connection alive.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[cfg_attr(test, derive(TS))]
pub struct Heartbeat {
    /// When it was sent.
    pub timestamp: DateTime<Utc>,
}

/// The end of a turn: what it came to. Every turn has exactly one.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[cfg_attr(test, derive(TS))]
pub struct TurnCompleted {
    /// The context.
    pub context_id: ContextId,
    /// The turn.
    pub turn_id: ContextTurnId,
    /// The branch it worked on.
    pub branch: BranchName,
    /// How it ended.
    pub outcome: TurnOutcome,
    /// What failed, for a `failed` turn.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(test, ts(optional))]
    pub error: Option<String>,
    /// When it ended.
    pub timestamp: DateTime<Utc>,
}

/// How a turn ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[cfg_attr(test, derive(TS))]
#[serde(rename_all = "snake_case")]
pub enum TurnOutcome {
    /// The work is done: the model answered (or the send needed no answer).
    Answered,
    /// It failed (`error` says why); a new send or `resume` goes on.
    Failed,
    /// The tool loop stopped at a limit (`resume` continues it), or a workflow run paused
    /// (its `resume` continues it, as a new turn).
    Paused,
    /// Someone interrupted it, or cancelled the workflow run it was.
    Interrupted,
    /// It waits for a person to approve or deny tool calls (the approval starts a new turn),
    /// or at a workflow run's approval step (resuming the run approves, as a new turn;
    /// cancelling declines).
    AwaitingApproval,
    /// It waits for a person to answer the agent's question (the answer is a new send).
    AwaitingAnswer,
}

impl TurnOutcome {
    /// The outcome a turn has when it leaves the context in `state`, or `None` when that state
    /// is not a resting one. `interrupted`: whether someone interrupted the turn.
    pub fn of_rest(state: &ContextState, interrupted: bool) -> Option<Self> {
        Some(match state {
            ContextState::Idle if interrupted => TurnOutcome::Interrupted,
            ContextState::Idle => TurnOutcome::Answered,
            ContextState::Failed { .. } => TurnOutcome::Failed,
            ContextState::Paused { reason, .. } => match reason {
                crate::state::LoopStopReason::Interrupted => TurnOutcome::Interrupted,
                _ => TurnOutcome::Paused,
            },
            ContextState::AwaitingToolApproval { .. } => TurnOutcome::AwaitingApproval,
            ContextState::AwaitingUserAnswer { .. } => TurnOutcome::AwaitingAnswer,
            _ => return None,
        })
    }
}

/// An event with its position in the context's event log; the position is the SSE `id:` that a
/// reconnecting client sends back as `Last-Event-ID`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[cfg_attr(test, derive(TS))]
pub struct SequencedEvent {
    /// Monotonic per context, from 1.
    pub sequence: u64,
    /// The event.
    pub event: ContextEvent,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stored_events_carry_their_name_as_type() {
        let e = ContextEvent::ContentDelta(ContentDelta {
            context_id: ContextId::new(),
            message_id: MessageId::new(),
            sequence: 1,
            delta: "Hel".into(),
            is_final: false,
            turn_id: None,
            branch: None,
        });
        let v = serde_json::to_value(&e).unwrap();
        assert_eq!(v["type"], "content_delta");
        assert_eq!(v["delta"], "Hel");
        let back: ContextEvent = serde_json::from_value(v).unwrap();
        assert_eq!(back, e);
        assert_eq!(e.name(), "content_delta");
        let payload: serde_json::Value = serde_json::from_str(&e.payload_json()).unwrap();
        assert!(payload.get("type").is_none());
        assert_eq!(payload["is_final"], false);
    }

    #[test]
    fn a_stamped_event_names_its_turn_and_branch_and_a_heartbeat_stays_unstamped() {
        let turn = ContextTurnId::new();
        let branch = BranchName("alt".into());
        let mut e = ContextEvent::Error(ErrorEvent {
            context_id: ContextId::new(),
            code: ErrorCode::Internal,
            message: "x".into(),
            recoverable: true,
            turn_id: None,
            branch: None,
        });
        assert!(
            !serde_json::to_value(&e)
                .unwrap()
                .as_object()
                .unwrap()
                .contains_key("turn_id")
        );
        e.stamp_turn(turn, &branch);
        assert_eq!(e.turn_id(), Some(turn));
        let v: serde_json::Value = serde_json::from_str(&e.payload_json()).unwrap();
        assert_eq!(v["turn_id"], serde_json::json!(turn));
        assert_eq!(v["branch"], "alt");
        let mut beat = ContextEvent::Heartbeat(Heartbeat {
            timestamp: Utc::now(),
        });
        beat.stamp_turn(turn, &branch);
        assert_eq!(beat.turn_id(), None);
    }

    #[test]
    fn a_turn_outcome_is_read_from_the_state_it_rests_in() {
        let of = TurnOutcome::of_rest;
        assert_eq!(of(&ContextState::Idle, false), Some(TurnOutcome::Answered));
        assert_eq!(
            of(&ContextState::Idle, true),
            Some(TurnOutcome::Interrupted)
        );
        let failed = ContextState::Failed {
            error: "boom".into(),
            recoverable: true,
        };
        assert_eq!(of(&failed, false), Some(TurnOutcome::Failed));
        let waiting = ContextState::AwaitingToolApproval {
            pending_requests: Vec::new(),
            tool_names: Vec::new(),
            offered_rules: Vec::new(),
        };
        assert_eq!(of(&waiting, false), Some(TurnOutcome::AwaitingApproval));
        let asked = ContextState::AwaitingUserAnswer {
            question_id: MessageId::new(),
        };
        assert_eq!(of(&asked, false), Some(TurnOutcome::AwaitingAnswer));
        let paused = |reason| ContextState::Paused {
            reason,
            depth: 1,
            tools_executed: 1,
        };
        assert_eq!(
            of(&paused(crate::state::LoopStopReason::DepthLimit), false),
            Some(TurnOutcome::Paused)
        );
        assert_eq!(
            of(&paused(crate::state::LoopStopReason::Interrupted), false),
            Some(TurnOutcome::Interrupted)
        );
        assert_eq!(of(&ContextState::ProcessingLlmResponse, false), None);
    }
}
