//! The system prompt, built for every request and never stored (DESIGN.md "The context"): the
//! base prompt or the branch's override, the mode, the agent role, the workspace, and the tools
//! the role may use.

use braid_protocol::api::ToolInfo;
use braid_protocol::{AgentRole, Mode};

/// The prompt used when neither the context nor the branch gives one.
pub const DEFAULT_BASE_PROMPT: &str = "You are Braid, a careful software engineering assistant. \
Answer precisely, say what you are unsure of, and prefer reading the code over guessing.";

/// Everything the system prompt depends on.
#[derive(Clone, Copy, Debug)]
pub struct PromptInputs<'a> {
    /// The context's base prompt.
    pub base: Option<&'a str>,
    /// The active branch's override, which takes precedence.
    pub branch_override: Option<&'a str>,
    /// Plan or act.
    pub mode: Mode,
    /// Planner or actor.
    pub role: AgentRole,
    /// The workspace root, when the context has one.
    pub workspace: Option<&'a str>,
    /// The tools offered in this request (already filtered by role and mode).
    pub tools: &'a [ToolInfo],
}

/// Builds the system prompt.
pub fn build_system_prompt(inputs: &PromptInputs<'_>) -> String {
    let mut out = String::new();
    out.push_str(
        inputs
            .branch_override
            .or(inputs.base)
            .filter(|p| !p.trim().is_empty())
            .unwrap_or(DEFAULT_BASE_PROMPT),
    );
    out.push_str("\n\n## Mode\n");
    match inputs.mode {
        Mode::Plan => out.push_str(
            "You are in PLAN mode. Investigate with read-only tools, then propose a plan with the \
             `propose_plan` tool (or a JSON object with `goal` and numbered `steps`, each with \
             `step_number`, `action` and `reason`, optionally `tools_needed`, `estimated_time` and \
             `risks`). Do not change files or run commands: the person executes the plan.\n",
        ),
        Mode::Act => out.push_str(
            "You are in ACT mode. Carry out the task with the tools available; calls that change \
             files or run commands may wait for the person's approval. If you need a decision, ask \
             with the `ask_user` tool.\n",
        ),
    }
    out.push_str("\n## Role\n");
    match inputs.role {
        AgentRole::Planner => out.push_str("Your role is planner: you may read, never write or run.\n"),
        AgentRole::Actor => out.push_str("Your role is actor: you may read, write files and run commands, within the approval policy.\n"),
    }
    out.push_str("\n## Workspace\n");
    match inputs.workspace {
        Some(root) => {
            out.push_str("The workspace is `");
            out.push_str(root);
            out.push_str("`. Give file paths relative to it; paths outside it are refused.\n");
        }
        None => {
            out.push_str("No workspace is configured: file and codebase tools are unavailable.\n")
        }
    }
    if !inputs.tools.is_empty() {
        out.push_str("\n## Tools\n");
        for tool in inputs.tools {
            out.push_str("- `");
            out.push_str(&tool.name);
            out.push('`');
            if tool.read_only {
                out.push_str(" (read-only)");
            }
            out.push_str(": ");
            out.push_str(tool.description.lines().next().unwrap_or_default());
            out.push('\n');
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use braid_protocol::api::ToolSource;

    fn tool(name: &str, read_only: bool) -> ToolInfo {
        ToolInfo {
            name: name.into(),
            description: format!("does {name}"),
            source: ToolSource::Builtin,
            server: None,
            read_only,
            parameters: serde_json::json!({"type":"object"}),
        }
    }

    fn inputs<'a>(tools: &'a [ToolInfo]) -> PromptInputs<'a> {
        PromptInputs {
            base: Some("Base prompt."),
            branch_override: None,
            mode: Mode::Act,
            role: AgentRole::Actor,
            workspace: Some("/home/me/project"),
            tools,
        }
    }

    #[test]
    fn branch_override_takes_precedence_over_the_base() {
        let mut i = inputs(&[]);
        i.branch_override = Some("Branch prompt.");
        let p = build_system_prompt(&i);
        assert!(p.starts_with("Branch prompt."));
        assert!(!p.contains("Base prompt."));
    }

    #[test]
    fn base_prompt_falls_back_to_the_default() {
        let mut i = inputs(&[]);
        i.base = None;
        assert!(build_system_prompt(&i).starts_with(DEFAULT_BASE_PROMPT));
    }

    #[test]
    fn plan_mode_gives_planning_instructions() {
        let mut i = inputs(&[]);
        i.mode = Mode::Plan;
        let p = build_system_prompt(&i);
        assert!(p.contains("PLAN mode") && p.contains("propose_plan"));
        assert!(!p.contains("ACT mode"));
    }

    #[test]
    fn workspace_and_tools_are_described() {
        let tools = [tool("read_file", true), tool("write_file", false)];
        let p = build_system_prompt(&inputs(&tools));
        assert!(p.contains("`/home/me/project`"));
        assert!(p.contains("- `read_file` (read-only): does read_file"));
        assert!(p.contains("- `write_file`: does write_file"));
    }
}
