//! `braid-protocol`: the data every other part of Braid shares, and nothing else (no I/O).
//!
//! - [`Message`] and its kinds ([`MessageKind`]), roles and statuses, read in any supported
//!   schema version ([`migrate`]) and checked by [`Validate`];
//! - [`ContextState`] and the transition table ([`StateKind::successors`]);
//! - the events a context emits ([`ContextEvent`]);
//! - the configuration of a context ([`ContextConfig`]) and the HTTP API's bodies ([`api`],
//!   [`SendMessageRequest`]).
//!
//! Every public type derives `JsonSchema`, and TypeScript in this crate's tests (the
//! `typescript` module writes `web/src/generated/protocol.ts`), so the web UI and outside
//! clients never hand-copy a type. The TypeScript derives exist only in the test build: the
//! server never uses them, and they were a large part of this crate's compile time.
#![deny(unsafe_code)]

pub mod api;
pub mod body;
pub mod capabilities;
pub mod config;
pub mod event;
pub mod ids;
pub mod kinds;
pub mod merge;
pub mod message;
pub mod migrate;
pub mod payload;
pub mod request_record;
pub mod role;
pub mod state;
pub mod structured;
#[cfg(test)]
mod typescript;
pub mod validate;
pub mod workflow;

pub use capabilities::{
    CapabilitySource, CountFigure, FlagFigure, ModelCapabilitiesView, ToolCalling,
    ToolCallingFigure,
};
pub use config::{
    AgentRole, ApprovalPolicy, CommandRule, ContextConfig, Mode, OptimizationConfig,
    OptimizationStrategy, RuleOrigin, SandboxMode,
};
pub use event::{
    ContentDelta, ContentFinal, ContextEvent, ContextUpdate, ErrorCode, ErrorEvent, Heartbeat,
    MessageUpdate, PendingCall, SequencedEvent, TurnCompleted, TurnOutcome,
};
pub use ids::{
    BranchName, ContextId, ContextTurnId, MessageId, ModelRequestId, ToolCallId, TurnId,
};
pub use kinds::*;
pub use message::{CURRENT_SCHEMA_VERSION, Message, MessageStatus, Metadata};
pub use payload::{MessagePayload, SendMessageRequest};
pub use request_record::{
    CompactionRecord, LedgerPart, ModelRequestRecord, RequestBudget, SentAs, SentMessage, ToolsPart,
};
pub use role::Role;
pub use state::{
    ContextState, InvalidTransition, LoopStopReason, OfferedRule, StateKind, StateTransition,
};
pub use validate::{Problem, Validate, ValidationErrors};
