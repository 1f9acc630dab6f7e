//! The HTTP API's workflow bodies (DESIGN.md "Workflows"): the definitions a context can use,
//! how a run is started, and what starting one answers. The run itself is a
//! `workflow_execution` message ([`crate::WorkflowExecutionMessage`]).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
#[cfg(test)]
use ts_rs::TS;

use crate::ids::{ContextTurnId, MessageId};
use crate::validate::Problem;

/// Where a definition was found.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[cfg_attr(test, derive(TS))]
#[serde(rename_all = "snake_case")]
pub enum WorkflowOrigin {
    /// `<workspace>/.braid/workflows/`: shared with the project; wins on a name clash.
    Workspace,
    /// `<data dir>/workflows/`: the person's own.
    User,
}

/// What a step does.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[cfg_attr(test, derive(TS))]
#[serde(rename_all = "snake_case")]
pub enum WorkflowStepType {
    /// Calls a tool (built in or `mcp__server__tool`) under the approval policy.
    Tool,
    /// Asks the model once; its streamed answer is the step's output.
    Prompt,
    /// Waits for the person to continue (resume) or stop (cancel).
    Approval,
}

/// One step of a definition, as listed.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[cfg_attr(test, derive(TS))]
pub struct WorkflowStepInfo {
    /// The step's name (templates refer to it as `steps.<name>.output`).
    pub name: String,
    /// What it does.
    #[serde(rename = "type")]
    #[cfg_attr(test, ts(rename = "type"))]
    pub step_type: WorkflowStepType,
}

/// A definition as `GET /v1/workflows` lists it. One that does not parse or validate is listed
/// too, with `errors` naming its file's fields, and cannot run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[cfg_attr(test, derive(TS))]
pub struct WorkflowInfo {
    /// Its name (the file's `name`, or the file name when that is unreadable).
    pub name: String,
    /// What it is for.
    #[serde(default)]
    pub description: String,
    /// JSON Schema of its parameters (an object schema; `{}` when it takes none).
    #[cfg_attr(test, ts(type = "JsonValue"))]
    pub parameters: Value,
    /// Its steps, in order.
    #[serde(default)]
    pub steps: Vec<WorkflowStepInfo>,
    /// The file it was read from.
    pub source: String,
    /// Which folder that file is in.
    pub origin: WorkflowOrigin,
    /// What is wrong with the file, field by field; empty when it can run.
    #[serde(default)]
    pub errors: Vec<Problem>,
}

/// `GET /v1/workflows?context={id}`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[cfg_attr(test, derive(TS))]
pub struct WorkflowList {
    /// Every definition the context can see, by name; the workspace's win a name clash.
    pub workflows: Vec<WorkflowInfo>,
}

/// `POST /v1/contexts/{id}/workflows/{name}/run`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[cfg_attr(test, derive(TS))]
pub struct RunWorkflowRequest {
    /// Parameter values, checked against the definition's schema (defaults fill the rest).
    #[serde(default)]
    #[cfg_attr(
        test,
        ts(
            as = "Option<std::collections::HashMap<String, serde_json::Value>>",
            optional
        )
    )]
    pub parameters: Map<String, Value>,
    /// How the UI shows the request.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(test, ts(optional))]
    pub display_text: Option<String>,
}

/// The answer to starting a run (202): the run is stored as a `workflow_execution` message.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[cfg_attr(test, derive(TS))]
pub struct WorkflowRunResponse {
    /// The run's id, for pause / resume / cancel.
    pub execution_id: String,
    /// The `workflow_execution` message.
    pub message_id: MessageId,
    /// Whether it waits behind a running turn (its status is `pending` until it starts).
    pub queued: bool,
    /// The turn the run goes as (until it completes, fails, is cancelled, pauses or waits for
    /// a person): every event of it carries this id, and one `turn_completed` ends it
    /// (`GET /v1/contexts/{id}/turns/{turn_id}` answers its status). A resume of the run is a
    /// turn of its own, named by the resume's answer.
    pub turn_id: ContextTurnId,
    /// The event id to stream from (as `Last-Event-ID` or `?after=`) to see every event of the
    /// turn; absent when the run emitted none before answering.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(test, ts(optional))]
    pub stream_after: Option<u64>,
}

/// What the person does to a run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[cfg_attr(test, derive(TS))]
#[serde(rename_all = "snake_case")]
pub enum WorkflowControl {
    /// Stop once the running step ends; resumable.
    Pause,
    /// Continue from `current_step` (also: go past an approval step).
    Resume,
    /// Stop for good (also: decline an approval step).
    Cancel,
}

impl WorkflowControl {
    /// The name as in the route (`pause`).
    pub fn as_str(self) -> &'static str {
        match self {
            WorkflowControl::Pause => "pause",
            WorkflowControl::Resume => "resume",
            WorkflowControl::Cancel => "cancel",
        }
    }
}
