//! The commands a context's actor handles, one at a time, and their answers.

use braid_protocol::api::{
    ApprovalRequest, BranchInfo, BranchList, ContextSummary, CreateBranchRequest, MergeOutcome,
    MergeRequest, MessageList, MessageView, SendMessageResponse, StateResponse,
    UpdateBranchRequest, UpdateContextRequest,
};
use braid_protocol::{BranchName, KindName, MessageId, Mode, SendMessageRequest};
use tokio::sync::oneshot;

use crate::error::EngineError;

/// The answer channel of a command.
pub(crate) type Reply<T> = oneshot::Sender<Result<T, EngineError>>;

/// Which messages to list.
#[derive(Clone, Debug, Default)]
pub struct MessageQuery {
    /// The branch; the active one when absent.
    pub branch: Option<BranchName>,
    /// Stored history or what the model would be sent.
    pub view: MessageView,
    /// Only messages of this kind.
    pub kind: Option<KindName>,
    /// Only messages after this one.
    pub after: Option<MessageId>,
    /// At most this many (default 100, at most 1000).
    pub limit: Option<u32>,
}

pub(crate) enum Command {
    Send(SendMessageRequest, Reply<SendMessageResponse>),
    Approve(ApprovalRequest, Reply<()>),
    Interrupt(Reply<()>),
    Resume(Reply<()>),
    SetMode(Mode, Reply<()>),
    Update(UpdateContextRequest, Reply<ContextSummary>),
    CreateBranch(CreateBranchRequest, Reply<BranchInfo>),
    SwitchBranch(BranchName, Reply<()>),
    DeleteBranch(BranchName, Reply<()>),
    UpdateBranch(BranchName, UpdateBranchRequest, Reply<BranchInfo>),
    Merge {
        source: BranchName,
        request: MergeRequest,
        reply: Reply<MergeOutcome>,
    },
    ListBranches(Reply<BranchList>),
    Summary(Reply<ContextSummary>),
    State {
        history: bool,
        reply: Reply<StateResponse>,
    },
    Messages(MessageQuery, Reply<MessageList>),
    RetryMessage(MessageId, Reply<SendMessageResponse>),
    DeleteMessage(MessageId, Reply<()>),
    ExecutePlan(MessageId, Reply<SendMessageResponse>),
    RefinePlan {
        plan: MessageId,
        feedback: String,
        reply: Reply<SendMessageResponse>,
    },
    /// The workflow definitions this context can use.
    Workflows(Reply<Vec<braid_protocol::workflow::WorkflowInfo>>),
    /// Pause, resume or cancel a workflow run.
    ControlWorkflow {
        execution_id: String,
        control: braid_protocol::workflow::WorkflowControl,
        reply: Reply<()>,
    },
    Shutdown(oneshot::Sender<()>),
}

impl Command {
    /// Whether the command only reads, so it can be answered while a turn runs.
    pub fn is_read(&self) -> bool {
        matches!(
            self,
            Command::ListBranches(_)
                | Command::Summary(_)
                | Command::State { .. }
                | Command::Messages(..)
        )
    }
}
