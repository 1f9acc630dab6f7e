//! The context actor: one tokio task owns a context's data and handles its commands one at a
//! time, so concurrent sends queue instead of racing and no lock guards context data. A turn
//! runs inside the actor; while it waits on the model or a tool, the actor keeps answering reads,
//! queues sends and takes interrupts.

use std::collections::VecDeque;
use std::sync::Arc;

use braid_protocol::api::{ContextListEntry, SendMessageResponse};
use braid_protocol::{ContextEvent, ContextId, ContextState, ContextTurnId, MessageId, Metadata};
use braid_store::ContextChanges;
use tokio::sync::{mpsc, watch};
use tokio_util::sync::CancellationToken;

use crate::calls::{OpenCall, Ran};
mod mailbox;
mod turns;

use crate::context::ContextData;
use crate::error::EngineError;
use crate::events::EventBus;
use crate::host::{Host, QueuedCommit};
use crate::send::QueuedSend;
use crate::services::Services;
use crate::state::StateMachine;
use crate::turn::Turn;
pub(crate) use mailbox::{Command, Inbox, Reply, change, read};
use turns::ActiveTurn;

/// How often a streaming answer's progress (its chunk and character counts) is announced in a
/// `context_update`: every chunk still has its `content_delta`, and the counts are current
/// again in the update that ends the stream.
pub const STREAM_PROGRESS_EVERY: std::time::Duration = std::time::Duration::from_millis(250);

/// The most sends one context keeps waiting behind a running turn; one more is refused with a
/// conflict until some are answered (each holds a whole message, and senders are outside).
pub const MAX_QUEUED_SENDS: usize = 100;

pub(crate) struct Actor {
    id: ContextId,
    data: ContextData,
    /// Private: the state changes only through [`Actor::transition`] / [`Actor::announce`].
    machine: StateMachine,
    services: Arc<Services>,
    events: EventBus,
    /// The commands to handle.
    inbox: Inbox,
    /// Whether commands are taken while a commit waits: not before recovery has been saved,
    /// since a context must never be seen as the crash left it.
    recovered: bool,
    queue: VecDeque<QueuedSend>,
    /// Cancelled by an interrupt; a new one for every run.
    interrupt: CancellationToken,
    /// Set when a shutdown arrived during a run.
    stopping: Option<tokio::sync::oneshot::Sender<()>>,
    /// Ownership of the context, released when the actor stops.
    _lock: braid_store::ContextLock,
    /// MCP resources this context has read, served again while fresh.
    resources: braid_mcp::ResourceCache,
    /// A pause or cancel of a workflow run asked for while its step runs.
    workflow_signal: Option<(String, braid_protocol::workflow::WorkflowControl)>,
    /// What the context list shows of this context, kept current on every commit and state
    /// move, so listing never waits for the actor.
    listing: watch::Sender<ContextListEntry>,
    /// When the last `context_update` was emitted, to space out streaming progress.
    progress_announced: Option<std::time::Instant>,
    /// The state left for a resting one whose commit has not ended: its `context_update` waits
    /// for the commit.
    rest_unannounced: Option<ContextState>,
    /// The optimizer's plans of unchanged branches, for reads (a lock only because reads
    /// take `&self`; the actor alone uses it).
    plans: std::sync::Mutex<crate::plan_cache::PlanCache>,
    /// The turn whose events are emitted now (the running one, or a queued send's while it is
    /// accepted).
    turn: Option<ActiveTurn>,
    /// The turns of the sends waiting in the queue, by the id each send answered with.
    queued_turns: std::collections::HashMap<MessageId, ContextTurnId>,
    /// The token counts the load found kept, until the first plan after it decides whether
    /// its own are worth keeping (`None` once decided, or when the store keeps none).
    kept_counts: std::sync::Mutex<Option<crate::token_counts::KeptCounts>>,
}

impl Actor {
    pub fn new(
        data: ContextData,
        services: Arc<Services>,
        events: EventBus,
        commands: mpsc::Receiver<Command>,
        lock: braid_store::ContextLock,
        listing: watch::Sender<ContextListEntry>,
        kept_counts: Option<crate::token_counts::KeptCounts>,
    ) -> Self {
        let machine = StateMachine::new(data.record.state.clone());
        Self {
            id: data.id(),
            data,
            machine,
            services,
            events,
            inbox: Inbox::new(commands),
            recovered: false,
            queue: VecDeque::new(),
            interrupt: CancellationToken::new(),
            stopping: None,
            _lock: lock,
            resources: braid_mcp::ResourceCache::default(),
            workflow_signal: None,
            listing,
            progress_announced: None,
            rest_unannounced: None,
            plans: std::sync::Mutex::default(),
            turn: None,
            queued_turns: std::collections::HashMap::new(),
            kept_counts: std::sync::Mutex::new(kept_counts),
        }
    }

    /// The actor's life: recover if needed, then handle commands until shut down.
    pub async fn run(mut self) {
        self.recover().await;
        self.recovered = true;
        loop {
            if let Some(done) = self.stopping.take() {
                let _ = done.send(());
                return;
            }
            if self.state().kind().is_resting()
                && !matches!(self.state(), ContextState::AwaitingToolApproval { .. })
                && let Some(send) = self.queue.pop_front()
            {
                self.run_send(send).await;
                continue;
            }
            if self.inbox.is_done() {
                return;
            }
            let command = tokio::select! {
                command = self.inbox.next() => command,
                lost = self.events.lost() => {
                    self.fail_for_lost_events(lost).await;
                    continue;
                }
            };
            let Some(command) = command else {
                return;
            };
            self.handle(command).await;
        }
    }

    /// Handles a command while nothing runs.
    async fn handle(&mut self, command: Command) {
        match command {
            Command::Send(request, reply) => {
                self.start_send(Accept::Request(request), reply).await;
            }
            Command::RetryMessage(id, reply) => self.start_send(Accept::Retry(id), reply).await,
            Command::DeleteMessage(id, reply) => {
                let _ = reply.send(self.delete_input(id).await);
            }
            Command::Approve(request, reply) => self.approve(request, reply).await,
            Command::Interrupt(reply) => {
                let outcome = self.interrupt_while_resting().await;
                let _ = reply.send(outcome);
            }
            Command::Resume(reply) => self.resume(reply).await,
            Command::Change(op) => op(Ok(self)).await,
            Command::Read(op) => op(self, self.machine.current()),
            Command::ExecutePlan(plan, reply) => {
                self.start_send(Accept::Plan(plan, None), reply).await;
            }
            Command::RefinePlan {
                plan,
                feedback,
                reply,
            } => {
                self.start_send(Accept::Plan(plan, Some(feedback)), reply)
                    .await;
            }
            Command::Shutdown(done) => {
                self.stopping = Some(done);
            }
            Command::ControlWorkflow {
                execution_id,
                control,
                reply,
            } => self.control_workflow(&execution_id, control, reply).await,
        }
    }

    /// Accepts a send while nothing runs, answers it (naming the turn it runs as), and runs it.
    async fn start_send(&mut self, accept: Accept, reply: Reply<SendMessageResponse>) {
        let turn = self.open_turn(None);
        let (accepted, retried) = match accept {
            Accept::Request(request) => (self.accept_and_store(request).await, None),
            Accept::Plan(plan, feedback) => (self.plan_send(plan, feedback).await, None),
            Accept::Retry(id) => (crate::input::accept_retry(self, id).await, Some(id)),
        };
        match accepted {
            Ok(send) => {
                let mut answer = self.sent(&send, turn, false);
                // A retry answers with the message retried.
                answer.message_id = retried.unwrap_or(answer.message_id);
                let _ = reply.send(Ok(answer));
                self.run_send(send).await;
            }
            Err(e) => {
                self.forget_turn();
                let _ = reply.send(Err(e));
            }
        }
    }

    /// Handles a command that arrives while a turn runs: reads are answered, sends are queued,
    /// an interrupt stops the turn at the next safe point, and other changes are refused until
    /// the context rests.
    pub async fn handle_while_busy(&mut self, command: Command) {
        match command {
            Command::Send(_, reply) | Command::RetryMessage(_, reply)
                if self.queue.len() >= MAX_QUEUED_SENDS =>
            {
                let _ = reply.send(Err(EngineError::Conflict(format!(
                    "the context is busy and already has {MAX_QUEUED_SENDS} messages waiting \
                     (MAX_QUEUED_SENDS); send again once some are answered"
                ))));
            }
            Command::Send(request, reply) => {
                // The send's own events (its input stored) are its turn's, not the running one's.
                let running = self.turn.take();
                let turn = self.open_queued_turn();
                let accepted = self.accept_and_store(request).await;
                let answer = accepted.map(|send| {
                    let answer = self.sent(&send, turn, true);
                    self.queued_turns.insert(answer.message_id, answer.turn_id);
                    self.queue.push_back(send);
                    answer
                });
                self.turn = running;
                let _ = reply.send(answer);
            }
            Command::RetryMessage(id, reply) => {
                let running = self.turn.take();
                let turn = self.open_queued_turn();
                let accepted = crate::input::accept_retry(self, id).await;
                let answer = accepted.map(|send| {
                    let mut answer = self.sent(&send, turn, true);
                    answer.message_id = id;
                    self.queued_turns.insert(send.primary_id(), answer.turn_id);
                    self.queue.push_back(send);
                    answer
                });
                self.turn = running;
                let _ = reply.send(answer);
            }
            Command::DeleteMessage(id, reply) => {
                let _ = reply.send(self.delete_input(id).await);
            }
            Command::Interrupt(reply) => {
                tracing::info!(context = %self.id, state = self.state().kind().as_str(), "interrupt requested");
                self.interrupt.cancel();
                let _ = reply.send(Ok(()));
            }
            Command::Shutdown(done) => {
                self.interrupt.cancel();
                self.stopping = Some(done);
            }
            Command::ControlWorkflow {
                execution_id,
                control,
                reply,
            } => {
                let _ = reply.send(self.signal_workflow(&execution_id, control).map(|()| None));
            }
            Command::Read(op) => op(self, self.machine.current()),
            other => {
                let busy = EngineError::Conflict(format!(
                    "the context is busy ({}); try again when it is idle, or interrupt it",
                    self.state().kind()
                ));
                reject(other, busy);
            }
        }
    }

    /// A new turn: a new interrupt, delivered to it by this actor.
    pub(crate) fn begin_turn(&mut self) -> Turn {
        self.renew_interrupt();
        Turn::new(self.interrupt.clone())
    }

    /// The turn in progress, for an operation that continues it (a workflow's step): it stops
    /// on the interrupt already given out.
    pub(crate) fn current_turn(&self) -> Turn {
        Turn::new(self.interrupt.clone())
    }

    /// Gives out a new interrupt for what runs next (one already cancelled stays so).
    pub(crate) fn renew_interrupt(&mut self) {
        self.interrupt = CancellationToken::new();
    }

    /// The interrupt of what runs now.
    pub(crate) fn interrupt_token(&self) -> &CancellationToken {
        &self.interrupt
    }

    /// The sends waiting behind the running turn.
    pub(crate) fn queue(&mut self) -> &mut VecDeque<QueuedSend> {
        &mut self.queue
    }

    /// The MCP resources this context has read, served again while fresh.
    pub(crate) fn resources(&mut self) -> &mut braid_mcp::ResourceCache {
        &mut self.resources
    }

    /// A pause or cancel of a workflow run asked for while its step runs.
    pub(crate) fn workflow_signal(
        &mut self,
    ) -> &mut Option<(String, braid_protocol::workflow::WorkflowControl)> {
        &mut self.workflow_signal
    }

    /// The plans of unchanged branches, for reads.
    pub(crate) fn plans(&self) -> &std::sync::Mutex<crate::plan_cache::PlanCache> {
        &self.plans
    }

    /// The token counts the load found kept, for the first plan after it (`None` after that).
    pub(crate) fn take_kept_counts(&self) -> Option<crate::token_counts::KeptCounts> {
        self.kept_counts
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .take()
    }

    /// Request frames shared by the contexts that build the same one.
    pub(crate) fn frames(&self) -> &crate::plan_cache::SharedFrames {
        &self.services.frames
    }

    /// The store (for what the turn's interface does not carry: recovery reads the deltas
    /// a crash left).
    pub(crate) fn store(&self) -> &Arc<dyn braid_store::Store> {
        &self.services.store
    }

    /// The recorded transitions, oldest first.
    pub fn state_history(&self) -> Vec<braid_protocol::StateTransition> {
        self.machine.history()
    }

    /// Waits for `save` (the commit of `changes`), polling `beside` meanwhile, answering reads
    /// from what is committed and setting other commands aside; then mirrors `changes` in
    /// memory.
    async fn await_commit<T>(
        &mut self,
        changes: &ContextChanges,
        save: impl std::future::Future<Output = Result<(), braid_store::StoreError>>,
        beside: impl std::future::Future<Output = T>,
    ) -> Result<Option<T>, EngineError> {
        let mut done = None;
        let saved = self
            .serve_reads_until(async {
                tokio::pin!(save);
                tokio::pin!(beside);
                loop {
                    tokio::select! {
                        biased;
                        saved = &mut save => return saved,
                        out = &mut beside, if done.is_none() => done = Some(out),
                    }
                }
            })
            .await;
        if let Err(error) = saved {
            // Reads show the state from now on, stored or not; so do the list and the events.
            let now = self.machine.current().clone();
            self.listing.send_modify(|entry| entry.state = now);
            self.announce_rest().await;
            return Err(error.into());
        }
        self.data.apply(changes);
        self.listing
            .send_replace(self.data.listing(self.machine.current().clone()));
        self.announce_rest().await;
        Ok(done)
    }

    /// Runs `work` (a store call) to its end, answering reads from what is committed and
    /// setting other commands aside meanwhile.
    async fn serve_reads_until<T>(&mut self, work: impl std::future::Future<Output = T>) -> T {
        tokio::pin!(work);
        loop {
            let room = self.recovered && self.inbox.has_room();
            tokio::select! {
                biased;
                done = &mut work => return done,
                Some(command) = self.inbox.arrival(), if room => {
                    if let Command::Read(op) = command {
                        if self.state().kind().is_resting() {
                            op(self, &self.data.record.state);
                        } else {
                            op(self, self.machine.current());
                        }
                    } else {
                        self.inbox.set_aside(command);
                    }
                }
            }
        }
    }

    /// Emits the `context_update` of a move to rest once its commit has ended.
    async fn announce_rest(&mut self) {
        if let Some(from) = self.rest_unannounced.take() {
            self.progress_announced = Some(std::time::Instant::now());
            self.emit_update(Some(from), None, Metadata::new()).await;
        }
    }

    /// Fails the context visibly when the store lost some of its events (they were never
    /// published, so no client saw them): the `error` event tells clients, once the store takes
    /// writes again, that something is missing.
    pub async fn fail_for_lost_events(&mut self, lost: braid_store::LostEvents) {
        let error = braid_store::StoreError::EventsNotWritten {
            reason: format!(
                "{} event(s) of this context could not be stored and were dropped ({}); reload the conversation",
                lost.count, lost.reason
            ),
        };
        self.fail(EngineError::Store(error), true).await;
    }
}

/// What a send started while nothing runs is accepted from.
enum Accept {
    /// A request to the context.
    Request(braid_protocol::SendMessageRequest),
    /// A plan to execute, or to refine with the feedback.
    Plan(MessageId, Option<String>),
    /// Failed input to run again.
    Retry(MessageId),
}

/// Answers a command with an error, whatever its kind.
fn reject(command: Command, error: EngineError) {
    match command {
        Command::Change(op) => {
            // A refusal runs nothing: the operation answers the error at once.
            let _ = futures::FutureExt::now_or_never(op(Err(error)));
        }
        Command::Read(_) => {}
        Command::Send(_, r)
        | Command::ExecutePlan(_, r)
        | Command::RefinePlan { reply: r, .. }
        | Command::RetryMessage(_, r) => {
            let _ = r.send(Err(error));
        }
        Command::Approve(_, r) => {
            let _ = r.send(Err(error));
        }
        Command::Resume(r) => {
            let _ = r.send(Err(error));
        }
        Command::Interrupt(r) | Command::DeleteMessage(_, r) => {
            let _ = r.send(Err(error));
        }
        Command::ControlWorkflow { reply: r, .. } => {
            let _ = r.send(Err(error));
        }
        Command::Shutdown(done) => {
            let _ = done.send(());
        }
    }
}

/// The actor is the host of the turns it runs: it owns the commits and the state machine, and
/// stays responsive while a turn waits.
impl Host for Actor {
    fn context_id(&self) -> ContextId {
        self.id
    }

    fn data(&self) -> &ContextData {
        &self.data
    }

    fn state(&self) -> &ContextState {
        self.machine.current()
    }

    fn settings(&self) -> &crate::services::EngineSettings {
        &self.services.settings
    }

    fn tools(&self) -> &Arc<braid_tools::ToolRegistry> {
        &self.services.tools
    }

    fn mcp(&self) -> Option<&braid_mcp::McpManager> {
        self.services.mcp.as_ref()
    }

    fn llm(&self) -> Option<Arc<dyn braid_llm::LlmClient>> {
        self.services.llm.clone()
    }

    fn pipeline_context(&self) -> crate::pipeline::PipelineContext {
        self.turn_pipeline_context()
    }

    /// Moves the state machine: checks the table, records the move, and emits a
    /// `context_update` (progress within `streaming_llm_response` at most every
    /// [`STREAM_PROGRESS_EVERY`]). A move between resting and working (either way, or between
    /// two resting states) is persisted before this returns, so work starts only once a crash
    /// would find the context working, and a rest is durable before it is reported. A move
    /// from one working state to another is not persisted on its own: it rides with the next
    /// commit. Recovery needs only to know that work was under way (it keeps partial answers
    /// and never repeats an approved call), and a transaction for each of the half-dozen steps
    /// of a turn's start was most of what made a thousand turns' first chunks late.
    async fn transition(&mut self, to: ContextState) -> Result<(), EngineError> {
        let from = self.announce(to).await?;
        let now = self.machine.current().kind();
        if from.kind() != now && (from.kind().is_resting() || now.is_resting()) {
            self.commit(ContextChanges::new()).await?;
        }
        Ok(())
    }

    /// Moves the state machine and emits the `context_update`, without persisting (for callers
    /// that persist the state with their own change set). A resting state is announced (and
    /// listed) only once the commit that stores it ends, so whoever sees it can read it: every
    /// move to rest is followed by that commit.
    async fn announce(&mut self, to: ContextState) -> Result<ContextState, EngineError> {
        let from = self.machine.move_to(to)?;
        let now = self.machine.current().clone();
        tracing::debug!(context = %self.id, from = from.kind().as_str(), to = now.kind().as_str(), "state");
        if now.kind().is_resting() {
            // Two moves before one commit are announced as one, from the first state left.
            self.rest_unannounced.get_or_insert_with(|| from.clone());
            return Ok(from);
        }
        let progress_only = from.kind() == now.kind()
            && matches!(now, ContextState::StreamingLlmResponse { .. })
            && self
                .progress_announced
                .is_some_and(|at| at.elapsed() < STREAM_PROGRESS_EVERY);
        if progress_only {
            // The list shows the stream's progress as the events do, at most every
            // STREAM_PROGRESS_EVERY: not one write of the listing per chunk.
            return Ok(from);
        }
        self.listing.send_modify(|entry| entry.state = now);
        self.progress_announced = Some(std::time::Instant::now());
        self.emit_update(Some(from.clone()), None, Metadata::new())
            .await;
        Ok(from)
    }

    /// [`Host::commit`], polling `beside` while the transaction is in flight: its output when
    /// it finished first (it is dropped unfinished otherwise).
    async fn commit_beside<T: Send>(
        &mut self,
        mut changes: ContextChanges,
        beside: impl std::future::Future<Output = T> + Send,
    ) -> Result<Option<T>, EngineError> {
        changes.state = Some(self.machine.current().clone());
        changes.turns.extend(self.take_turn_start());
        let store = self.services.store.clone();
        let save = store.save_changes(self.id, &changes);
        self.await_commit(&changes, save, beside).await
    }

    /// Queues a change set (with the current state) without waiting for its commit, so a turn
    /// can announce what it stores at once: the store commits the events emitted from now on
    /// no earlier than the change set, and never if it fails. [`Host::settle`] (or
    /// [`Host::settled`], for an outcome already taken) mirrors it in memory once committed.
    /// On a store that cannot order the two, it is committed before this returns.
    async fn queue_commit(
        &mut self,
        mut changes: ContextChanges,
    ) -> Result<QueuedCommit, EngineError> {
        changes.state = Some(self.machine.current().clone());
        changes.turns.extend(self.take_turn_start());
        let store = self.services.store.clone();
        // A store that cannot order them commits the set before answering (PostgreSQL): reads
        // are answered meanwhile, as during any commit.
        let pending = self
            .serve_reads_until(store.queue_changes(self.id, &changes))
            .await?;
        Ok(QueuedCommit { changes, pending })
    }

    /// Takes a queued change set's outcome, already awaited: mirrors it in memory once
    /// committed, or reports the failure as a failed [`Host::commit`] does.
    async fn settled(
        &mut self,
        changes: ContextChanges,
        outcome: Result<(), braid_store::StoreError>,
    ) -> Result<(), EngineError> {
        self.await_commit(
            &changes,
            std::future::ready(outcome),
            std::future::pending::<()>(),
        )
        .await
        .map(|_| ())
    }

    async fn settle(&mut self, queued: QueuedCommit) -> Result<(), EngineError> {
        let QueuedCommit { changes, pending } = queued;
        self.await_commit(&changes, pending, std::future::pending::<()>())
            .await
            .map(|_| ())
    }

    /// Emits `event` as one of the open turn, if one is open.
    async fn emit(&self, mut event: ContextEvent) {
        if let Some(turn) = &self.turn {
            event.stamp_turn(turn.id, &turn.branch);
        }
        let sequenced = self.events.emit(event).await;
        if let (Some(turn), Some(sequenced)) = (&self.turn, sequenced) {
            let _ = turn.first_event.compare_exchange(
                0,
                sequenced.sequence,
                std::sync::atomic::Ordering::Relaxed,
                std::sync::atomic::Ordering::Relaxed,
            );
        }
    }

    async fn flush_events(&self) -> Result<(), braid_store::StoreError> {
        self.events.flush().await
    }

    fn record_request(
        &self,
        record: &braid_protocol::ModelRequestRecord,
    ) -> impl std::future::Future<Output = ()> + Send + 'static {
        let store = self.store().clone();
        let context = self.context_id();
        let stored = crate::turn::stored_request(context, record);
        let id = record.id;
        async move {
            let result = match stored {
                Ok(stored) => store
                    .record_model_request(&stored)
                    .await
                    .map_err(|e| e.to_string()),
                Err(e) => Err(e.to_string()),
            };
            if let Err(error) = result {
                tracing::error!(context = %context, request = %id, %error, "the model request's record could not be kept");
            }
        }
    }

    fn events_lost(
        &self,
    ) -> impl std::future::Future<Output = braid_store::LostEvents> + Send + 'static {
        let events = self.events.clone();
        async move { events.lost().await }
    }

    async fn serve_until<T: Send>(
        &mut self,
        work: impl std::future::Future<Output = T> + Send,
    ) -> T {
        tokio::pin!(work);
        loop {
            tokio::select! {
                biased;
                done = &mut work => return done,
                // `None` never comes twice: once every handle is gone, this waits forever.
                Some(command) = self.inbox.next() => self.handle_while_busy(command).await,
            }
        }
    }

    async fn handle_waiting(&mut self) {
        while let Some(command) = self.inbox.ready() {
            self.handle_while_busy(command).await;
        }
    }

    fn run_call(&self, call: OpenCall) -> impl std::future::Future<Output = Ran> + Send + 'static {
        self.call_runner(call)
    }

    fn is_workflow_tool(&self, name: &str) -> bool {
        self.workflow_tool(name)
    }

    fn workflow_owned_calls(&self) -> Vec<braid_protocol::ToolCallId> {
        self.calls_owned_by_workflows()
    }

    async fn start_model_workflows(&mut self, calls: Vec<OpenCall>) -> Result<bool, EngineError> {
        self.run_model_workflows(calls).await
    }
}
