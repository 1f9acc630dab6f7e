//! `braid-context`: the Context Manager (DESIGN.md "The context").
//!
//! Each live context is owned by one tokio task, its actor ([`ContextHandle`] talks to it), so
//! commands run one at a time and no lock guards context data. A turn runs the message through
//! the [`pipeline`], streams the model's answer, and goes around the tool loop under the
//! approval policy; every step moves the state machine through one transition function, which
//! checks the protocol's table, records the history and emits a `context_update`. The
//! [`ContextRegistry`] loads contexts from the store on demand and recovers those a crash left
//! mid-operation.
#![deny(unsafe_code)]

mod actor;
pub mod approval;
mod branches;
mod calls;
mod context;
mod error;
pub mod events;
mod handle;
mod host;
mod input;
pub mod instructions;
pub mod merge;
mod pins;
pub mod pipeline;
mod plan_cache;
mod plan_progress;
pub mod prompt;
mod recovery;
mod registry;
mod send;
mod sends;
mod services;
pub mod state;
pub mod title;
mod token_counts;
mod turn;
mod views;
pub mod workflow;
mod workspace_files;

pub use actor::MAX_QUEUED_SENDS;
pub use error::EngineError;
pub use error::llm_error_code;
pub use handle::ContextHandle;
pub use plan_cache::SharedFrames;
pub use registry::ContextRegistry;
pub use services::{EngineSettings, Services};
pub use state::StateMachine;
pub use views::MessageQuery;
