//! The actor's mailbox: the commands a context's actor handles, one at a time, and the inbox
//! that holds them (those set aside during a commit first).

use braid_protocol::api::{ApprovalRequest, SendMessageResponse};
use braid_protocol::{ContextState, MessageId, SendMessageRequest};
use futures::future::BoxFuture;
use tokio::sync::oneshot;

use super::Actor;
use crate::error::EngineError;

/// The answer channel of a command.
pub(crate) type Reply<T> = oneshot::Sender<Result<T, EngineError>>;

/// A read of a context: answered at once, also while a turn runs, from what is committed
/// (`state` is the committed state while a move to rest is being committed).
pub(crate) type ReadOp = Box<dyn FnOnce(&Actor, &ContextState) + Send + Sync>;

/// A change to a context, run while it rests (handed `Ok`), or refused while a turn runs
/// (handed the busy error). The closure holds its own answer channel, so a new operation needs
/// no variant here, no match arm in the actor and no reply type: only its handle method and the
/// function that does it.
pub(crate) type ChangeOp =
    Box<dyn for<'a> FnOnce(Result<&'a mut Actor, EngineError>) -> BoxFuture<'a, ()> + Send + Sync>;

/// What a handle asks of the actor.
pub(crate) enum Command {
    /// A read ([`ReadOp`]).
    Read(ReadOp),
    /// A change ([`ChangeOp`]).
    Change(ChangeOp),
    Send(SendMessageRequest, Reply<SendMessageResponse>),
    Approve(
        ApprovalRequest,
        Reply<braid_protocol::api::ApprovalResponse>,
    ),
    Interrupt(Reply<()>),
    Resume(Reply<braid_protocol::api::ResumeResponse>),
    RetryMessage(MessageId, Reply<SendMessageResponse>),
    DeleteMessage(MessageId, Reply<()>),
    ExecutePlan(MessageId, Reply<SendMessageResponse>),
    RefinePlan {
        plan: MessageId,
        feedback: String,
        reply: Reply<SendMessageResponse>,
    },
    /// Pause, resume or cancel a workflow run; a resume answers the turn it runs as.
    ControlWorkflow {
        execution_id: String,
        control: braid_protocol::workflow::WorkflowControl,
        reply: Reply<Option<braid_protocol::api::ResumeResponse>>,
    },
    Shutdown(oneshot::Sender<()>),
}

/// A change operation answering on `reply` with what `op` does to the actor, or with the
/// busy error when the context cannot take it now.
pub(crate) fn change<T, F>(op: F, reply: Reply<T>) -> ChangeOp
where
    T: Send + 'static,
    F: for<'a> FnOnce(&'a mut Actor) -> BoxFuture<'a, Result<T, EngineError>>
        + Send
        + Sync
        + 'static,
{
    Box::new(move |actor: Result<&mut Actor, EngineError>| {
        Box::pin(async move {
            let outcome = match actor {
                Ok(actor) => op(actor).await,
                Err(busy) => Err(busy),
            };
            let _ = reply.send(outcome);
        })
    })
}

/// A read operation answering on `reply` with what `op` reads.
pub(crate) fn read<T, F>(op: F, reply: Reply<T>) -> ReadOp
where
    T: Send + 'static,
    F: FnOnce(&Actor, &ContextState) -> Result<T, EngineError> + Send + Sync + 'static,
{
    Box::new(move |actor, state| {
        let _ = reply.send(op(actor, state));
    })
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
