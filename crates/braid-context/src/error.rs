//! What can go wrong when asking a context to do something.

use braid_protocol::body::RequestError;
use braid_protocol::{BranchName, ContextId, ErrorCode, InvalidTransition, ValidationErrors};

/// An operation on a context failed; the context is unchanged unless the error says otherwise.
#[derive(Debug, thiserror::Error)]
pub enum EngineError {
    /// No context has this id.
    #[error("context {0} not found")]
    ContextNotFound(ContextId),
    /// The context has no branch of this name.
    #[error("branch `{0}` not found")]
    BranchNotFound(BranchName),
    /// Something the request names does not exist (a message, a call).
    #[error("{0}")]
    NotFound(String),
    /// The request conflicts with what the context is doing (approving a call that is not
    /// pending, creating a branch that exists...).
    #[error("{0}")]
    Conflict(String),
    /// The request is malformed.
    #[error(transparent)]
    Request(#[from] RequestError),
    /// A message or config breaks the rules.
    #[error("{0}")]
    Invalid(#[from] ValidationErrors),
    /// The state machine refused a move: a bug in the engine, reported rather than hidden.
    #[error(transparent)]
    Transition(#[from] InvalidTransition),
    /// A pipeline step refused the message.
    #[error(transparent)]
    Pipeline(#[from] crate::pipeline::PipelineError),
    /// The model could not be asked, or its answer failed.
    #[error("the model failed: {0}")]
    Llm(#[from] braid_llm::LlmError),
    /// The model call took longer than the context's `llm_timeout_secs`; what had arrived is
    /// kept as an incomplete answer.
    #[error(
        "the model did not finish within {secs} s (llm_timeout_secs): the call was stopped and what had arrived is kept as incomplete; send again or continue, or raise llm_timeout_secs"
    )]
    LlmTimedOut {
        /// The limit, in seconds.
        secs: u32,
    },
    /// No model is configured.
    #[error(
        "no model is configured: set BRAID_LLM_PROVIDER (openai or anthropic), BRAID_LLM_BASE_URL, BRAID_LLM_API_KEY and BRAID_MODEL"
    )]
    LlmNotConfigured,
    /// Reading or writing the store failed.
    #[error("storage failed: {0}")]
    Store(#[from] braid_store::StoreError),
    /// The configured workspace may not be used (outside the operator's roots, `/`, the data
    /// directory, not a directory); the message says why and which setting allows another root.
    #[error("{0}")]
    Workspace(braid_tools::WorkspaceError),
    /// The merge request cannot be carried out as asked.
    #[error(transparent)]
    Merge(#[from] crate::merge::MergeError),
    /// The merge waits: it has conflicts without a resolution, or dependency warnings that were
    /// not accepted. Nothing changed; the outcome lists them.
    #[error("{}", merge_held_message(.0))]
    MergeHeld(Box<braid_protocol::api::MergeOutcome>),
    /// The person interrupted the turn while a pipeline step ran: the step was stopped and
    /// nothing it did is kept.
    #[error(
        "interrupted while {} ran: the message was not sent to the model; retry it to send it, or delete it",
        .step.as_str()
    )]
    Interrupted {
        /// The step that was running.
        step: crate::pipeline::ProcessorName,
    },
    /// A pipeline step's task ended without an answer (it panicked): a bug, reported as the
    /// step's failure rather than taking the context down.
    #[error("the pipeline step {} failed unexpectedly: {reason}", .step.as_str())]
    StepCrashed {
        /// The step.
        step: crate::pipeline::ProcessorName,
        /// What the task reported.
        reason: String,
    },
    /// The context's task has stopped (the server is shutting down).
    #[error("the context is shutting down")]
    Stopped,
}

impl EngineError {
    /// The category clients see.
    pub fn code(&self) -> ErrorCode {
        match self {
            EngineError::ContextNotFound(_)
            | EngineError::BranchNotFound(_)
            | EngineError::NotFound(_) => ErrorCode::NotFound,
            EngineError::Conflict(_) | EngineError::MergeHeld(_) => ErrorCode::Conflict,
            EngineError::Merge(crate::merge::MergeError::Broken { .. }) => ErrorCode::Conflict,
            EngineError::Merge(_) => ErrorCode::InvalidInput,
            EngineError::Pipeline(crate::pipeline::PipelineError::FileReference { .. }) => {
                ErrorCode::FileReference
            }
            EngineError::Pipeline(crate::pipeline::PipelineError::Image { .. }) => {
                ErrorCode::ImageRecognition
            }
            EngineError::Request(_)
            | EngineError::Invalid(_)
            | EngineError::Pipeline(_)
            | EngineError::Workspace(_) => ErrorCode::InvalidInput,
            EngineError::Llm(e) => crate::turn::llm_error_code(e),
            EngineError::LlmNotConfigured => ErrorCode::LlmNotConfigured,
            EngineError::LlmTimedOut { .. } => ErrorCode::Timeout,
            EngineError::Store(braid_store::StoreError::ContextNotFound(_))
            | EngineError::Store(braid_store::StoreError::BranchNotFound { .. }) => {
                ErrorCode::NotFound
            }
            EngineError::Store(braid_store::StoreError::BranchExists { .. }) => ErrorCode::Conflict,
            EngineError::Store(_) => ErrorCode::StorageFailed,
            EngineError::Interrupted { .. } => ErrorCode::Interrupted,
            EngineError::Transition(_) | EngineError::Stopped | EngineError::StepCrashed { .. } => {
                ErrorCode::Internal
            }
        }
    }

    /// The request field at fault, when there is one.
    pub fn field(&self) -> Option<String> {
        match self {
            EngineError::Request(e) => e.field().map(str::to_owned),
            EngineError::Invalid(e) => e.problems().first().map(|p| p.path.clone()),
            EngineError::Workspace(_) => Some("config.workspace".to_owned()),
            EngineError::Merge(e) => e.field(),
            _ => None,
        }
    }
}

/// Says why a merge waits, counting what the person must settle.
fn merge_held_message(outcome: &braid_protocol::api::MergeOutcome) -> String {
    let unresolved = outcome.unresolved().count();
    let warnings = outcome.warnings.len();
    match (unresolved, warnings) {
        (0, w) => format!(
            "merging `{}` into `{}` leaves {w} dependenc{} behind; send `accept_warnings: true` to merge anyway",
            outcome.source,
            outcome.target,
            if w == 1 { "y" } else { "ies" }
        ),
        (c, _) => format!(
            "merging `{}` into `{}` has {c} conflict{} without a resolution; resolve each in `resolutions`",
            outcome.source,
            outcome.target,
            if c == 1 { "" } else { "s" }
        ),
    }
}
