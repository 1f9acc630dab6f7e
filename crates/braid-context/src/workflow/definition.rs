//! A workflow definition: its YAML file read and checked field by field. A file that does not
//! parse or validate yields every problem with the field it concerns, never a panic, and never
//! affects other files.

use std::collections::HashSet;
use std::path::Path;

use braid_protocol::Problem;
use braid_protocol::workflow::{WorkflowInfo, WorkflowOrigin, WorkflowStepInfo, WorkflowStepType};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};

use super::template::{Piece, Placeholder, pieces};

/// The longest workflow name: `workflow__<name>` must fit a provider's 64-character tool name.
pub const MAX_NAME_CHARS: usize = 54;
/// The most steps one definition may have.
pub const MAX_STEPS: usize = 100;
/// The prefix of the tool each definition is offered to the model as.
pub const TOOL_PREFIX: &str = "workflow__";

/// A definition that parsed and validated: what a run executes.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct WorkflowDefinition {
    /// Its name.
    pub name: String,
    /// What it is for (also the model's tool description).
    pub description: String,
    /// JSON Schema of its parameters (an object schema).
    pub parameters: Value,
    /// Its steps, in order.
    pub steps: Vec<Step>,
}

/// One step.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Step {
    /// Its name, unique in the definition.
    pub name: String,
    /// What it does.
    pub action: StepAction,
}

/// What a step does.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum StepAction {
    /// Call a tool with these (templated) arguments.
    Tool {
        /// The tool's name as the model would call it.
        tool: String,
        /// Its arguments; strings may hold templates.
        arguments: Value,
    },
    /// Ask the model once with this (templated) text.
    Prompt {
        /// The text.
        prompt: String,
    },
    /// Wait for the person, showing this (templated) question.
    Approval {
        /// The question.
        message: String,
    },
}

impl StepAction {
    /// The step's type as the API names it.
    pub fn step_type(&self) -> WorkflowStepType {
        match self {
            StepAction::Tool { .. } => WorkflowStepType::Tool,
            StepAction::Prompt { .. } => WorkflowStepType::Prompt,
            StepAction::Approval { .. } => WorkflowStepType::Approval,
        }
    }
}

impl WorkflowDefinition {
    /// The tool name the model calls it by.
    pub fn tool_name(&self) -> String {
        format!("{TOOL_PREFIX}{}", self.name)
    }

    /// How the API lists it.
    pub fn info(&self, source: &Path, origin: WorkflowOrigin) -> WorkflowInfo {
        WorkflowInfo {
            name: self.name.clone(),
            description: self.description.clone(),
            parameters: self.parameters.clone(),
            steps: self
                .steps
                .iter()
                .map(|s| WorkflowStepInfo {
                    name: s.name.clone(),
                    step_type: s.action.step_type(),
                })
                .collect(),
            source: source.display().to_string(),
            origin,
            errors: Vec::new(),
        }
    }
}

/// Whether a name may be used for a workflow or a step: letters, digits, `-` and `_`.
fn valid_name(name: &str) -> bool {
    !name.is_empty()
        && name.chars().count() <= MAX_NAME_CHARS
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
}

struct Checker {
    problems: Vec<Problem>,
}

impl Checker {
    fn push(&mut self, path: impl Into<String>, message: impl Into<String>) {
        self.problems.push(Problem {
            path: path.into(),
            message: message.into(),
        });
    }

    fn text(&mut self, map: &Map<String, Value>, key: &str, path: &str) -> Option<String> {
        match map.get(key) {
            Some(Value::String(s)) if !s.trim().is_empty() => Some(s.clone()),
            Some(Value::String(_)) => {
                self.push(path, "must not be empty");
                None
            }
            Some(other) => {
                self.push(path, format!("must be a string, got {}", kind_of(other)));
                None
            }
            None => None,
        }
    }
}

fn kind_of(v: &Value) -> &'static str {
    match v {
        Value::Null => "nothing",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "a list",
        Value::Object(_) => "a mapping",
    }
}

/// Reads and checks a definition. `Err` holds every problem, each naming its field.
pub fn parse(text: &str) -> Result<WorkflowDefinition, Vec<Problem>> {
    let value: Value = match serde_yaml_ng::from_str(text) {
        Ok(v) => v,
        Err(e) => {
            let at = e
                .location()
                .map(|l| format!(" (line {}, column {})", l.line(), l.column()))
                .unwrap_or_default();
            return Err(vec![Problem {
                path: String::new(),
                message: format!("not valid YAML{at}: {e}"),
            }]);
        }
    };
    let Value::Object(top) = value else {
        return Err(vec![Problem {
            path: String::new(),
            message: format!(
                "must be a mapping with `name` and `steps`, got {}",
                kind_of(&value)
            ),
        }]);
    };
    let mut c = Checker {
        problems: Vec::new(),
    };
    for key in top.keys() {
        if !["name", "description", "parameters", "steps", "version"].contains(&key.as_str()) {
            c.push(
                key.clone(),
                "unknown field; a workflow has name, description, parameters and steps",
            );
        }
    }
    let name = c.text(&top, "name", "name");
    match &name {
        None if !top.contains_key("name") => c.push("name", "is required"),
        Some(n) if !valid_name(n) => c.push(
            "name",
            format!("`{n}` must be 1 to {MAX_NAME_CHARS} letters, digits, `-` or `_`"),
        ),
        _ => {}
    }
    let description = c
        .text(&top, "description", "description")
        .unwrap_or_default();
    let parameters = match top.get("parameters") {
        None | Some(Value::Null) => json!({"type": "object", "properties": {}}),
        Some(schema @ Value::Object(s)) => {
            if s.get("type").is_some_and(|t| t != "object") {
                c.push("parameters.type", "must be `object`: parameters are named");
            }
            if let Err(e) = jsonschema::validator_for(schema) {
                c.push(
                    format!("parameters{}", pointer_path(e.instance_path().as_str())),
                    format!("not a valid JSON Schema: {e}"),
                );
            }
            schema.clone()
        }
        Some(other) => {
            c.push(
                "parameters",
                format!("must be a JSON Schema mapping, got {}", kind_of(other)),
            );
            json!({})
        }
    };
    let declared: Option<HashSet<String>> = parameters
        .get("properties")
        .and_then(Value::as_object)
        .map(|p| p.keys().cloned().collect());
    let mut steps = Vec::new();
    match top.get("steps") {
        None => c.push("steps", "is required: a workflow has at least one step"),
        Some(Value::Array(items)) if items.is_empty() => {
            c.push("steps", "must have at least one step")
        }
        Some(Value::Array(items)) if items.len() > MAX_STEPS => c.push(
            "steps",
            format!("has {} steps; at most {MAX_STEPS} (MAX_STEPS)", items.len()),
        ),
        Some(Value::Array(items)) => {
            let mut seen: Vec<String> = Vec::new();
            for (i, item) in items.iter().enumerate() {
                if let Some(step) = parse_step(&mut c, i, item, &mut seen, declared.as_ref()) {
                    steps.push(step);
                }
            }
        }
        Some(other) => c.push("steps", format!("must be a list, got {}", kind_of(other))),
    }
    match name {
        Some(name) if c.problems.is_empty() => Ok(WorkflowDefinition {
            name,
            description,
            parameters,
            steps,
        }),
        _ => Err(c.problems),
    }
}

/// A JSON pointer (`/properties/x/type`) as a dotted field path (`.properties.x.type`).
fn pointer_path(pointer: &str) -> String {
    pointer
        .split('/')
        .filter(|s| !s.is_empty())
        .map(|s| format!(".{s}"))
        .collect()
}

fn parse_step(
    c: &mut Checker,
    i: usize,
    item: &Value,
    seen: &mut Vec<String>,
    declared: Option<&HashSet<String>>,
) -> Option<Step> {
    let earlier: &[String] = &seen.clone();
    let at = format!("steps[{i}]");
    let Value::Object(map) = item else {
        c.push(at, format!("must be a mapping, got {}", kind_of(item)));
        return None;
    };
    let before = c.problems.len();
    for key in map.keys() {
        if !["name", "tool", "arguments", "prompt", "approval"].contains(&key.as_str()) {
            c.push(
                format!("{at}.{key}"),
                "unknown field; a step has name and one of tool (with arguments), prompt or approval",
            );
        }
    }
    let name = c.text(map, "name", &format!("{at}.name"));
    match &name {
        None if !map.contains_key("name") => c.push(format!("{at}.name"), "is required"),
        Some(n) if !valid_name(n) => c.push(
            format!("{at}.name"),
            format!("`{n}` must be letters, digits, `-` or `_`"),
        ),
        Some(n) if earlier.contains(n) => c.push(
            format!("{at}.name"),
            format!("`{n}` is used by an earlier step"),
        ),
        _ => {}
    }
    let kinds: Vec<&str> = ["tool", "prompt", "approval"]
        .into_iter()
        .filter(|k| map.contains_key(*k))
        .collect();
    let action = match kinds.as_slice() {
        ["tool"] => {
            let tool = c.text(map, "tool", &format!("{at}.tool"));
            let arguments = match map.get("arguments") {
                None | Some(Value::Null) => json!({}),
                Some(v @ Value::Object(_)) => v.clone(),
                Some(other) => {
                    c.push(
                        format!("{at}.arguments"),
                        format!("must be a mapping, got {}", kind_of(other)),
                    );
                    json!({})
                }
            };
            check_value_templates(c, &arguments, &format!("{at}.arguments"), earlier, declared);
            tool.map(|tool| StepAction::Tool { tool, arguments })
        }
        ["prompt"] => {
            let prompt = c.text(map, "prompt", &format!("{at}.prompt"));
            if let Some(p) = &prompt {
                check_templates(c, p, &format!("{at}.prompt"), earlier, declared);
            }
            prompt.map(|prompt| StepAction::Prompt { prompt })
        }
        ["approval"] => {
            let message = c.text(map, "approval", &format!("{at}.approval"));
            if let Some(m) = &message {
                check_templates(c, m, &format!("{at}.approval"), earlier, declared);
            }
            message.map(|message| StepAction::Approval { message })
        }
        [] => {
            c.push(at.clone(), "needs one of `tool`, `prompt` or `approval`");
            None
        }
        several => {
            c.push(
                at.clone(),
                format!(
                    "has {}; a step does exactly one of them",
                    several.join(" and ")
                ),
            );
            None
        }
    };
    if kinds != ["tool"] && map.contains_key("arguments") {
        c.push(
            format!("{at}.arguments"),
            "only a `tool` step takes arguments",
        );
    }
    if let Some(n) = &name {
        seen.push(n.clone());
    }
    match (name, action) {
        (Some(name), Some(action)) if c.problems.len() == before => Some(Step { name, action }),
        _ => None,
    }
}

fn check_templates(
    c: &mut Checker,
    template: &str,
    path: &str,
    earlier: &[String],
    declared: Option<&HashSet<String>>,
) {
    let holes = match pieces(template) {
        Ok(p) => p,
        Err(e) => return c.push(path, e),
    };
    for hole in holes {
        let Piece::Hole(hole) = hole else { continue };
        match Placeholder::parse(hole) {
            Err(e) => c.push(path, e),
            Ok(Placeholder::Param(parts)) => {
                if declared.is_some_and(|d| !d.contains(&parts[0])) {
                    c.push(
                        path,
                        format!(
                            "`params.{}` is not declared in `parameters.properties`",
                            parts[0]
                        ),
                    );
                }
            }
            Ok(Placeholder::StepOutput { step, .. }) => {
                if !earlier.contains(&step) {
                    c.push(
                        path,
                        format!("`steps.{step}.output` does not name an earlier step"),
                    );
                }
            }
        }
    }
}

fn check_value_templates(
    c: &mut Checker,
    value: &Value,
    path: &str,
    earlier: &[String],
    declared: Option<&HashSet<String>>,
) {
    match value {
        Value::String(s) => check_templates(c, s, path, earlier, declared),
        Value::Array(items) => {
            for (i, v) in items.iter().enumerate() {
                check_value_templates(c, v, &format!("{path}[{i}]"), earlier, declared);
            }
        }
        Value::Object(map) => {
            for (k, v) in map {
                check_value_templates(c, v, &format!("{path}.{k}"), earlier, declared);
            }
        }
        _ => {}
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    const REVIEW: &str = r#"
name: review-changes
description: Review the uncommitted changes
parameters:
  type: object
  properties: { focus: { type: string, default: "correctness" } }
steps:
  - name: diff
    tool: run_command
    arguments: { program: "git", args: ["diff"] }
  - name: review
    prompt: "Review this diff for {{ params.focus }}:\n{{ steps.diff.output.stdout }}"
  - name: confirm
    approval: "Post the review as a file?"
  - name: save
    tool: write_file
    arguments: { path: "REVIEW.md", content: "{{ steps.review.output }}" }
"#;

    fn problems(text: &str) -> Vec<Problem> {
        parse(text).unwrap_err()
    }

    fn at(problems: &[Problem], path: &str) -> String {
        problems
            .iter()
            .find(|p| p.path == path)
            .map(|p| p.message.clone())
            .unwrap_or_else(|| panic!("no problem at `{path}` in {problems:?}"))
    }

    #[test]
    fn the_issue_example_parses_with_every_step_type() {
        let d = parse(REVIEW).unwrap();
        assert_eq!(d.name, "review-changes");
        assert_eq!(d.tool_name(), "workflow__review-changes");
        let types: Vec<_> = d.steps.iter().map(|s| s.action.step_type()).collect();
        assert_eq!(
            types,
            [
                WorkflowStepType::Tool,
                WorkflowStepType::Prompt,
                WorkflowStepType::Approval,
                WorkflowStepType::Tool
            ]
        );
    }

    #[test]
    fn unreadable_yaml_names_its_line() {
        let p = problems("name: x\nsteps: [\n");
        assert_eq!(p.len(), 1);
        assert!(p[0].message.contains("not valid YAML"), "{p:?}");
        assert!(p[0].message.contains("line"), "{p:?}");
    }

    #[test]
    fn every_problem_names_its_field() {
        let p = problems(
            r#"
name: "bad name!"
colour: blue
parameters: { type: object, properties: { n: { type: 12 } } }
steps:
  - name: a
    tool: read_file
    prompt: "both"
  - name: b
    prompt: "{{ steps.later.output }} {{ env.HOME }} {{ params.missing }}"
  - name: b
    approval: ""
  - prompt: "no name"
  - name: c
    approval: "ok"
    arguments: { x: 1 }
  - 7
"#,
        );
        assert!(at(&p, "name").contains("letters"));
        assert!(at(&p, "colour").contains("unknown field"));
        assert!(
            at(&p, "parameters.properties.n.type").contains("JSON Schema"),
            "{p:?}"
        );
        assert!(at(&p, "steps[0]").contains("exactly one"));
        let prompt: Vec<_> = p.iter().filter(|x| x.path == "steps[1].prompt").collect();
        assert_eq!(prompt.len(), 3, "{p:?}");
        assert!(at(&p, "steps[2].name").contains("earlier step"));
        assert!(at(&p, "steps[2].approval").contains("empty"));
        assert!(at(&p, "steps[3].name").contains("required"));
        assert!(at(&p, "steps[4].arguments").contains("only a `tool` step"));
        assert!(at(&p, "steps[5]").contains("mapping"));
    }

    #[test]
    fn name_and_steps_are_required() {
        let p = problems("description: nothing\n");
        assert!(at(&p, "name").contains("required"));
        assert!(at(&p, "steps").contains("required"));
        assert!(at(&problems("name: x\nsteps: []\n"), "steps").contains("at least one"));
        assert!(at(&problems("- a\n"), "").contains("mapping"));
    }
}
