//! What can go wrong when asking a context to do something.

use braid_llm::LlmError;
use braid_protocol::body::RequestError;
use braid_protocol::{
    BranchName, ContextId, ErrorCode, InvalidTransition, MessageId, ValidationErrors,
};

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
    Pipeline(#[from] PipelineError),
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
    /// An iteration of the tool loop (a round of tools and the model call that reads their
    /// results) took longer than the context's `tool_timeout_secs`, and the model call was
    /// stopped; what had arrived is kept as an incomplete answer.
    #[error(
        "an iteration of the tool loop (its tools and the model's answer to their results) took longer than {secs} s (tool_timeout_secs): the model call was stopped and what had arrived is kept as incomplete; resume to continue, or raise tool_timeout_secs"
    )]
    IterationTimedOut {
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
    Merge(#[from] MergeError),
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
        step: braid_protocol::api::ProcessorName,
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
            EngineError::Merge(MergeError::Broken { .. }) => ErrorCode::Conflict,
            EngineError::Merge(_) => ErrorCode::InvalidInput,
            EngineError::Pipeline(
                PipelineError::FileReference { .. } | PipelineError::FilePermission { .. },
            ) => ErrorCode::FileReference,
            EngineError::Pipeline(PipelineError::Image { .. }) => ErrorCode::ImageRecognition,
            EngineError::Request(_)
            | EngineError::Invalid(_)
            | EngineError::Pipeline(_)
            | EngineError::Workspace(_) => ErrorCode::InvalidInput,
            EngineError::Llm(e) => llm_error_code(e),
            EngineError::LlmNotConfigured => ErrorCode::LlmNotConfigured,
            EngineError::LlmTimedOut { .. } | EngineError::IterationTimedOut { .. } => {
                ErrorCode::Timeout
            }
            EngineError::Store(braid_store::StoreError::ContextNotFound(_))
            | EngineError::Store(braid_store::StoreError::BranchNotFound { .. }) => {
                ErrorCode::NotFound
            }
            EngineError::Store(braid_store::StoreError::BranchExists { .. }) => ErrorCode::Conflict,
            EngineError::Store(_) => ErrorCode::StorageFailed,
            EngineError::Interrupted { .. } => ErrorCode::Interrupted,
            EngineError::Transition(_) | EngineError::Stopped => ErrorCode::Internal,
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

/// The error category of a model failure.
pub fn llm_error_code(e: &LlmError) -> ErrorCode {
    match e {
        LlmError::Connect { .. } | LlmError::Malformed { .. } | LlmError::TooLarge { .. } => {
            ErrorCode::LlmUnavailable
        }
        LlmError::Http { status, .. } if *status >= 500 || *status == 429 => {
            ErrorCode::LlmUnavailable
        }
        LlmError::Http { .. } | LlmError::Provider { .. } => ErrorCode::LlmRejected,
        LlmError::StreamCut { .. } | LlmError::Interrupted { .. } => ErrorCode::StreamInterrupted,
        LlmError::Timeout { .. } => ErrorCode::Timeout,
        LlmError::InvalidRequest { .. } => ErrorCode::InvalidInput,
    }
}

/// Why the pipeline stopped.
#[derive(Debug, thiserror::Error)]
pub enum PipelineError {
    /// A new message breaks the rules.
    #[error("the message is invalid: {0}")]
    Invalid(#[from] braid_protocol::ValidationErrors),
    /// A referenced file could not be read.
    #[error("file reference `{path}` could not be resolved: {reason}")]
    FileReference {
        /// The path as given.
        path: String,
        /// Why.
        reason: String,
    },
    /// A referenced file is one the context's role may not read: outside the workspace, in
    /// Braid's data directory, or refused by the operating system.
    #[error(
        "permission denied: a context in the {role} role may only read files inside its workspace, and `{path}` is not one it may read: {reason}"
    )]
    FilePermission {
        /// The path as given.
        path: String,
        /// The role whose permissions refused it.
        role: braid_protocol::AgentRole,
        /// Why.
        reason: String,
    },
    /// An image could not be loaded or recognized.
    #[error("image {message_id}: {error}")]
    Image {
        /// The image message.
        message_id: braid_protocol::MessageId,
        /// What went wrong.
        error: braid_vision::ImageError,
    },
    /// The request could not be built.
    #[error("the request could not be prepared: {0}")]
    Request(String),
}

/// A merge the request cannot have.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MergeError {
    /// Source and target are the same branch.
    #[error("a branch cannot be merged into itself (`{0}`)")]
    SameBranch(BranchName),
    /// A cherry-picked id is not on the source branch.
    #[error("message {id} is not on the source branch `{source_branch}`")]
    NotOnSource {
        /// Its index in `strategy.message_ids`.
        index: usize,
        /// The id.
        id: MessageId,
        /// The source branch.
        source_branch: BranchName,
    },
    /// A resolution names a conflict this merge does not have.
    #[error("this merge has no conflict `{conflict}`; a dry run lists the conflicts")]
    UnknownConflict {
        /// Its index in `resolutions`.
        index: usize,
        /// The id given.
        conflict: String,
    },
    /// A conflict is resolved twice.
    #[error("conflict `{conflict}` has more than one resolution")]
    DuplicateResolution {
        /// The second one's index in `resolutions`.
        index: usize,
        /// The conflict.
        conflict: String,
    },
    /// A resolution the conflict does not offer.
    #[error("conflict `{conflict}` cannot be resolved with {resolution}; it offers {offered}")]
    ResolutionNotOffered {
        /// Its index in `resolutions`.
        index: usize,
        /// The conflict.
        conflict: String,
        /// What was asked.
        resolution: &'static str,
        /// What the conflict offers.
        offered: String,
    },
    /// The merged target would break a rule of branches; nothing is stored.
    #[error("the merge would leave branch `{target}` invalid: {reason}")]
    Broken {
        /// The target.
        target: BranchName,
        /// Which rule.
        reason: String,
    },
}

impl MergeError {
    /// The request field at fault, when one is.
    pub fn field(&self) -> Option<String> {
        match self {
            MergeError::NotOnSource { index, .. } => Some(format!("strategy.message_ids[{index}]")),
            MergeError::UnknownConflict { index, .. }
            | MergeError::DuplicateResolution { index, .. } => {
                Some(format!("resolutions[{index}].conflict"))
            }
            MergeError::ResolutionNotOffered { index, .. } => {
                Some(format!("resolutions[{index}].resolution"))
            }
            MergeError::SameBranch(_) => Some("target".to_owned()),
            MergeError::Broken { .. } => None,
        }
    }
}
