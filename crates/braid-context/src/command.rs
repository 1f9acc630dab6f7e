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

/// The most commands an actor sets aside while it waits for a commit (reads are answered at
/// once; other commands wait for the commit to end). More stay in the command channel.
pub(crate) const MAX_SET_ASIDE: usize = 64;

/// An actor's commands: the channel its handles send to, and those set aside while a commit
/// was in flight, which come first.
pub(crate) struct Inbox {
    channel: tokio::sync::mpsc::Receiver<Command>,
    set_aside: std::collections::VecDeque<Command>,
    /// False once every handle is gone (nothing more can arrive).
    open: bool,
}

impl Inbox {
    /// The inbox of a new actor.
    pub fn new(channel: tokio::sync::mpsc::Receiver<Command>) -> Self {
        Self {
            channel,
            set_aside: std::collections::VecDeque::new(),
            open: true,
        }
    }

    /// The next command to handle: one set aside first, else the next to arrive (`None` once
    /// every handle is gone, after which this waits forever). Cancel safe, for `select!`.
    pub async fn next(&mut self) -> Option<Command> {
        match self.set_aside.pop_front() {
            Some(command) => Some(command),
            None => self.arrival().await,
        }
    }

    /// The next command to arrive, ignoring those set aside (`None` once, when every handle is
    /// gone; then it waits forever). Cancel safe.
    pub async fn arrival(&mut self) -> Option<Command> {
        if !self.open {
            return std::future::pending().await;
        }
        let command = self.channel.recv().await;
        self.open = command.is_some();
        command
    }

    /// A command that is already here (one set aside first), without waiting.
    pub fn ready(&mut self) -> Option<Command> {
        if let Some(command) = self.set_aside.pop_front() {
            return Some(command);
        }
        if !self.open {
            return None;
        }
        match self.channel.try_recv() {
            Ok(command) => Some(command),
            Err(tokio::sync::mpsc::error::TryRecvError::Empty) => None,
            Err(tokio::sync::mpsc::error::TryRecvError::Disconnected) => {
                self.open = false;
                None
            }
        }
    }

    /// Whether every handle is gone and nothing set aside is left: the actor's work is over.
    /// (The `None` that [`Inbox::arrival`] gives once may have been taken by a busy turn's
    /// `select!`, which has nothing to do with it.)
    pub fn is_done(&self) -> bool {
        !self.open && self.set_aside.is_empty()
    }

    /// Whether another command may be set aside.
    pub fn has_room(&self) -> bool {
        self.set_aside.len() < MAX_SET_ASIDE
    }

    /// Keeps a command for after the commit in flight, in arrival order.
    pub fn set_aside(&mut self, command: Command) {
        self.set_aside.push_back(command);
    }
}
