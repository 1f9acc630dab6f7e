//! `workflow_execution`: the progress of a multi-step workflow (seed 003).

use chrono::{DateTime, Utc};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
#[cfg(test)]
use ts_rs::TS;

use super::common::ErrorDetail;
use crate::validate::{FieldPath, Problems, Validate};

/// One run of a workflow and how far it got.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[cfg_attr(test, derive(TS))]
pub struct WorkflowExecutionMessage {
    /// The workflow's name.
    pub workflow_name: String,
    /// This run's id.
    pub execution_id: String,
    /// Where the run stands.
    pub status: WorkflowStatus,
    /// The step running (or to run next); none once finished.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(test, ts(optional))]
    pub current_step: Option<String>,
    /// How many steps the workflow has.
    #[serde(default)]
    pub total_steps: u32,
    /// How many have completed.
    #[serde(default)]
    pub completed_steps: u32,
    /// When the run started.
    #[serde(default)]
    pub started_at: DateTime<Utc>,
    /// When it last changed.
    #[serde(default)]
    pub updated_at: DateTime<Utc>,
    /// The final output, once completed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(test, ts(optional, type = "unknown"))]
    pub result: Option<serde_json::Value>,
    /// The question of the approval step the run waits on (status `paused`): resume goes on,
    /// cancel stops.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(test, ts(optional))]
    pub awaiting_approval: Option<String>,
    /// Why it failed, when it did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(test, ts(optional))]
    pub error: Option<ErrorDetail>,
}

/// Where a workflow run stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[cfg_attr(test, derive(TS))]
#[serde(rename_all = "snake_case")]
pub enum WorkflowStatus {
    /// Not started yet.
    Pending,
    /// Running a step.
    Running,
    /// Paused by the person; resumes at `current_step`.
    Paused,
    /// Every step completed.
    Completed,
    /// A step failed; `error` says why, `completed_steps` how far it got.
    Failed,
    /// Cancelled by the person.
    Cancelled,
}

impl Validate for WorkflowExecutionMessage {
    fn validate_at(&self, path: &FieldPath, problems: &mut Problems) {
        problems.require_text(&self.workflow_name, &path.field("workflow_name"));
        problems.require_text(&self.execution_id, &path.field("execution_id"));
        problems.check(
            self.completed_steps > self.total_steps,
            &path.field("completed_steps"),
            format!(
                "must not exceed total_steps ({}), got {}",
                self.total_steps, self.completed_steps
            ),
        );
        match self.status {
            WorkflowStatus::Failed => match &self.error {
                Some(e) => e.validate_at(&path.field("error"), problems),
                None => problems.push(&path.field("error"), "a failed workflow must say why"),
            },
            WorkflowStatus::Completed => problems.check(
                self.current_step.is_some(),
                &path.field("current_step"),
                "a completed workflow has no current step",
            ),
            _ => {}
        }
        problems.check(
            self.updated_at < self.started_at,
            &path.field("updated_at"),
            "must not be before started_at",
        );
    }
}
