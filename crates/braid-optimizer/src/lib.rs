//! `braid-optimizer`: the context-window optimizer (DESIGN.md, room `braid-optimizer`; the
//! strategies are in "The context", Optimization). It fits a request to the model's context
//! window. It counts the request as the provider will ([`tokens`]), and when the count is over
//! the [`Budget`] it applies the context's strategy ([`selection`]): the system prompt, the
//! newest messages, tool request/result pairs (kept or dropped together) and recently used files
//! and resources are kept; older messages are dropped or, with `intelligent`, summarized by the
//! model ([`summary`]). The same history always gives the same selection.
//!
//! It is a crate of its own because it is a function of a history and a model's capabilities,
//! nothing more: it knows `braid-protocol` (messages, the context's config) and `braid-llm`
//! (capabilities, tokenizer family, the client a summary is asked of), never the context actor,
//! the store or the pipeline that call it. On its own it builds, tests and benches without them.
#![deny(unsafe_code)]

pub mod ledger;
pub mod selection;
pub mod summary;
pub mod tokens;

use braid_llm::ModelCapabilities;
use braid_protocol::{ContextConfig, Message, MessageId};

pub use ledger::{Fitted, Ledger, LedgerBlock};
pub use selection::{DroppedUnit, Plan, PlanError, Prepared, Slot, StrategyName, plan};
pub use tokens::{Encoding, Exactness, KnownCount, TokenCounter};

/// The tokens a request may use: the context window minus the tokens reserved for the answer
/// and a safety margin.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Budget {
    /// The model's context window (or the context's override).
    pub window: u32,
    /// Tokens kept free for the answer.
    pub reserve_output: u32,
    /// Tokens kept free against miscounting.
    pub margin: u32,
}

pub use braid_protocol::config::MAX_RESERVE_SHARE;

impl Budget {
    /// The budget of a context: its `context_window` override, else the model's window; the
    /// answer's reserve is the configured one, at most a quarter of the window.
    pub fn for_config(config: &ContextConfig, capabilities: &ModelCapabilities) -> Self {
        let window = config.context_window.unwrap_or(capabilities.context_window);
        Self {
            window,
            reserve_output: config.optimization.reserve_for(window),
            margin: config.optimization.margin_tokens,
        }
    }

    /// The output cap a request carries: the context's cap, never more than the reserve, so
    /// prompt and answer fit the window together.
    pub fn output_cap(&self, config: &ContextConfig) -> u32 {
        config.output_cap().min(self.reserve_output).max(1)
    }

    /// What the prompt may take.
    pub fn limit(&self) -> u32 {
        self.window
            .saturating_sub(self.reserve_output)
            .saturating_sub(self.margin)
    }
}

/// What a request is made of, before optimization.
#[derive(Clone, Copy, Debug)]
pub struct RequestParts<'a> {
    /// The system prompt built for the request.
    pub system_prompt: Option<&'a str>,
    /// Tokens of the tool definitions offered ([`TokenCounter::tools`]): counted by the caller,
    /// which may know them already (a request frame counts its tools once, not every turn).
    pub tool_tokens: u32,
    /// Tokens set aside before any message is chosen: the ledger block the request carries.
    pub reserved_tokens: u32,
    /// The stored history followed by the turn's new messages, oldest first. Stored summaries
    /// are among them; they stand in for the messages they replace.
    pub messages: &'a [Message],
}

/// The ids a summary message replaces, when `message` is one.
pub fn summary_replaces(message: &Message) -> Option<&[MessageId]> {
    match &message.kind {
        braid_protocol::MessageKind::SystemControl(
            braid_protocol::SystemControlMessage::Summary { replaces, .. },
        ) => Some(replaces),
        _ => None,
    }
}
