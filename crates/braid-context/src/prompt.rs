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
    /// Whether the tools were withheld because the model's window cannot hold them.
    pub tools_withheld: bool,
    /// The workspace's instructions: the file's path, its text, and whether it was cut.
    pub instructions: Option<(&'a str, &'a str, bool)>,
}

/// Builds the system prompt. It stays short (a model with a 4k window must still fit it, the
/// tools and a turn): the tools are named here, their descriptions and schemas travel as the
/// request's tool definitions.
pub fn build_system_prompt(inputs: &PromptInputs<'_>) -> String {
    let mut out = String::new();
    out.push_str(
        inputs
            .branch_override
            .or(inputs.base)
            .filter(|p| !p.trim().is_empty())
            .unwrap_or(DEFAULT_BASE_PROMPT),
    );
    out.push_str("\n\n");
    match inputs.mode {
        Mode::Plan => out.push_str(
            "PLAN mode: investigate with read-only tools, then propose a plan with \
             `propose_plan` (or a JSON object with `goal` and numbered `steps` of `step_number`, \
             `action`, `reason`). Do not change files or run commands: the person executes the \
             plan.\n",
        ),
        Mode::Act => out.push_str(
            "ACT mode: do the task with the tools; changes and commands may wait for the \
             person's approval. Ask with `ask_user` when you need a decision.\n",
        ),
    }
    match inputs.role {
        AgentRole::Planner => out.push_str("Role: planner (read, never write or run).\n"),
        AgentRole::Actor => out.push_str("Role: actor (read, write files, run commands).\n"),
    }
    match inputs.workspace {
        Some(root) => {
            out.push_str("Workspace: `");
            out.push_str(root);
            out.push_str("`; paths are relative to it.\n");
        }
        None => out.push_str("No workspace: file and codebase tools are unavailable.\n"),
    }
    if inputs.tools_withheld {
        out.push_str(
            "This request offers no tools: the model's context window is too small for them. \
             Answer from the conversation.\n",
        );
    }
    // Every tool travels as a definition; naming the ones that change things tells which may
    // wait for approval.
    let writers: Vec<&ToolInfo> = inputs.tools.iter().filter(|t| !t.read_only).collect();
    if !writers.is_empty() {
        out.push_str("Tools that change things: ");
        for (i, tool) in writers.iter().enumerate() {
            if i > 0 {
                out.push_str(", ");
            }
            out.push('`');
            out.push_str(&tool.name);
            out.push('`');
        }
        out.push_str(".\n");
    }
    // Last: what the workspace's people wrote for agents, after everything Braid says.
    if let Some((path, text, truncated)) = inputs.instructions
        && !text.trim().is_empty()
    {
        out.push_str("\n## Workspace instructions (`");
        out.push_str(path);
        out.push_str("`)\n");
        out.push_str(text.trim_end());
        out.push('\n');
        if truncated {
            out.push_str("[The file goes on; read it with `read_file` for the rest.]\n");
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
            tools_withheld: false,
            instructions: None,
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
    fn workspace_instructions_come_last_with_their_file_and_a_cut_is_said() {
        let mut i = inputs(&[]);
        i.instructions = Some(("AGENTS.md", "Run `make test` before committing.\n", true));
        let p = build_system_prompt(&i);
        let at =
            p.find("## Workspace instructions (`AGENTS.md`)\nRun `make test` before committing.\n");
        assert!(at.is_some_and(|at| at > p.find("ACT mode").unwrap()), "{p}");
        assert!(
            p.ends_with("read it with `read_file` for the rest.]\n"),
            "{p}"
        );
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
    fn workspace_and_tools_that_change_things_are_named() {
        let tools = [
            tool("read_file", true),
            tool("glob", true),
            tool("write_file", false),
        ];
        let p = build_system_prompt(&inputs(&tools));
        assert!(p.contains("`/home/me/project`"));
        assert!(!p.contains("`read_file`"), "{p}");
        assert!(
            p.contains("Tools that change things: `write_file`.\n"),
            "{p}"
        );
        // Descriptions travel as tool definitions, not twice.
        assert!(!p.contains("does read_file"), "{p}");
    }
}
