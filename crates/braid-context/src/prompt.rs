//! The system prompt, built for every request and never stored (DESIGN.md "The context"): the
//! base prompt or the branch's override, the mode, the agent role, the workspace, and the tools
//! the role may use; for a model whose tool calls are prompted, the tools themselves and how to
//! call them.

use braid_llm::ToolDefinition;
use braid_llm::prompted::{CALL_FENCE, call_block};
use braid_protocol::api::{ToolExample, ToolInfo};
use braid_protocol::{AgentRole, Mode, ToolCalling};
use serde_json::Value;

/// The longest tool description in a prompted tool list, in characters (the first sentence is
/// used, cut here).
pub const MAX_PROMPTED_DESCRIPTION_CHARS: usize = 120;

/// The most characters the examples of a prompted tool list take together (about 500 tokens):
/// the prompt must leave a small window room for the turn.
pub const MAX_PROMPTED_EXAMPLES_CHARS: usize = 2_000;

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
    /// How the model calls tools; `prompted` lists `definitions` in the prompt.
    pub tool_calling: ToolCalling,
    /// The definitions offered (workflows included), for a prompted tool list.
    pub definitions: &'a [ToolDefinition],
}

/// Builds the system prompt. It stays short (a model with a 4k window must still fit it, the
/// tools and a turn): for native tool calling the tools are named here, their descriptions and
/// schemas travel as the request's tool definitions; for prompted tool calling a compact list
/// (name, arguments, first sentence) and the call format are added here instead.
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
    if inputs.tool_calling == ToolCalling::Prompted && !inputs.definitions.is_empty() {
        prompted_tools(&mut out, inputs.definitions, inputs.tools);
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

/// The tool list and call format for a model that writes its calls as text, each tool with its
/// examples (from `tools`) while [`MAX_PROMPTED_EXAMPLES_CHARS`] lasts.
fn prompted_tools(out: &mut String, definitions: &[ToolDefinition], tools: &[ToolInfo]) {
    out.push_str("\n## Tools\nTo call a tool, write a block like this and stop; its result comes back as \"Result of <tool> (call <n>)\":\n");
    let example = definitions
        .iter()
        .find(|d| d.name == "read_file")
        .map(|d| {
            (
                d.name.as_str(),
                serde_json::json!({ "path": "src/main.rs" }),
            )
        })
        .unwrap_or((definitions[0].name.as_str(), serde_json::json!({})));
    out.push_str(&call_block(example.0, &example.1));
    out.push_str(&format!(
        "\nOne `{CALL_FENCE}` block per call; `arguments` is a JSON object. Tools (`?`: optional):\n"
    ));
    let mut examples_left = MAX_PROMPTED_EXAMPLES_CHARS;
    for d in definitions {
        out.push_str("- ");
        out.push_str(&d.name);
        out.push('(');
        out.push_str(&signature(&d.parameters));
        out.push(')');
        let description = first_sentence(&d.description);
        if !description.is_empty() {
            out.push_str(": ");
            out.push_str(&description);
        }
        out.push('\n');
        let examples = tools
            .iter()
            .find(|t| t.name == d.name)
            .map(|t| t.examples.as_slice())
            .unwrap_or_default();
        for example in examples {
            let line = example_line(example);
            // Examples come in the tools' order until the budget is spent; a longer one is
            // left out whole, never cut.
            if line.len() > examples_left {
                continue;
            }
            examples_left -= line.len();
            out.push_str(&line);
        }
    }
}

/// One example under a tool of the prompted list: `  e.g. <summary>: <arguments>`, or what is
/// known of its use when there are no arguments.
fn example_line(example: &ToolExample) -> String {
    let summary = first_sentence(&example.summary);
    match &example.arguments {
        Some(arguments) => format!("  e.g. {summary}: {arguments}\n"),
        None => format!("  use: {summary}\n"),
    }
}

/// A schema's arguments as `name: type, other?: type`.
fn signature(parameters: &Value) -> String {
    let required: Vec<&str> = parameters
        .get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let Some(properties) = parameters.get("properties").and_then(Value::as_object) else {
        return String::new();
    };
    properties
        .iter()
        .map(|(name, schema)| {
            let optional = if required.contains(&name.as_str()) {
                ""
            } else {
                "?"
            };
            format!("{name}{optional}: {}", type_of(schema))
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// A short name of a property's type: its enum values, its JSON type, `T[]` for arrays.
fn type_of(schema: &Value) -> String {
    if let Some(values) = schema.get("enum").and_then(Value::as_array) {
        return values
            .iter()
            .map(|v| match v {
                Value::String(s) => s.clone(),
                other => other.to_string(),
            })
            .collect::<Vec<_>>()
            .join("|");
    }
    match schema.get("type") {
        Some(Value::String(t)) if t == "array" => {
            format!(
                "{}[]",
                schema.get("items").map_or("any".to_owned(), type_of)
            )
        }
        Some(Value::String(t)) => t.clone(),
        Some(Value::Array(types)) => types
            .iter()
            .filter_map(Value::as_str)
            .filter(|t| *t != "null")
            .collect::<Vec<_>>()
            .join("|"),
        _ => "any".to_owned(),
    }
}

/// A description's first sentence (or line), at most [`MAX_PROMPTED_DESCRIPTION_CHARS`].
fn first_sentence(description: &str) -> String {
    let line = description.trim().lines().next().unwrap_or_default();
    let sentence = match line.find(". ") {
        Some(end) => &line[..=end],
        None => line,
    };
    let mut out: String = sentence
        .chars()
        .take(MAX_PROMPTED_DESCRIPTION_CHARS)
        .collect();
    if out.len() < sentence.len() {
        out.push('…');
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
            examples: Vec::new(),
        }
    }

    #[test]
    fn a_prompted_list_shows_each_tool_s_examples_until_their_budget_is_spent() {
        let mut read = tool("read_file", true);
        read.examples.push(ToolExample {
            summary: "read the start of a file".into(),
            arguments: Some(serde_json::json!({"path": "src/main.rs", "end_line": 40})),
        });
        let mut search = tool("mcp__web__search", true);
        search.examples.push(ToolExample {
            summary: "Search the web (only reads)".into(),
            arguments: None,
        });
        // One example longer than the whole budget is left out, whole.
        let mut big = tool("big", true);
        big.examples.push(ToolExample {
            summary: "too long".into(),
            arguments: Some(serde_json::json!({"text": "x".repeat(MAX_PROMPTED_EXAMPLES_CHARS)})),
        });
        let tools = [read, big, search];
        let definitions: Vec<ToolDefinition> = tools
            .iter()
            .map(|t| ToolDefinition {
                name: t.name.clone(),
                description: t.description.clone(),
                parameters: t.parameters.clone(),
            })
            .collect();
        let mut i = inputs(&tools);
        i.definitions = &definitions;
        let native = build_system_prompt(&i);
        assert!(
            !native.contains("e.g."),
            "native calls carry no list: {native}"
        );
        i.tool_calling = ToolCalling::Prompted;
        let p = build_system_prompt(&i);
        assert!(
            p.contains(
                "- read_file(): does read_file\n  e.g. read the start of a file: {\"end_line\":40,\"path\":\"src/main.rs\"}\n"
            ),
            "{p}"
        );
        assert!(
            p.contains(
                "- mcp__web__search(): does mcp__web__search\n  use: Search the web (only reads)\n"
            ),
            "{p}"
        );
        assert!(!p.contains("too long"), "{p}");
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
            tool_calling: ToolCalling::Native,
            definitions: &[],
        }
    }

    #[test]
    fn a_prompted_model_gets_the_tool_list_and_the_call_format() {
        let definitions = [
            ToolDefinition {
                name: "read_file".into(),
                description: "Read a workspace file. Lines are numbered.".into(),
                parameters: serde_json::json!({
                    "type": "object",
                    "properties": {
                        "path": {"type": "string"},
                        "start_line": {"type": "integer"},
                        "mode": {"enum": ["text", "bytes"]},
                        "paths": {"type": "array", "items": {"type": "string"}}
                    },
                    "required": ["path"]
                }),
            },
            ToolDefinition {
                name: "list".into(),
                description: String::new(),
                parameters: serde_json::json!({"type": "object"}),
            },
        ];
        let mut i = inputs(&[]);
        i.definitions = &definitions;
        assert!(
            !build_system_prompt(&i).contains("## Tools"),
            "native calls need no list"
        );
        i.tool_calling = ToolCalling::Prompted;
        let p = build_system_prompt(&i);
        assert!(
            p.contains("```tool_call\n{\"name\": \"read_file\", \"arguments\": {\"path\":\"src/main.rs\"}}\n```"),
            "{p}"
        );
        // Arguments in the schema's order (serde_json's map order decides).
        for part in [
            "- read_file(",
            "path: string",
            "start_line?: integer",
            "mode?: text|bytes",
            "paths?: string[]",
            "): Read a workspace file.\n",
        ] {
            assert!(p.contains(part), "{part}: {p}");
        }
        assert!(p.contains("- list()\n"), "{p}");
        // The example is a call the parser reads back.
        let at = p.find("```tool_call").unwrap();
        let parsed = braid_llm::prompted::parse_answer(&p[at..]);
        assert_eq!(parsed.calls[0].name, "read_file");
        assert!(parsed.calls[0].arguments.is_ok());
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
