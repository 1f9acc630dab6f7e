//! The tool loop: decide each open call from the policy, wait for a person where needed, run the
//! approved calls (read-only ones together), store one result per call, and stop when a limit,
//! a cycle, a timeout or the person says so. Every stop leaves the history consistent and the
//! loop resumable.

use std::collections::HashSet;
use std::time::{Duration, Instant};

use braid_protocol::api::{ApprovalRequest, Decision};
use braid_protocol::{
    ApprovalStatus, ContextState, ErrorDetail, LoopStopReason, McpOutcome, McpToolResultMessage,
    Message, MessageId, MessageKind, Recoverability, Role, SystemControlMessage, ToolCallId,
    ToolOutcome, ToolResultMessage,
};
use braid_store::ContextChanges;
use braid_tools::{ToolContext, ToolOutput};
use chrono::{DateTime, Utc};
use futures::future::join_all;
use serde_json::Value;

use crate::actor::Actor;
use crate::approval::{Access, CallFacts, PolicyDecision, decide, max_depth};
use crate::error::EngineError;

/// How a round ended.
pub(crate) enum RoundOutcome {
    /// Results are in; ask the model again.
    Continue,
    /// The context moved to a resting state (approval, question, pause, idle).
    Rested,
}

/// A tool call that has no result yet.
#[derive(Clone, Debug)]
pub(crate) struct OpenCall {
    /// The request message holding it.
    pub message_id: MessageId,
    /// Its position in that message's calls (0 for MCP requests).
    pub index: usize,
    pub id: ToolCallId,
    pub name: String,
    pub arguments: Value,
    pub approval: ApprovalStatus,
    /// The MCP server and its tool name, for MCP calls.
    pub mcp: Option<(String, String)>,
    /// Why the arguments could not be used, when they could not.
    pub invalid_arguments: Option<String>,
    pub turn: Option<braid_protocol::TurnId>,
}

impl OpenCall {
    /// The result message answering this call.
    pub fn result_message(
        &self,
        outcome: ToolOutcome,
        duration_ms: u64,
        started: DateTime<Utc>,
        completed: DateTime<Utc>,
    ) -> Message {
        let kind = match &self.mcp {
            Some((server, tool)) => MessageKind::McpToolResult(McpToolResultMessage {
                server_name: server.clone(),
                tool_name: tool.clone(),
                request_id: self.id.clone(),
                outcome: match outcome {
                    ToolOutcome::Success { output } => McpOutcome::Success { result: output },
                    ToolOutcome::Error { error } => McpOutcome::Error {
                        error,
                        result: Value::Null,
                    },
                },
                executed_at: started,
                duration_ms,
            }),
            None => MessageKind::ToolResult(ToolResultMessage {
                call_id: self.id.clone(),
                tool_name: self.name.clone(),
                outcome,
                duration_ms,
                started_at: Some(started),
                completed_at: Some(completed),
            }),
        };
        let mut m = Message::new(Role::Tool, kind);
        if let Some(turn) = self.turn {
            m.set_turn_id(turn);
        }
        m
    }

    /// An error result for a call that did not run.
    pub fn not_run(&self, reason: &str) -> Message {
        let now = Utc::now();
        self.result_message(
            ToolOutcome::Error {
                error: ErrorDetail::new(reason, Recoverability::Recoverable)
                    .with_code("not_executed"),
            },
            0,
            now,
            now,
        )
    }
}

/// The result of running one call.
pub(crate) struct Ran {
    call: OpenCall,
    result: Result<ToolOutput, braid_tools::ToolError>,
    started: DateTime<Utc>,
    elapsed: Duration,
}

impl Actor {
    /// The calls on the active branch without a result, in order.
    pub(crate) fn open_calls(&self) -> Vec<OpenCall> {
        let mut open: Vec<OpenCall> = Vec::new();
        let mut answered: HashSet<ToolCallId> = HashSet::new();
        for m in self.data.active_messages() {
            match &m.kind {
                MessageKind::ToolRequest(r) => {
                    let invalid = m.metadata.get("invalid_arguments");
                    for (index, c) in r.calls.iter().enumerate() {
                        open.push(OpenCall {
                            message_id: m.id,
                            index,
                            id: c.id.clone(),
                            name: c.name.clone(),
                            arguments: c.arguments.clone(),
                            approval: c.approval_status,
                            mcp: None,
                            invalid_arguments: invalid
                                .and_then(|i| i.get(c.id.as_str()))
                                .and_then(|v| v.get("reason"))
                                .and_then(Value::as_str)
                                .map(str::to_owned),
                            turn: m.turn_id(),
                        });
                    }
                }
                MessageKind::McpToolRequest(r) => open.push(OpenCall {
                    message_id: m.id,
                    index: 0,
                    id: r.request_id.clone(),
                    name: r.called_as.clone(),
                    arguments: r.arguments.clone(),
                    approval: r.approval_status,
                    mcp: Some((r.server_name.clone(), r.tool_name.clone())),
                    invalid_arguments: None,
                    turn: m.turn_id(),
                }),
                _ => {
                    if let Some(id) = m.tool_call_id() {
                        answered.insert(id.clone());
                    }
                }
            }
        }
        open.retain(|c| !answered.contains(&c.id));
        open
    }

    /// A copy of a request message with new approval statuses for some of its calls.
    fn with_approvals(&self, decisions: &[(MessageId, usize, ApprovalStatus)]) -> Vec<Message> {
        let mut changed: Vec<Message> = Vec::new();
        for (message_id, index, status) in decisions {
            let existing = changed.iter().position(|m| m.id == *message_id);
            let mut m = match existing {
                Some(i) => changed.remove(i),
                None => match self.data.pool.get(message_id) {
                    Some(m) => m.clone(),
                    None => continue,
                },
            };
            match &mut m.kind {
                MessageKind::ToolRequest(r) => {
                    if let Some(c) = r.calls.get_mut(*index) {
                        c.approval_status = *status;
                    }
                }
                MessageKind::McpToolRequest(r) => r.approval_status = *status,
                _ => {}
            }
            m.updated_at = Utc::now();
            changed.push(m);
        }
        changed
    }

    /// Starts a round for the open calls: checks the depth limit and cycles, applies the policy,
    /// and either waits for a person or runs the calls.
    pub(crate) async fn tool_round(&mut self) -> Result<RoundOutcome, EngineError> {
        let open = self.open_calls();
        if open.is_empty() {
            return Ok(RoundOutcome::Continue);
        }
        let config = self.data.record.config.clone();
        let limit = max_depth(
            &config.approval_policy,
            self.services.settings.max_loop_depth,
        );
        if self.progress.depth >= limit {
            self.stop_loop(
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
        self.transition(ContextState::ToolAutoLoop {
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
                &open,
                "not executed: the same call was repeated; the loop stopped",
            )
            .await?;
            self.stop_loop(
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
            if self.policy_runs(c) {
                decisions.push((c.message_id, c.index, ApprovalStatus::Approved));
            }
        }
        if !decisions.is_empty() {
            let changed = self.with_approvals(&decisions);
            let mut changes = ContextChanges::new();
            changes.updated_messages = changed;
            self.commit(changes).await?;
        }
        self.wait_or_run().await
    }

    /// Whether a call may run without asking the person: the policy, the person's approvals
    /// for this session and the MCP server's `autoApprove` say so, or the call cannot run at
    /// all (unknown tool, unusable arguments) and gets an error result anyway. A workflow
    /// (`workflow__<name>`) counts as a tool that changes things.
    pub(crate) fn policy_runs(&self, c: &OpenCall) -> bool {
        let config = &self.data.record.config;
        let spec = self.services.tools.get(&c.name).map(|t| t.spec().clone());
        let route = self.services.mcp.as_ref().and_then(|m| m.route(&c.name));
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
        let runnable = (spec.is_some() || self.is_workflow_tool(&c.name))
            && c.invalid_arguments.is_none()
            && self.switched_off(&c.name).is_none();
        !runnable || decide(&config.approval_policy, &approved, facts) == PolicyDecision::Run
    }

    /// Why this context switched off the tool `name` (an MCP tool of a switched-off server, or
    /// the tool itself); `None` when it may run.
    pub(crate) fn switched_off(&self, name: &str) -> Option<braid_protocol::config::McpSwitchOff> {
        let server = self
            .services
            .tools
            .get(name)
            .and_then(|t| match &t.spec().origin {
                braid_tools::ToolOrigin::Mcp { server } => Some(server.clone()),
                braid_tools::ToolOrigin::Builtin => None,
            });
        self.data
            .record
            .config
            .mcp_switch_off(name, server.as_deref())
    }

    /// Whether `name` is the tool of a workflow this context can run.
    pub(crate) fn is_workflow_tool(&self, name: &str) -> bool {
        name.strip_prefix(crate::workflow::TOOL_PREFIX)
            .is_some_and(|n| {
                self.workflow_catalog()
                    .get(n)
                    .is_some_and(|e| e.definition.is_some())
            })
    }

    /// Stores a new approval status for one call.
    pub(crate) async fn set_approval(
        &mut self,
        call: &OpenCall,
        status: ApprovalStatus,
    ) -> Result<(), EngineError> {
        let mut changes = ContextChanges::new();
        changes.updated_messages = self.with_approvals(&[(call.message_id, call.index, status)]);
        self.commit(changes).await
    }

    /// Runs one approved call on its own (a workflow's tool step) within the context's tool
    /// timeout, and stores its result; answers the outcome.
    pub(crate) async fn execute_call(
        &mut self,
        call: OpenCall,
    ) -> Result<ToolOutcome, EngineError> {
        self.transition(ContextState::ExecutingTool {
            tool_name: call.name.clone(),
            index: 1,
            total: 1,
            attempt: 1,
        })
        .await?;
        let timeout =
            Duration::from_secs(u64::from(self.data.record.config.tool_timeout_secs.max(1)));
        let ran = self
            .run_while_busy(self.run_call(call.clone()), Instant::now() + timeout)
            .await;
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
        let branch = self.data.record.active_branch.clone();
        self.commit(ContextChanges::new().add_message(&branch, result.clone()))
            .await?;
        self.emit_created(&result).await;
        Ok(outcome)
    }

    /// Waits in `AwaitingToolApproval` while some open call is undecided; otherwise runs the
    /// round.
    async fn wait_or_run(&mut self) -> Result<RoundOutcome, EngineError> {
        let pending: Vec<OpenCall> = self
            .open_calls()
            .into_iter()
            .filter(|c| c.approval == ApprovalStatus::Pending)
            .collect();
        if pending.is_empty() {
            return self.run_round().await;
        }
        let state = ContextState::AwaitingToolApproval {
            pending_requests: pending.iter().map(|c| c.id.clone()).collect(),
            tool_names: pending.iter().map(|c| c.name.clone()).collect(),
        };
        self.rest(state).await;
        Ok(RoundOutcome::Rested)
    }

    /// Records a person's decisions. Answers whether every open call is now decided.
    pub(crate) async fn record_decisions(
        &mut self,
        request: ApprovalRequest,
    ) -> Result<bool, EngineError> {
        if !matches!(self.state(), ContextState::AwaitingToolApproval { .. }) {
            return Err(EngineError::Conflict(format!(
                "no call is waiting for approval (the context is {})",
                self.state().kind()
            )));
        }
        let open = self.open_calls();
        let mut decisions = Vec::new();
        let mut config = self.data.record.config.clone();
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
                Decision::ApproveForSession => {
                    if !config.approved_tools.contains(&call.name) {
                        config.approved_tools.push(call.name.clone());
                    }
                    ApprovalStatus::Approved
                }
            };
            if let Some(reason) = &d.reason {
                reasons.push((call.message_id, call.id.clone(), reason.clone()));
            }
            decisions.push((call.message_id, call.index, status));
        }
        let mut changed = self.with_approvals(&decisions);
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
        if config != self.data.record.config {
            changes.config = Some(config);
        }
        self.commit(changes).await?;
        let still: Vec<OpenCall> = self
            .open_calls()
            .into_iter()
            .filter(|c| c.approval == ApprovalStatus::Pending)
            .collect();
        if still.is_empty() {
            return Ok(true);
        }
        // Persisted once below, whether or not the kind of state changed (fewer calls wait).
        self.announce(ContextState::AwaitingToolApproval {
            pending_requests: still.iter().map(|c| c.id.clone()).collect(),
            tool_names: still.iter().map(|c| c.name.clone()).collect(),
        })
        .await?;
        self.persist_state().await;
        Ok(false)
    }

    /// Runs the round once every call is decided, then goes on around the loop.
    pub(crate) async fn continue_after_approval(&mut self) {
        self.interrupt = tokio_util::sync::CancellationToken::new();
        if let Some(run) = self.workflow_waiting_on_call() {
            return self.continue_workflow_after_approval(run).await;
        }
        match self.run_round().await {
            Ok(RoundOutcome::Continue) => self.drive(None).await,
            Ok(RoundOutcome::Rested) => {}
            Err(e) => self.fail(e, true).await,
        }
    }

    /// Runs the approved open calls (denied ones get an error result), stores the results and
    /// decides whether the loop goes on.
    async fn run_round(&mut self) -> Result<RoundOutcome, EngineError> {
        // Calls a workflow run owns are answered by that run, not by this round; approved
        // `workflow__<name>` calls start their runs once the round's other calls are done.
        let owned = self.workflow_owned_calls();
        let open: Vec<OpenCall> = self
            .open_calls()
            .into_iter()
            .filter(|c| !owned.contains(&c.id))
            .collect();
        let reasons = self.decision_reasons(&open);
        let mut results: Vec<Message> = Vec::new();
        let mut to_run: Vec<OpenCall> = Vec::new();
        let mut workflows: Vec<OpenCall> = Vec::new();
        for c in open {
            match (c.approval, &c.invalid_arguments) {
                (ApprovalStatus::Approved, None) if self.is_workflow_tool(&c.name) => {
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
        let total = to_run.len() as u32;
        let all_read_only = to_run.iter().all(|c| {
            self.services
                .tools
                .get(&c.name)
                .is_some_and(|t| t.spec().is_read_only())
        });
        let timeout =
            Duration::from_secs(u64::from(self.data.record.config.tool_timeout_secs.max(1)));
        let deadline = Instant::now() + timeout;
        let mut stop: Option<LoopStopReason> = None;
        let mut ran: Vec<Ran> = Vec::new();
        if all_read_only && total > 1 {
            for (i, c) in to_run.iter().enumerate() {
                self.transition(ContextState::ExecutingTool {
                    tool_name: c.name.clone(),
                    index: i as u32 + 1,
                    total,
                    attempt: 1,
                })
                .await?;
            }
            let batch = join_all(to_run.iter().cloned().map(|c| self.run_call(c)));
            match self.run_while_busy(batch, deadline).await {
                Some(done) => ran = done,
                None => stop = Some(LoopStopReason::Timeout),
            }
        } else {
            for (i, c) in to_run.iter().enumerate() {
                if self.interrupt.is_cancelled() {
                    stop = Some(LoopStopReason::Interrupted);
                    break;
                }
                self.transition(ContextState::ExecutingTool {
                    tool_name: c.name.clone(),
                    index: i as u32 + 1,
                    total,
                    attempt: 1,
                })
                .await?;
                match self
                    .run_while_busy(self.run_call(c.clone()), deadline)
                    .await
                {
                    Some(done) => ran.push(done),
                    None => {
                        stop = Some(LoopStopReason::Timeout);
                        break;
                    }
                }
            }
        }
        if stop.is_none() && self.interrupt.is_cancelled() {
            stop = Some(LoopStopReason::Interrupted);
        }
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
        self.transition(ContextState::CollectingToolResults).await?;
        self.transition(ContextState::ProcessingToolResults).await?;
        let branch = self.data.record.active_branch.clone();
        let mut changes = ContextChanges::new();
        for m in results.iter().chain(&produced) {
            changes.push_message(&branch, m.clone());
        }
        self.commit(changes).await?;
        for m in results.iter().chain(&produced) {
            self.emit_created(m).await;
        }
        if let Some(reason) = stop {
            let detail = match reason {
                LoopStopReason::Interrupted => "Interrupted: the running tool finished and nothing more was started. Resume to continue.".to_owned(),
                LoopStopReason::Timeout => format!("A round of tool calls took longer than {} s and was stopped. Resume to continue.", timeout.as_secs()),
                other => other.to_string(),
            };
            self.stop_loop(reason, detail).await?;
            return Ok(RoundOutcome::Rested);
        }
        for m in &produced {
            match &m.kind {
                MessageKind::Question(_) => {
                    self.rest(ContextState::AwaitingUserAnswer { question_id: m.id })
                        .await;
                    return Ok(RoundOutcome::Rested);
                }
                MessageKind::Plan(_) => {
                    self.rest(ContextState::Idle).await;
                    return Ok(RoundOutcome::Rested);
                }
                _ => {}
            }
        }
        if !workflows.is_empty() && !self.start_model_workflows(workflows).await? {
            return Ok(RoundOutcome::Rested);
        }
        Ok(RoundOutcome::Continue)
    }

    /// Why each denied call was denied, as the person said.
    fn decision_reasons(&self, open: &[OpenCall]) -> Vec<(ToolCallId, String)> {
        open.iter()
            .filter_map(|c| {
                let m = self.data.pool.get(&c.message_id)?;
                let reason = m
                    .metadata
                    .get("decision_reasons")?
                    .get(c.id.as_str())?
                    .as_str()?;
                Some((c.id.clone(), reason.to_owned()))
            })
            .collect()
    }

    /// The future that runs one call through the registry.
    pub(crate) fn run_call(
        &self,
        call: OpenCall,
    ) -> impl std::future::Future<Output = Ran> + Send + 'static {
        let tools = self.services.tools.clone();
        let config = &self.data.record.config;
        let workspace = self
            .services
            .settings
            .workspace_roots
            .open_configured(config.workspace.as_deref());
        let mut ctx = ToolContext::configured(workspace, config.agent_role);
        // A running tool is not cancelled by an interrupt (it finishes); only by shutdown.
        ctx.cancel = tokio_util::sync::CancellationToken::new();
        let mode = config.mode;
        let switched_off = self.switched_off(&call.name);
        async move {
            let started = Utc::now();
            let clock = Instant::now();
            let result = match switched_off {
                Some(why) => Err(braid_tools::ToolError::new(
                    braid_tools::ToolErrorCode::PermissionDenied,
                    format!("tool `{}` was not run: {why}", call.name),
                )),
                None => {
                    tools
                        .execute(&call.name, call.arguments.clone(), &ctx, mode)
                        .await
                }
            };
            Ran {
                call,
                result,
                started,
                elapsed: clock.elapsed(),
            }
        }
    }

    /// Awaits `work` while answering commands; `None` when the deadline passed first.
    pub(crate) async fn run_while_busy<T>(
        &mut self,
        work: impl std::future::Future<Output = T>,
        deadline: Instant,
    ) -> Option<T> {
        let work = tokio::time::timeout_at(deadline.into(), work);
        tokio::pin!(work);
        loop {
            tokio::select! {
                done = &mut work => return done.ok(),
                command = self.inbox.next() => {
                    if let Some(command) = command {
                        self.handle_while_busy(command).await;
                    }
                }
            }
        }
    }

    /// Gives every open call an error result (when a new message arrives, or a cycle stops the
    /// loop), leaving `AwaitingToolApproval` if the context was there.
    pub(crate) async fn close_open_calls(
        &mut self,
        reason: &str,
        except: &[ToolCallId],
    ) -> Result<(), EngineError> {
        let open: Vec<OpenCall> = self
            .open_calls()
            .into_iter()
            .filter(|c| !except.contains(&c.id))
            .collect();
        let waiting = matches!(self.state(), ContextState::AwaitingToolApproval { .. });
        if open.is_empty() && !waiting {
            return Ok(());
        }
        // The approval wait ends even when the send itself answers every call.
        if waiting {
            self.transition(ContextState::CollectingToolResults).await?;
            self.transition(ContextState::ProcessingToolResults).await?;
        }
        if !open.is_empty() {
            self.close_round(&open, reason).await?;
        }
        if waiting {
            self.transition(ContextState::Idle).await?;
        }
        Ok(())
    }

    pub(crate) async fn close_round(
        &mut self,
        open: &[OpenCall],
        reason: &str,
    ) -> Result<(), EngineError> {
        let branch = self.data.record.active_branch.clone();
        let mut changes = ContextChanges::new();
        let results: Vec<Message> = open.iter().map(|c| c.not_run(reason)).collect();
        for m in &results {
            changes.push_message(&branch, m.clone());
        }
        self.commit(changes).await?;
        for m in &results {
            self.emit_created(m).await;
        }
        Ok(())
    }

    /// Pauses the loop and tells the person why, with a `loop_stopped` notice.
    pub(crate) async fn stop_loop(
        &mut self,
        reason: LoopStopReason,
        detail: String,
    ) -> Result<(), EngineError> {
        tracing::info!(context = %self.id, reason = %reason, depth = self.progress.depth, "tool loop stopped");
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
        self.announce(ContextState::Paused {
            reason,
            depth: self.progress.depth,
            tools_executed: self.progress.tools_executed,
        })
        .await?;
        let branch = self.data.record.active_branch.clone();
        self.commit(ContextChanges::new().add_message(&branch, notice.clone()))
            .await?;
        self.emit_created(&notice).await;
        Ok(())
    }
}
