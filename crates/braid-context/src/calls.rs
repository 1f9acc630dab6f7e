//! The tool calls of the active branch that have no result yet, read from the committed
//! history: what a tool round decides, runs and answers, and what recovery closes.

use std::collections::HashSet;
use std::time::Duration;

use braid_protocol::{
    ApprovalStatus, ErrorDetail, McpOutcome, McpToolResultMessage, Message, MessageId, MessageKind,
    Recoverability, Role, ToolCallId, ToolOutcome, ToolResultMessage,
};
use braid_tools::ToolOutput;
use chrono::{DateTime, Utc};
use serde_json::Value;

use crate::context::ContextData;

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
            Some((server, tool)) => MessageKind::McpToolResult(Box::new(McpToolResultMessage {
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
            })),
            None => MessageKind::ToolResult(Box::new(ToolResultMessage {
                call_id: self.id.clone(),
                tool_name: self.name.clone(),
                outcome,
                duration_ms,
                started_at: Some(started),
                completed_at: Some(completed),
            })),
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
    /// The call.
    pub call: OpenCall,
    /// What the tool answered.
    pub result: Result<ToolOutput, braid_tools::ToolError>,
    /// When it started.
    pub started: DateTime<Utc>,
    /// How long it ran.
    pub elapsed: Duration,
}

/// The calls on the active branch without a result, in order.
pub(crate) fn open_calls(data: &ContextData) -> Vec<OpenCall> {
    let mut open: Vec<OpenCall> = Vec::new();
    let mut answered: HashSet<ToolCallId> = HashSet::new();
    for m in data.active_messages() {
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
pub(crate) fn with_approvals(
    data: &ContextData,
    decisions: &[(MessageId, usize, ApprovalStatus)],
) -> Vec<Message> {
    let mut changed: Vec<Message> = Vec::new();
    for (message_id, index, status) in decisions {
        let existing = changed.iter().position(|m| m.id == *message_id);
        let mut m = match existing {
            Some(i) => changed.remove(i),
            None => match data.pool.get(message_id) {
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

/// Why each denied call was denied, as the person said.
pub(crate) fn decision_reasons(data: &ContextData, open: &[OpenCall]) -> Vec<(ToolCallId, String)> {
    open.iter()
        .filter_map(|c| {
            let m = data.pool.get(&c.message_id)?;
            let reason = m
                .metadata
                .get("decision_reasons")?
                .get(c.id.as_str())?
                .as_str()?;
            Some((c.id.clone(), reason.to_owned()))
        })
        .collect()
}
