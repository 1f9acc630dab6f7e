//! `plan` and `question`: the agent's structured messages (seed 002).

use std::collections::HashSet;

use chrono::{DateTime, Utc};
use schemars::JsonSchema;
use serde::{Deserialize, Deserializer, Serialize};
#[cfg(test)]
use ts_rs::TS;

use crate::ids::MessageId;
use crate::validate::{FieldPath, Problems, Validate};

/// An execution plan the agent proposes (in plan mode), for the person to execute or refine.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[cfg_attr(test, derive(TS))]
pub struct PlanMessage {
    /// What the plan achieves.
    pub goal: String,
    /// The steps, in order.
    pub steps: Vec<PlanStep>,
}

/// One step of a plan.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[cfg_attr(test, derive(TS))]
pub struct PlanStep {
    /// Its position, from 1.
    pub step_number: u32,
    /// What will be done.
    pub action: String,
    /// Why.
    pub reason: String,
    /// Tools the step will use. A single string is accepted for one tool.
    #[serde(
        default,
        skip_serializing_if = "Vec::is_empty",
        deserialize_with = "one_or_many"
    )]
    #[schemars(schema_with = "one_or_many_schema")]
    #[cfg_attr(test, ts(as = "Option<Vec<String>>", optional))]
    pub tools_needed: Vec<String>,
    /// A rough duration, as the agent wrote it (`5 minutes`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(test, ts(optional))]
    pub estimated_time: Option<String>,
    /// What could go wrong. A single string is accepted for one risk.
    #[serde(
        default,
        skip_serializing_if = "Vec::is_empty",
        deserialize_with = "one_or_many"
    )]
    #[schemars(schema_with = "one_or_many_schema")]
    #[cfg_attr(test, ts(as = "Option<Vec<String>>", optional))]
    pub risks: Vec<String>,
}

/// Where a step of an executed plan stands, as the agent reported it with `update_plan`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[cfg_attr(test, derive(TS))]
#[serde(rename_all = "snake_case")]
pub enum PlanStepStatus {
    /// Not started (every step, until the agent reports on it).
    #[default]
    Pending,
    /// Being worked on.
    InProgress,
    /// Done.
    Completed,
    /// Left out on purpose.
    Skipped,
}

/// The arguments of `update_plan`: the new status of one step of the plan being executed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[cfg_attr(test, derive(TS))]
pub struct PlanStepUpdate {
    /// The step's `step_number` in the plan.
    pub step_number: u32,
    /// Where the step stands now.
    pub status: PlanStepStatus,
}

/// One step's status in a [`PlanProgress`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[cfg_attr(test, derive(TS))]
pub struct PlanStepProgress {
    /// The step's `step_number` in the plan.
    pub step_number: u32,
    /// Where it stands.
    pub status: PlanStepStatus,
}

/// The output of a successful `update_plan` call: which plan and step it changed, and where
/// every step stands after it. The conversation's record of a plan's progress is these
/// outputs, in order, on the branch that executed the plan (a branch made before the
/// execution never ran it, so its plan has no progress).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[cfg_attr(test, derive(TS))]
pub struct PlanProgress {
    /// The `plan` message being executed.
    pub plan_id: MessageId,
    /// The step this call changed.
    pub step_number: u32,
    /// Its new status.
    pub status: PlanStepStatus,
    /// Every step of the plan, in the plan's order, with its status after this call.
    pub steps: Vec<PlanStepProgress>,
}

impl PlanProgress {
    /// The update this output records.
    pub fn update(&self) -> PlanStepUpdate {
        PlanStepUpdate {
            step_number: self.step_number,
            status: self.status,
        }
    }
}

impl PlanMessage {
    /// The step numbered `step_number`.
    pub fn step(&self, step_number: u32) -> Option<&PlanStep> {
        self.steps.iter().find(|s| s.step_number == step_number)
    }

    /// Every step's status after `updates`, applied in order (the last one for a step wins;
    /// one naming no step of this plan changes nothing).
    pub fn progress(
        &self,
        updates: impl IntoIterator<Item = PlanStepUpdate>,
    ) -> Vec<PlanStepProgress> {
        let mut steps: Vec<PlanStepProgress> = self
            .steps
            .iter()
            .map(|s| PlanStepProgress {
                step_number: s.step_number,
                status: PlanStepStatus::Pending,
            })
            .collect();
        for update in updates {
            if let Some(step) = steps
                .iter_mut()
                .find(|s| s.step_number == update.step_number)
            {
                step.status = update.status;
            }
        }
        steps
    }
}

/// A question with predefined answers that pauses the agent until the person picks one.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[cfg_attr(test, derive(TS))]
pub struct QuestionMessage {
    /// The question.
    pub question: String,
    /// The answers to choose from.
    pub options: Vec<QuestionOption>,
    /// Background that helps the person answer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(test, ts(optional))]
    pub context: Option<String>,
    /// How much the answer matters; styles the card.
    #[serde(default)]
    pub severity: Severity,
    /// The value of the suggested option.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(test, ts(optional))]
    pub default: Option<String>,
    /// The person's answer, once given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(test, ts(optional))]
    pub answer: Option<QuestionAnswer>,
}

/// One answer to choose from.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[cfg_attr(test, derive(TS))]
pub struct QuestionOption {
    /// What the button says.
    pub label: String,
    /// What is sent back when it is chosen.
    pub value: String,
}

/// How much a question matters.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[cfg_attr(test, derive(TS))]
#[serde(rename_all = "snake_case")]
pub enum Severity {
    /// Must be answered with care (shown in red).
    Critical,
    /// Important (shown in orange).
    Major,
    /// Routine (default styling).
    #[default]
    Minor,
}

/// The answer a person gave.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[cfg_attr(test, derive(TS))]
pub struct QuestionAnswer {
    /// The chosen option's value.
    pub value: String,
    /// When it was given.
    #[serde(default)]
    pub answered_at: DateTime<Utc>,
}

impl QuestionMessage {
    /// The option whose value is `value`.
    pub fn option(&self, value: &str) -> Option<&QuestionOption> {
        self.options.iter().find(|o| o.value == value)
    }
}

/// The schema of what [`one_or_many`] accepts, so argument validation accepts it too.
fn one_or_many_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    schemars::json_schema!({
        "anyOf": [
            { "type": "array", "items": { "type": "string" } },
            { "type": "string" },
            { "type": "null" }
        ]
    })
}

fn one_or_many<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<String>, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum OneOrMany {
        One(String),
        Many(Vec<String>),
        Nothing(()),
    }
    Ok(match OneOrMany::deserialize(d)? {
        OneOrMany::One(s) => vec![s],
        OneOrMany::Many(v) => v,
        OneOrMany::Nothing(()) => Vec::new(),
    })
}

impl Validate for PlanMessage {
    fn validate_at(&self, path: &FieldPath, problems: &mut Problems) {
        problems.require_text(&self.goal, &path.field("goal"));
        let steps = path.field("steps");
        problems.check(
            self.steps.is_empty(),
            &steps,
            "a plan needs at least one step",
        );
        let mut numbers = HashSet::new();
        for (i, step) in self.steps.iter().enumerate() {
            let at = steps.index(i);
            problems.check(
                step.step_number == 0,
                &at.field("step_number"),
                "steps are numbered from 1",
            );
            problems.check(
                step.step_number != 0 && !numbers.insert(step.step_number),
                &at.field("step_number"),
                format!("duplicate step number {}", step.step_number),
            );
            problems.require_text(&step.action, &at.field("action"));
            problems.require_text(&step.reason, &at.field("reason"));
        }
    }
}

impl Validate for QuestionMessage {
    fn validate_at(&self, path: &FieldPath, problems: &mut Problems) {
        problems.require_text(&self.question, &path.field("question"));
        let options = path.field("options");
        problems.check(
            self.options.is_empty(),
            &options,
            "a question needs at least one option",
        );
        let mut values = HashSet::new();
        for (i, option) in self.options.iter().enumerate() {
            let at = options.index(i);
            problems.require_text(&option.label, &at.field("label"));
            if option.value.trim().is_empty() {
                problems.push(&at.field("value"), "must not be empty");
            } else if !values.insert(option.value.as_str()) {
                problems.push(
                    &at.field("value"),
                    format!("duplicate value `{}`", option.value),
                );
            }
        }
        if let Some(default) = &self.default {
            problems.check(
                self.option(default).is_none(),
                &path.field("default"),
                format!("`{default}` is not the value of any option"),
            );
        }
        if let Some(answer) = &self.answer {
            problems.check(
                self.option(&answer.value).is_none(),
                &path.field("answer").field("value"),
                format!("`{}` is not the value of any option", answer.value),
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plan(numbers: &[u32]) -> PlanMessage {
        PlanMessage {
            goal: "g".into(),
            steps: numbers
                .iter()
                .map(|&n| PlanStep {
                    step_number: n,
                    action: "a".into(),
                    reason: "r".into(),
                    tools_needed: Vec::new(),
                    estimated_time: None,
                    risks: Vec::new(),
                })
                .collect(),
        }
    }

    fn update(step_number: u32, status: PlanStepStatus) -> PlanStepUpdate {
        PlanStepUpdate {
            step_number,
            status,
        }
    }

    #[test]
    fn progress_applies_updates_in_order_and_ignores_unknown_steps() {
        let p = plan(&[1, 2, 3]);
        let progress = p.progress([
            update(1, PlanStepStatus::InProgress),
            update(1, PlanStepStatus::Completed),
            update(3, PlanStepStatus::Skipped),
            update(9, PlanStepStatus::Completed),
        ]);
        let statuses: Vec<(u32, PlanStepStatus)> =
            progress.iter().map(|s| (s.step_number, s.status)).collect();
        assert_eq!(
            statuses,
            vec![
                (1, PlanStepStatus::Completed),
                (2, PlanStepStatus::Pending),
                (3, PlanStepStatus::Skipped)
            ]
        );
    }

    #[test]
    fn step_statuses_are_snake_case_in_json() {
        let u: PlanStepUpdate =
            serde_json::from_str(r#"{"step_number": 2, "status": "in_progress"}"#).unwrap();
        assert_eq!(u, update(2, PlanStepStatus::InProgress));
        assert!(
            serde_json::from_str::<PlanStepUpdate>(r#"{"step_number": 2, "status": "done"}"#)
                .is_err()
        );
    }
}
