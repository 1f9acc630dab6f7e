//! The tool loop's round: decide each open call from the policy, wait for a person where
//! needed, run the approved calls (read-only ones together), store one result per call, and
//! stop when a limit, a cycle, a timeout or the person says so. Every stop leaves the history
//! consistent and the loop resumable.

use std::collections::HashSet;
use std::future::Future;
use std::pin::Pin;
use std::time::{Duration, Instant};

use braid_protocol::api::{ApprovalRequest, Decision, McpServerStatus};
use braid_protocol::{
    ApprovalStatus, ContextState, ErrorDetail, LoopStopReason, McpOutcome, Message, MessageKind,
    Recoverability, Role, SystemControlMessage, ToolCallId, ToolOutcome,
};
use braid_store::ContextChanges;
use braid_tools::{ToolOutput, ToolRegistry};
use futures::StreamExt;
use futures::stream::FuturesUnordered;
use serde_json::Value;

use super::Turn;
use crate::approval::{Access, CallFacts, PolicyDecision, decide_with_rules, max_depth};
use crate::calls::{OpenCall, Ran, decision_reasons, open_calls, with_approvals};
use crate::context::ContextData;
use crate::error::EngineError;
use crate::host::Host;

/// How a round ended.
pub(crate) enum RoundOutcome {
    /// Results are in; ask the model again.
    Continue,
    /// The context moved to a resting state (approval, question, pause, idle).
    Rested,
}

impl Turn {
    /// Starts a round for the open calls: checks the depth limit and cycles, applies the policy,
    /// and either waits for a person or runs the calls.
    pub(crate) async fn tool_round<H: Host>(
        &mut self,
        host: &mut H,
    ) -> Result<RoundOutcome, EngineError> {
        let open = open_calls(host.data());
        if open.is_empty() {
            return Ok(RoundOutcome::Continue);
        }
        let config = host.data().record.config.clone();
        let limit = max_depth(&config.approval_policy, host.settings().max_loop_depth);
        if self.progress.depth >= limit {
            self.stop_loop(host,
                LoopStopReason::DepthLimit,
                format!(
                    "Stopped after {} rounds of tool calls (the limit). Resume to run the {} waiting call(s) and continue.",
                    self.progress.depth,
                    open.len()
                ),
            )
            .await?;
            return Ok(RoundOutcome::Rested);
        }
        self.progress.depth += 1;
        host.transition(ContextState::ToolAutoLoop {
            depth: self.progress.depth,
            tools_executed: self.progress.tools_executed,
        })
        .await?;
        let mut cycle = None;
        for c in open
            .iter()
            .filter(|c| c.approval == ApprovalStatus::Pending)
        {
            if self.progress.cycles.record(&c.name, &c.arguments) {
                cycle = Some(c.name.clone());
            }
        }
        if let Some(tool) = cycle {
            self.close_round(
                host,
                &open,
                "not executed: the same call was repeated; the loop stopped",
            )
            .await?;
            self.stop_loop(host,
                LoopStopReason::CycleDetected,
                format!("Stopped: the model repeated the same `{tool}` call. Resume (or send a message) to continue."),
            )
            .await?;
            return Ok(RoundOutcome::Rested);
        }
        let mut decisions = Vec::new();
        for c in open
            .iter()
            .filter(|c| c.approval == ApprovalStatus::Pending)
        {
            if policy_runs(host, c) {
                decisions.push((c.message_id, c.index, ApprovalStatus::Approved));
            }
        }
        if !decisions.is_empty() {
            let changed = with_approvals(host.data(), &decisions);
            let mut changes = ContextChanges::new();
            changes.updated_messages = changed;
            host.commit(changes).await?;
        }
        self.wait_or_run(host).await
    }

    /// Waits in `AwaitingToolApproval` while some open call is undecided; otherwise runs the
    /// round.
    async fn wait_or_run<H: Host>(&mut self, host: &mut H) -> Result<RoundOutcome, EngineError> {
        let pending: Vec<OpenCall> = open_calls(host.data())
            .into_iter()
            .filter(|c| c.approval == ApprovalStatus::Pending)
            .collect();
        if pending.is_empty() {
            return self.run_round(host).await;
        }
        host.rest(awaiting_approval(&pending)).await;
        Ok(RoundOutcome::Rested)
    }

    /// Runs the approved open calls (denied ones get an error result), stores the results and
    /// decides whether the loop goes on.
    pub(crate) async fn run_round<H: Host>(
        &mut self,
        host: &mut H,
    ) -> Result<RoundOutcome, EngineError> {
        // Calls a workflow run owns are answered by that run, not by this round; approved
        // `workflow__<name>` calls start their runs once the round's other calls are done.
        let owned = host.workflow_owned_calls();
        let open: Vec<OpenCall> = open_calls(host.data())
            .into_iter()
            .filter(|c| !owned.contains(&c.id))
            .collect();
        let reasons = decision_reasons(host.data(), &open);
        let mut results: Vec<Message> = Vec::new();
        let mut to_run: Vec<OpenCall> = Vec::new();
        let mut workflows: Vec<OpenCall> = Vec::new();
        for c in open {
            match (c.approval, &c.invalid_arguments) {
                (ApprovalStatus::Approved, None) if host.is_workflow_tool(&c.name) => {
                    workflows.push(c)
                }
                (ApprovalStatus::Denied, _) => {
                    let why = reasons
                        .iter()
                        .find(|(id, _)| id == &c.id)
                        .map(|(_, r)| format!("denied by the person: {r}"))
                        .unwrap_or_else(|| "denied by the person".to_owned());
                    let mut m = c.not_run(&why);
                    if let MessageKind::ToolResult(r) = &mut m.kind
                        && let braid_protocol::ToolOutcome::Error { error } = &mut r.outcome
                    {
                        error.code = Some("denied".to_owned());
                    }
                    results.push(m);
                }
                (_, Some(reason)) => {
                    results.push(c.not_run(&format!("not run: {reason}")));
                }
                _ => to_run.push(c),
            }
        }
        let all_read_only = to_run.iter().all(|c| {
            host.tools()
                .get(&c.name)
                .is_some_and(|t| t.spec().is_read_only())
        });
        let timeout = Duration::from_secs(u64::from(
            host.data().record.config.tool_timeout_secs.max(1),
        ));
        let deadline = self.start_iteration(timeout);
        let batch = if all_read_only && to_run.len() > 1 {
            Batch::Together
        } else {
            Batch::OneByOne
        };
        let (ran, mut stop) = self.run_calls(host, &to_run, batch, deadline).await?;
        if stop.is_none() && self.interrupt.is_cancelled() {
            stop = Some(LoopStopReason::Interrupted);
        }
        // From the first result gathered to the last; the results are stored once processed.
        host.transition(ContextState::CollectingToolResults).await?;
        let mut produced: Vec<Message> = Vec::new();
        let ran_ids: HashSet<ToolCallId> = ran.iter().map(|r| r.call.id.clone()).collect();
        for r in ran {
            let outcome = braid_tools::tool::to_outcome(&r.result);
            let ms = r.elapsed.as_millis() as u64;
            results.push(r.call.result_message(
                outcome,
                ms,
                r.started,
                r.started + chrono::Duration::milliseconds(ms as i64),
            ));
            if let Ok(ToolOutput {
                message: Some(kind),
                ..
            }) = r.result
            {
                let mut m = Message::new(Role::Assistant, kind);
                if let Some(turn) = r.call.turn {
                    m.set_turn_id(turn);
                }
                produced.push(m);
            }
        }
        if stop == Some(LoopStopReason::Timeout) {
            // Calls that did not finish within the iteration's time get an error result, so the
            // history stays consistent.
            for c in to_run.iter().filter(|c| !ran_ids.contains(&c.id)) {
                results.push(c.not_run(&format!(
                    "timed out: the round took longer than {} s",
                    timeout.as_secs()
                )));
            }
        }
        self.progress.tools_executed += ran_ids.len() as u32;
        host.transition(ContextState::ProcessingToolResults).await?;
        let branch = host.data().record.active_branch.clone();
        let mut changes = ContextChanges::new();
        for m in results.iter().chain(&produced) {
            changes.push_message(&branch, m.clone());
        }
        host.commit(changes).await?;
        for m in results.iter().chain(&produced) {
            host.emit_created(m).await;
        }
        if let Some(reason) = stop {
            let detail = match reason {
                LoopStopReason::Interrupted => "Interrupted: the running tool finished and nothing more was started. Resume to continue.".to_owned(),
                LoopStopReason::Timeout => format!("A round of tool calls took longer than {} s and was stopped. Resume to continue.", timeout.as_secs()),
                other => other.to_string(),
            };
            self.stop_loop(host, reason, detail).await?;
            return Ok(RoundOutcome::Rested);
        }
        for m in &produced {
            match &m.kind {
                MessageKind::Question(_) => {
                    host.rest(ContextState::AwaitingUserAnswer { question_id: m.id })
                        .await;
                    return Ok(RoundOutcome::Rested);
                }
                MessageKind::Plan(_) => {
                    host.rest(ContextState::Idle).await;
                    return Ok(RoundOutcome::Rested);
                }
                _ => {}
            }
        }
        if !workflows.is_empty() && !host.start_model_workflows(workflows).await? {
            return Ok(RoundOutcome::Rested);
        }
        Ok(RoundOutcome::Continue)
    }

    /// Gives every open call an error result (when a new message arrives, or a cycle stops the
    /// loop), leaving `AwaitingToolApproval` if the context was there.
    pub(crate) async fn close_open_calls<H: Host>(
        &mut self,
        host: &mut H,
        reason: &str,
        except: &[ToolCallId],
    ) -> Result<(), EngineError> {
        let open: Vec<OpenCall> = open_calls(host.data())
            .into_iter()
            .filter(|c| !except.contains(&c.id))
            .collect();
        let waiting = matches!(host.state(), ContextState::AwaitingToolApproval { .. });
        if open.is_empty() && !waiting {
            return Ok(());
        }
        // The approval wait ends even when the send itself answers every call.
        if waiting {
            host.transition(ContextState::CollectingToolResults).await?;
            host.transition(ContextState::ProcessingToolResults).await?;
        }
        if !open.is_empty() {
            self.close_round(host, &open, reason).await?;
        }
        if waiting {
            host.transition(ContextState::Idle).await?;
        }
        Ok(())
    }

    pub(crate) async fn close_round<H: Host>(
        &mut self,
        host: &mut H,
        open: &[OpenCall],
        reason: &str,
    ) -> Result<(), EngineError> {
        let branch = host.data().record.active_branch.clone();
        let mut changes = ContextChanges::new();
        let results: Vec<Message> = open.iter().map(|c| c.not_run(reason)).collect();
        for m in &results {
            changes.push_message(&branch, m.clone());
        }
        host.commit(changes).await?;
        for m in &results {
            host.emit_created(m).await;
        }
        Ok(())
    }

    /// Pauses the loop and tells the person why, with a `loop_stopped` notice.
    pub(crate) async fn stop_loop<H: Host>(
        &mut self,
        host: &mut H,
        reason: LoopStopReason,
        detail: String,
    ) -> Result<(), EngineError> {
        if reason == LoopStopReason::Timeout {
            // A timeout is an error the person is told of, not routine.
            tracing::error!(context = %host.context_id(), depth = self.progress.depth, %detail, "tool loop iteration timed out");
            host.emit_error(braid_protocol::ErrorCode::Timeout, detail.clone(), true)
                .await;
        } else {
            tracing::info!(context = %host.context_id(), reason = %reason, depth = self.progress.depth, "tool loop stopped");
        }
        let notice = Message::new(
            Role::Assistant,
            MessageKind::SystemControl(SystemControlMessage::LoopStopped {
                reason,
                depth: self.progress.depth,
                tools_executed: self.progress.tools_executed,
                detail,
            }),
        );
        // The pause is stored with the notice that explains it, in one transaction.
        host.announce(ContextState::Paused {
            reason,
            depth: self.progress.depth,
            tools_executed: self.progress.tools_executed,
        })
        .await?;
        let branch = host.data().record.active_branch.clone();
        host.commit(ContextChanges::new().add_message(&branch, notice.clone()))
            .await?;
        host.emit_created(&notice).await;
        Ok(())
    }

    /// Runs one approved call on its own (a workflow's tool step) within the context's tool
    /// timeout, and stores its result; answers the outcome.
    pub(crate) async fn execute_call<H: Host>(
        &mut self,
        host: &mut H,
        call: OpenCall,
    ) -> Result<ToolOutcome, EngineError> {
        let timeout = Duration::from_secs(u64::from(
            host.data().record.config.tool_timeout_secs.max(1),
        ));
        let (mut ran, _) = self
            .run_calls(
                host,
                std::slice::from_ref(&call),
                Batch::Together,
                Instant::now() + timeout,
            )
            .await?;
        let ran = ran.pop();
        let (result, outcome) = match ran {
            Some(r) => {
                let outcome = braid_tools::tool::to_outcome(&r.result);
                let ms = r.elapsed.as_millis() as u64;
                (
                    r.call.result_message(
                        outcome.clone(),
                        ms,
                        r.started,
                        r.started + chrono::Duration::milliseconds(ms as i64),
                    ),
                    outcome,
                )
            }
            None => {
                let m = call.not_run(&format!("timed out after {} s", timeout.as_secs()));
                let outcome = match &m.kind {
                    MessageKind::ToolResult(r) => r.outcome.clone(),
                    _ => ToolOutcome::Error {
                        error: ErrorDetail::new("timed out", Recoverability::Recoverable),
                    },
                };
                (m, outcome)
            }
        };
        let outcome = match (&result.kind, outcome) {
            (MessageKind::McpToolResult(r), _) => match &r.outcome {
                McpOutcome::Success { result } => ToolOutcome::Success {
                    output: result.clone(),
                },
                McpOutcome::Error { error, .. } => ToolOutcome::Error {
                    error: error.clone(),
                },
            },
            (_, outcome) => outcome,
        };
        self.progress.tools_executed += 1;
        let branch = host.data().record.active_branch.clone();
        host.commit(ContextChanges::new().add_message(&branch, result.clone()))
            .await?;
        host.emit_created(&result).await;
        Ok(outcome)
    }

    /// Stores a new approval status for one call.
    pub(crate) async fn set_approval<H: Host>(
        &mut self,
        host: &mut H,
        call: &OpenCall,
        status: ApprovalStatus,
    ) -> Result<(), EngineError> {
        let mut changes = ContextChanges::new();
        changes.updated_messages =
            with_approvals(host.data(), &[(call.message_id, call.index, status)]);
        host.commit(changes).await
    }
}

/// How the calls of a round run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Batch {
    /// All at once (read-only calls, or a single call).
    Together,
    /// One after another; an interrupt keeps the next from starting.
    OneByOne,
}

/// What one call of a round came to.
enum CallStep {
    /// A try ended.
    Ended { slot: usize, attempt: u32, ran: Ran },
    /// The wait before the next try is over; `failed` is the last try, which stands as the
    /// call's result if no other try starts (an interrupt came meanwhile).
    RetryDue {
        slot: usize,
        attempt: u32,
        failed: Ran,
    },
}

type CallFuture = Pin<Box<dyn Future<Output = CallStep> + Send>>;

/// The wait before a call's second try; doubled for each further one.
const RETRY_BACKOFF: Duration = Duration::from_millis(100);

/// The longest a call waits for its MCP server to be connected again before its next try (the
/// round's deadline may end the wait sooner).
const RECONNECT_WAIT: Duration = Duration::from_secs(10);

impl Turn {
    /// Runs `calls` as `batch` says until `deadline`, trying a call again while it fails
    /// transiently and its tool allows it (an MCP server reconnecting). Each call's start, each
    /// further try and each end is a move of `executing_tool`, made as it happens. Answers the
    /// finished calls, and why the round stopped before they all did (its deadline, an
    /// interrupt between calls).
    pub(crate) async fn run_calls<H: Host>(
        &mut self,
        host: &mut H,
        calls: &[OpenCall],
        batch: Batch,
        deadline: Instant,
    ) -> Result<(Vec<Ran>, Option<LoopStopReason>), EngineError> {
        let total = calls.len() as u32;
        // A call tried again counts from its first try.
        let mut first_try: Vec<Option<(chrono::DateTime<chrono::Utc>, Instant)>> =
            vec![None; calls.len()];
        let mut running: FuturesUnordered<CallFuture> = FuturesUnordered::new();
        let mut next = 0;
        let mut finished = 0u32;
        let mut ran = Vec::new();
        loop {
            while next < calls.len() && (batch == Batch::Together || running.is_empty()) {
                if batch == Batch::OneByOne && self.interrupt.is_cancelled() {
                    return Ok((ran, Some(LoopStopReason::Interrupted)));
                }
                first_try[next] = Some((chrono::Utc::now(), Instant::now()));
                start_try(host, calls, next, 1, finished, &mut running).await?;
                next += 1;
            }
            let Some(step) = host.run_while_busy(running.next(), deadline).await else {
                return Ok((ran, Some(LoopStopReason::Timeout)));
            };
            let (slot, attempt, mut done) = match step {
                None => return Ok((ran, None)),
                Some(CallStep::Ended { slot, attempt, ran }) => {
                    let again = ran
                        .result
                        .as_ref()
                        .err()
                        .is_some_and(|error| another_try(host, &calls[slot], attempt, error));
                    if again && !self.interrupt.is_cancelled() {
                        tracing::warn!(context = %host.context_id(), tool = %calls[slot].name, attempt, error = ?ran.result.as_ref().err().map(ToString::to_string), "tool call failed transiently; trying it again");
                        running.push(retry_after(host, &calls[slot], slot, attempt, ran));
                        continue;
                    }
                    (slot, attempt, ran)
                }
                Some(CallStep::RetryDue {
                    slot,
                    attempt,
                    failed,
                }) => {
                    if !self.interrupt.is_cancelled() {
                        start_try(host, calls, slot, attempt + 1, finished, &mut running).await?;
                        continue;
                    }
                    (slot, attempt, failed)
                }
            };
            if let (true, Some((started, clock))) = (attempt > 1, first_try[slot]) {
                done.started = started;
                done.elapsed = clock.elapsed();
            }
            finished += 1;
            host.transition(executing(&calls[slot], slot, total, attempt, finished))
                .await?;
            ran.push(done);
        }
    }
}

/// The `executing_tool` state of try `attempt` of call `slot`.
fn executing(
    call: &OpenCall,
    slot: usize,
    total: u32,
    attempt: u32,
    finished: u32,
) -> ContextState {
    ContextState::ExecutingTool {
        tool_name: call.name.clone(),
        index: slot as u32 + 1,
        total,
        attempt,
        finished,
    }
}

/// Announces try `attempt` of call `slot` and starts it among `running`.
async fn start_try<H: Host>(
    host: &mut H,
    calls: &[OpenCall],
    slot: usize,
    attempt: u32,
    finished: u32,
    running: &mut FuturesUnordered<CallFuture>,
) -> Result<(), EngineError> {
    let call = &calls[slot];
    host.transition(executing(call, slot, calls.len() as u32, attempt, finished))
        .await?;
    let run = host.run_call(call.clone());
    running.push(Box::pin(async move {
        CallStep::Ended {
            slot,
            attempt,
            ran: run.await,
        }
    }));
    Ok(())
}

/// Whether a call that failed on try `attempt` gets another. A call of an MCP tool whose server
/// is away (so the tool is not registered and the call never reached it) is tried up to
/// [`braid_mcp::RECONNECT_ATTEMPTS`] times; any other failure is tried again only when it is
/// transient and the tool's own rule allows it (a call that may have reached its server is
/// repeated only for a tool that is safe to repeat).
fn another_try<H: Host>(
    host: &H,
    call: &OpenCall,
    attempt: u32,
    error: &braid_tools::ToolError,
) -> bool {
    let server_away = error.code == braid_tools::ToolErrorCode::NotFound
        && mcp_server_of(host, call).is_some_and(|server| {
            host.mcp().and_then(|m| m.server(&server)).is_some_and(|s| {
                matches!(
                    s.status,
                    McpServerStatus::Starting | McpServerStatus::Failed
                )
            })
        });
    if server_away {
        return attempt < braid_mcp::RECONNECT_ATTEMPTS;
    }
    host.tools()
        .get(&call.name)
        .is_some_and(|tool| tool.spec().retry.allows_another(attempt, error))
}

/// The MCP server a call goes to: its request names it; a call the model made while the
/// server was away (its tools unregistered, so the call was not routed) is known by its name,
/// `mcp__<server>__<tool>`.
fn mcp_server_of<H: Host>(host: &H, call: &OpenCall) -> Option<String> {
    if let Some((server, _)) = &call.mcp {
        return Some(server.clone());
    }
    let rest = call.name.strip_prefix(braid_mcp::naming::PREFIX)?;
    host.mcp()?
        .servers()
        .into_iter()
        .map(|s| s.name)
        .filter(|name| {
            rest.strip_prefix(name.as_str())
                .is_some_and(|tool| tool.starts_with("__"))
        })
        .max_by_key(String::len)
}

/// The wait before the next try of a call that failed on try `attempt`: a backoff, then, for
/// a call of an MCP tool, until its server is connected again.
fn retry_after<H: Host>(
    host: &H,
    call: &OpenCall,
    slot: usize,
    attempt: u32,
    failed: Ran,
) -> CallFuture {
    let backoff = RETRY_BACKOFF.saturating_mul(1 << attempt.saturating_sub(1).min(5));
    let server = mcp_server_of(host, call);
    let mcp = host.mcp().cloned();
    Box::pin(async move {
        tokio::time::sleep(backoff).await;
        if let (Some(mcp), Some(server)) = (mcp, server) {
            mcp.wait_for_status(&server, McpServerStatus::Ready, RECONNECT_WAIT)
                .await;
        }
        CallStep::RetryDue {
            slot,
            attempt,
            failed,
        }
    })
}

/// Whether a call may run without asking the person: the policy, the person's approvals
/// for this session and the MCP server's `autoApprove` say so, or the call cannot run at
/// all (unknown tool, unusable arguments) and gets an error result anyway. A workflow
/// (`workflow__<name>`) counts as a tool that changes things.
pub(crate) fn policy_runs<H: Host>(host: &H, c: &OpenCall) -> bool {
    let config = &host.data().record.config;
    let spec = host.tools().get(&c.name).map(|t| t.spec().clone());
    let route = host.mcp().and_then(|m| m.route(&c.name));
    // The spec's permissions already count an MCP hint only for trusted servers; the
    // route tells an untrusted claim apart from no claim.
    let access = if spec.as_ref().is_some_and(|s| s.is_read_only()) {
        Access::ReadOnly
    } else if route
        .as_ref()
        .is_some_and(|r| r.read_only_hint == braid_mcp::ReadOnlyHint::Untrusted)
    {
        Access::ClaimedReadOnly
    } else {
        Access::Changes
    };
    let server_auto_approved = route
        .as_ref()
        .is_some_and(|r| r.approval == braid_mcp::AutoApproval::Approved);
    let facts = CallFacts {
        tool: &c.name,
        access,
        server_auto_approved,
        category: spec.as_ref().map(|s| s.category),
    };
    let approved: std::collections::BTreeSet<String> =
        config.approved_tools.iter().cloned().collect();
    // A call to a switched-off MCP tool is not asked about: it gets its error result.
    let runnable = (spec.is_some() || host.is_workflow_tool(&c.name))
        && c.invalid_arguments.is_none()
        && switched_off(host.data(), host.tools(), &c.name).is_none();
    // Leaving the sandbox is refused by the operator's settings whatever a person says: the
    // call gets that refusal as its result instead of asking for what cannot be granted.
    let cannot_leave = crate::approval::leaves_sandbox(&c.name, &c.arguments)
        && host.settings().unsandboxed == braid_tools::Unsandboxed::Refused;
    !runnable
        || cannot_leave
        || decide_with_rules(
            &config.approval_policy,
            &approved,
            &config.command_rules,
            facts,
            &c.arguments,
        ) == PolicyDecision::Run
}

/// Why this context switched off the tool `name` (an MCP tool of a switched-off server, or
/// the tool itself); `None` when it may run.
pub(crate) fn switched_off(
    data: &ContextData,
    tools: &ToolRegistry,
    name: &str,
) -> Option<braid_protocol::config::McpSwitchOff> {
    let server = tools.get(name).and_then(|t| match &t.spec().origin {
        braid_tools::ToolOrigin::Mcp { server } => Some(server.clone()),
        braid_tools::ToolOrigin::Builtin => None,
    });
    data.record.config.mcp_switch_off(name, server.as_deref())
}

/// Records a person's decisions. Answers whether every open call is now decided.
pub(crate) async fn record_decisions<H: Host>(
    host: &mut H,
    request: ApprovalRequest,
) -> Result<bool, EngineError> {
    if !matches!(host.state(), ContextState::AwaitingToolApproval { .. }) {
        return Err(EngineError::Conflict(format!(
            "no call is waiting for approval (the context is {})",
            host.state().kind()
        )));
    }
    let open = open_calls(host.data());
    let mut decisions = Vec::new();
    let mut config = host.data().record.config.clone();
    let mut reasons = Vec::new();
    for d in &request.decisions {
        let Some(call) = open
            .iter()
            .find(|c| c.id == d.call_id && c.approval == ApprovalStatus::Pending)
        else {
            return Err(EngineError::Conflict(format!(
                "call `{}` is not waiting for approval",
                d.call_id
            )));
        };
        let status = match d.decision {
            Decision::Approve => ApprovalStatus::Approved,
            Decision::Deny => ApprovalStatus::Denied,
            Decision::ApproveForSession
                if crate::approval::leaves_sandbox(&call.name, &call.arguments) =>
            {
                return Err(EngineError::Conflict(format!(
                    "call `{}` asks to run outside the sandbox: approve it once (`approve`), it is never approved for the session",
                    call.id
                )));
            }
            Decision::ApproveForSession => {
                // A command is approved by the rule it would add (`cargo test`), never by
                // approving every command; other tools are approved by name.
                match session_rule(call) {
                    Some(rule) if !config.command_rules.iter().any(|r| r.allows_as(&rule)) => {
                        config.command_rules.push(rule);
                    }
                    Some(_) => {}
                    None if call.name != "run_command"
                        && !config.approved_tools.contains(&call.name) =>
                    {
                        config.approved_tools.push(call.name.clone());
                    }
                    None => {}
                }
                ApprovalStatus::Approved
            }
        };
        if let Some(reason) = &d.reason {
            reasons.push((call.message_id, call.id.clone(), reason.clone()));
        }
        decisions.push((call.message_id, call.index, status));
    }
    let mut changed = with_approvals(host.data(), &decisions);
    for (message_id, call_id, reason) in reasons {
        if let Some(m) = changed.iter_mut().find(|m| m.id == message_id) {
            let reasons = m
                .metadata
                .entry("decision_reasons")
                .or_insert_with(|| Value::Object(Default::default()));
            if let Value::Object(map) = reasons {
                map.insert(call_id.to_string(), Value::String(reason));
            }
        }
    }
    let mut changes = ContextChanges::new();
    changes.updated_messages = changed;
    if config != host.data().record.config {
        changes.config = Some(config);
    }
    host.commit(changes).await?;
    let still: Vec<OpenCall> = open_calls(host.data())
        .into_iter()
        .filter(|c| c.approval == ApprovalStatus::Pending)
        .collect();
    if still.is_empty() {
        return Ok(true);
    }
    // Persisted once below, whether or not the kind of state changed (fewer calls wait).
    host.announce(awaiting_approval(&still)).await?;
    host.persist_state().await;
    Ok(false)
}

/// The state of a context waiting for a person's decision on `pending`, with the rule
/// "approve for this session" would add for each call a rule can describe.
pub(crate) fn awaiting_approval(pending: &[OpenCall]) -> ContextState {
    ContextState::AwaitingToolApproval {
        pending_requests: pending.iter().map(|c| c.id.clone()).collect(),
        tool_names: pending.iter().map(|c| c.name.clone()).collect(),
        offered_rules: pending
            .iter()
            .filter_map(|c| {
                session_rule(c).map(|rule| braid_protocol::OfferedRule {
                    call_id: c.id.clone(),
                    rule,
                })
            })
            .collect(),
    }
}

/// The rule "approve for this session" adds for a `run_command` call: its program with the
/// argument prefix that names what it does (`cargo test`, `npm run lint`); `None` for other
/// tools, and for a command no rule can describe safely (a shell string, a launcher), which is
/// then approved once only.
pub(crate) fn session_rule(call: &OpenCall) -> Option<braid_protocol::CommandRule> {
    if call.name != "run_command" || crate::approval::leaves_sandbox(&call.name, &call.arguments) {
        return None;
    }
    let program = call.arguments.get("program")?.as_str()?;
    let args: Vec<String> = match call.arguments.get("args") {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Array(items)) => items
            .iter()
            .map(|a| a.as_str().map(str::to_owned))
            .collect::<Option<_>>()?,
        Some(_) => return None,
    };
    braid_tools::command_rule::offered_rule(braid_tools::command_rule::CommandLine {
        program,
        args: &args,
    })
}
