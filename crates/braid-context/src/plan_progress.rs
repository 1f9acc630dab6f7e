//! The plan the active branch is executing and where its steps stand. Progress is what the
//! branch records, never a field of the plan: the successful `update_plan` results after the
//! plan's execution, in order. So a branch made before the execution shows its plan untouched
//! (that history never ran it), and a restart reads back exactly what was stored.

use braid_protocol::{MessageKind, PlanProgress, PlanStepUpdate, Role, ToolOutcome};
use braid_tools::ExecutingPlan;
use serde_json::Value;

use crate::context::ContextData;
use crate::sends::{PLAN_ACTION, PLAN_EXECUTE, PLAN_ID};

/// The name of the tool whose results record a plan's progress.
pub(crate) const UPDATE_PLAN: &str = "update_plan";

/// What a call named `tool` is told of the plan being executed: only `update_plan` looks (the
/// scan of the branch is not done for every call).
pub(crate) fn for_call(data: &ContextData, tool: &str) -> Option<ExecutingPlan> {
    (tool == UPDATE_PLAN)
        .then(|| executing_plan(data))
        .flatten()
}

/// The plan executed last on the active branch, with its steps' statuses so far; `None` when
/// no plan was executed on it (or the executed plan is no longer in the pool).
pub(crate) fn executing_plan(data: &ContextData) -> Option<ExecutingPlan> {
    let messages = data.active_messages();
    let (at, id) = messages.iter().enumerate().rev().find_map(|(at, m)| {
        let executes = m.role == Role::User
            && m.metadata.get(PLAN_ACTION).and_then(Value::as_str) == Some(PLAN_EXECUTE);
        let id = m.metadata.get(PLAN_ID).cloned()?;
        executes
            .then(|| serde_json::from_value(id).ok())
            .flatten()
            .map(|id| (at, id))
    })?;
    let MessageKind::Plan(plan) = &data.pool.get(&id)?.kind else {
        return None;
    };
    let updates = messages[at + 1..]
        .iter()
        .filter_map(|m| recorded_update(&m.kind))
        .filter(|p| p.plan_id == id)
        .map(|p| p.update());
    let steps = plan.progress(updates.collect::<Vec<PlanStepUpdate>>());
    Some(ExecutingPlan {
        id,
        plan: plan.clone(),
        steps,
    })
}

/// The progress a message records: the output of a successful `update_plan` call.
fn recorded_update(kind: &MessageKind) -> Option<PlanProgress> {
    let MessageKind::ToolResult(r) = kind else {
        return None;
    };
    match &r.outcome {
        ToolOutcome::Success { output } if r.tool_name == UPDATE_PLAN => {
            serde_json::from_value(output.clone()).ok()
        }
        _ => None,
    }
}
