//! `propose_plan` and `ask_user`: the structured ways for the model to produce a `plan` or a
//! `question` message (DESIGN.md "The message model"). Their parameters are the protocol's own
//! `PlanMessage` / `QuestionMessage` schemas, and their output is the validated message, which
//! the engine stores besides the tool result. `update_plan` reports a step of the plan being
//! executed as started, done or skipped; its output is the plan's progress, which the UI ticks.

use std::time::Duration;

use async_trait::async_trait;
use braid_protocol::{
    MessageKind, PlanMessage, PlanProgress, PlanStepUpdate, QuestionMessage, Validate,
};
use serde_json::{Value, json};

use crate::arguments::parse_arguments;
use crate::builtin::spec;
use crate::tool::{
    Tool, ToolCategory, ToolContext, ToolError, ToolErrorCode, ToolOutput, ToolSpec,
};

fn validated<T: Validate>(tool: &str, value: &T) -> Result<(), ToolError> {
    value.validate().map_err(|errors| {
        let problems: Vec<String> = errors.problems().iter().map(ToString::to_string).collect();
        ToolError::new(
            ToolErrorCode::InvalidArguments,
            format!("invalid arguments for `{tool}`: {}", problems.join("; ")),
        )
        .with_details(json!({ "problems": problems }))
    })
}

/// `propose_plan`: the model proposes a plan for the person to execute or refine.
pub struct ProposePlanTool {
    spec: ToolSpec,
}

impl ProposePlanTool {
    /// The tool.
    pub fn new() -> Self {
        Self {
            spec: spec::<PlanMessage>(
                "propose_plan",
                "Propose a plan (goal, numbered steps) for the person to execute or refine; do not start the work in the same turn.",
                ToolCategory::Planning,
                &[],
                Duration::from_secs(5),
            )
            .with_example(
                "propose a one-step plan",
                json!({"goal": "Add a --verbose flag", "steps": [{"step_number": 1, "action": "Parse the flag in src/cli.rs", "reason": "the option must reach the logger"}]}),
            ),
        }
    }
}

impl Default for ProposePlanTool {
    fn default() -> Self {
        Self::new()
    }
}

#[async_trait]
impl Tool for ProposePlanTool {
    fn spec(&self) -> &ToolSpec {
        &self.spec
    }

    async fn call(&self, args: Value, _ctx: &ToolContext) -> Result<ToolOutput, ToolError> {
        let plan: PlanMessage = parse_arguments("propose_plan", args)?;
        validated("propose_plan", &plan)?;
        let content = serde_json::to_value(&plan).unwrap_or(Value::Null);
        Ok(ToolOutput::with_message(content, MessageKind::Plan(plan)))
    }
}

/// `ask_user`: the model asks the person a question with predefined answers and waits.
pub struct AskUserTool {
    spec: ToolSpec,
}

impl AskUserTool {
    /// The tool.
    pub fn new() -> Self {
        let mut spec = spec::<QuestionMessage>(
            "ask_user",
            "Ask the person a question with options to choose from, and wait for the answer.",
            ToolCategory::Interaction,
            &[],
            Duration::from_secs(5),
        )
        .with_example(
            "ask which database the tests use",
            json!({"question": "Which database should the tests use?", "options": [{"label": "SQLite", "value": "sqlite"}, {"label": "PostgreSQL", "value": "postgres"}]}),
        );
        // The answer is the person's to give, never the model's.
        if let Some(Value::Object(props)) = spec.parameters.get_mut("properties") {
            props.remove("answer");
        }
        if let Some(Value::Object(defs)) = spec.parameters.get_mut("$defs") {
            defs.remove("QuestionAnswer");
        }
        Self { spec }
    }
}

impl Default for AskUserTool {
    fn default() -> Self {
        Self::new()
    }
}

#[async_trait]
impl Tool for AskUserTool {
    fn spec(&self) -> &ToolSpec {
        &self.spec
    }

    async fn call(&self, args: Value, _ctx: &ToolContext) -> Result<ToolOutput, ToolError> {
        let mut question: QuestionMessage = parse_arguments("ask_user", args)?;
        question.answer = None;
        validated("ask_user", &question)?;
        let content = serde_json::to_value(&question).unwrap_or(Value::Null);
        Ok(ToolOutput::with_message(
            content,
            MessageKind::Question(Box::new(question)),
        ))
    }
}

/// `update_plan`: the model reports where a step of the plan being executed stands, checked
/// against that plan's steps (the engine names the plan in [`ToolContext::executing_plan`]).
pub struct UpdatePlanTool {
    spec: ToolSpec,
}

impl UpdatePlanTool {
    /// The tool.
    pub fn new() -> Self {
        Self {
            spec: spec::<PlanStepUpdate>(
                "update_plan",
                "Report a step of the plan being executed as started, done or skipped.",
                ToolCategory::Progress,
                &[],
                Duration::from_secs(5),
            )
            .with_example(
                "step 1 is done",
                json!({"step_number": 1, "status": "completed"}),
            ),
        }
    }
}

impl Default for UpdatePlanTool {
    fn default() -> Self {
        Self::new()
    }
}

#[async_trait]
impl Tool for UpdatePlanTool {
    fn spec(&self) -> &ToolSpec {
        &self.spec
    }

    async fn call(&self, args: Value, ctx: &ToolContext) -> Result<ToolOutput, ToolError> {
        let update: PlanStepUpdate = parse_arguments("update_plan", args)?;
        let Some(executing) = &ctx.executing_plan else {
            return Err(ToolError::new(
                ToolErrorCode::NotFound,
                "no plan is being executed in this conversation: `update_plan` reports progress \
                 on a plan the person executed from its card, and none was",
            ));
        };
        if executing.plan.step(update.step_number).is_none() {
            let numbers: Vec<String> = executing
                .plan
                .steps
                .iter()
                .map(|s| s.step_number.to_string())
                .collect();
            return Err(ToolError::new(
                ToolErrorCode::InvalidArguments,
                format!(
                    "the plan \"{}\" has no step {}; its steps are {}",
                    executing.plan.goal,
                    update.step_number,
                    numbers.join(", ")
                ),
            )
            .with_details(json!({ "step_numbers": numbers })));
        }
        let earlier = executing.steps.iter().map(|s| PlanStepUpdate {
            step_number: s.step_number,
            status: s.status,
        });
        let progress = PlanProgress {
            plan_id: executing.id,
            step_number: update.step_number,
            status: update.status,
            steps: executing.plan.progress(earlier.chain([update])),
        };
        let content = serde_json::to_value(&progress).unwrap_or(Value::Null);
        Ok(ToolOutput::json(content))
    }
}
