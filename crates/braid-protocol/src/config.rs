//! A context's configuration (DESIGN.md "Events and the HTTP API", the `config` object).

use std::collections::BTreeMap;
use std::fmt;

use schemars::JsonSchema;
use serde::{Deserialize, Deserializer, Serialize};
#[cfg(test)]
use ts_rs::TS;

use crate::validate::{FieldPath, Problems, Validate};

/// The prefix of every MCP tool's name as the model calls it (`mcp__<server>__<tool>`).
pub const MCP_TOOL_PREFIX: &str = "mcp__";

/// Plan or act: what the agent is allowed to do right now.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[cfg_attr(test, derive(TS))]
#[serde(rename_all = "snake_case")]
pub enum Mode {
    /// Read-only tools and planning instructions: the agent proposes, the person decides.
    Plan,
    /// Every tool the role allows.
    #[default]
    Act,
}

impl fmt::Display for Mode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Mode::Plan => "plan",
            Mode::Act => "act",
        })
    }
}

/// The agent's role, which bounds the tools it may use in any mode.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[cfg_attr(test, derive(TS))]
#[serde(rename_all = "snake_case")]
pub enum AgentRole {
    /// Reads only.
    Planner,
    /// May also write files and run commands.
    #[default]
    Actor,
}

impl fmt::Display for AgentRole {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            AgentRole::Planner => "planner",
            AgentRole::Actor => "actor",
        })
    }
}

/// Which tool calls run without asking a person.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[cfg_attr(test, derive(TS))]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ApprovalPolicy {
    /// Every call waits for a person.
    #[default]
    Manual,
    /// The named tools run by themselves; others wait.
    WhiteList {
        /// Tool names that need no approval.
        tools: Vec<String>,
    },
    /// For up to `max_depth` rounds, read-only tools (built-in ones, and MCP tools of servers
    /// whose configuration trusts their hints) and the tools listed in `tools` run by
    /// themselves; writes, commands and everything else wait for a person.
    LimitedAuto {
        /// Rounds of tool execution allowed in one loop.
        max_depth: u32,
        /// Further tools (writes or commands included) that may also run without asking.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        #[cfg_attr(test, ts(as = "Option<Vec<String>>", optional))]
        tools: Vec<String>,
    },
    /// Everything runs by itself (writes and commands included).
    AutoAll,
}

/// Where the commands Braid starts (`run_command`, workflow command steps, MCP stdio servers
/// whose configuration asks for it) may read and write, and whether they reach the network.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[cfg_attr(test, derive(TS))]
#[serde(rename_all = "snake_case")]
pub enum SandboxMode {
    /// Read anywhere except Braid's data directory and known secrets (`~/.ssh`, `~/.aws`,
    /// `~/.config/gcloud`); write only inside the workspace and a private temporary directory;
    /// no network.
    #[default]
    WorkspaceWrite,
    /// As `workspace_write`, but no writes at all (the private temporary directory aside).
    ReadOnly,
    /// No sandbox: commands run with all of Braid's rights. Only honoured when the operator
    /// started the server with `--allow-unsandboxed`.
    Off,
}

impl SandboxMode {
    /// The name the configuration uses (`workspace_write`, `read_only`, `off`).
    pub fn as_str(self) -> &'static str {
        match self {
            SandboxMode::WorkspaceWrite => "workspace_write",
            SandboxMode::ReadOnly => "read_only",
            SandboxMode::Off => "off",
        }
    }
}

impl fmt::Display for SandboxMode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A command that runs without asking under every approval policy: `program` with arguments
/// that start with `args_prefix`, compared on the parsed program and arguments (never on a
/// command line string). `{ "program": "cargo", "args_prefix": ["test"] }` allows
/// `cargo test --release` but not `cargo publish`, `./cargo test` or `sh -c "cargo test"`.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[cfg_attr(test, derive(TS))]
#[serde(deny_unknown_fields)]
pub struct CommandRule {
    /// The program exactly as the call names it: a bare name (`cargo`, looked up in PATH) or,
    /// to allow one binary, its absolute path.
    pub program: String,
    /// The arguments the call's arguments must start with, compared one by one and exactly.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[cfg_attr(test, ts(as = "Option<Vec<String>>", optional))]
    pub args_prefix: Vec<String>,
    /// Where the rule came from, as the settings panel shows it; not part of what it allows.
    #[serde(default, skip_serializing_if = "RuleOrigin::is_configuration")]
    #[cfg_attr(test, ts(as = "Option<RuleOrigin>", optional))]
    pub origin: RuleOrigin,
}

/// Where a command rule came from.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[cfg_attr(test, derive(TS))]
#[serde(rename_all = "snake_case")]
pub enum RuleOrigin {
    /// Written in the context's configuration (or its API call).
    #[default]
    Configuration,
    /// Added by a person's "approve for this session" on a command.
    SessionApproval,
}

impl RuleOrigin {
    fn is_configuration(&self) -> bool {
        *self == Self::Configuration
    }
}

impl CommandRule {
    /// Whether `other` allows the same commands, wherever each came from.
    pub fn allows_as(&self, other: &CommandRule) -> bool {
        self.program == other.program && self.args_prefix == other.args_prefix
    }
}

impl fmt::Display for CommandRule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.program)?;
        for arg in &self.args_prefix {
            write!(f, " {arg}")?;
        }
        Ok(())
    }
}

impl Validate for CommandRule {
    fn validate_at(&self, path: &FieldPath, problems: &mut Problems) {
        // Printable ASCII only, so a rule never holds a look-alike or an invisible character
        // that displays as something it is not.
        let plain = |s: &str| s.chars().all(|c| c.is_ascii_graphic());
        problems.check(
            self.program.is_empty() || !plain(&self.program),
            &path.field("program"),
            format!(
                "must be a program name or absolute path of printable ASCII without spaces, got {:?}",
                self.program
            ),
        );
        problems.check(
            self.program.contains('/') && !self.program.starts_with('/'),
            &path.field("program"),
            format!(
                "must be a bare name (looked up in PATH) or an absolute path, got `{}`",
                self.program
            ),
        );
        for (i, arg) in self.args_prefix.iter().enumerate() {
            problems.check(
                !arg.chars().all(|c| c.is_ascii_graphic() || c == ' '),
                &path.field("args_prefix").index(i),
                format!("must be printable ASCII, got {arg:?}"),
            );
        }
    }
}

/// How history is trimmed to fit the model's context window.
#[derive(Clone, Debug, Default, PartialEq, Serialize, JsonSchema)]
#[cfg_attr(test, derive(TS))]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum OptimizationStrategy {
    /// Keep the newest `n` messages (tool pairs are never split).
    RecentN {
        /// How many of the newest messages to keep.
        n: u32,
    },
    /// Keep what matters (recent messages, tool pairs, recently used files and resources) and
    /// summarize older text.
    #[default]
    Intelligent,
    /// Score each message and keep the best that fit.
    ImportanceScoring {
        /// Weight per factor (`recency`, `kind`, `references`...); missing factors weigh 1.
        #[serde(default)]
        weights: BTreeMap<String, f64>,
    },
}

// Accepts the tagged object and, as DESIGN.md's example writes it, a bare name
// (`"intelligent"`, `"recent_n"`, `"importance_scoring"`) meaning that strategy's defaults.
impl<'de> Deserialize<'de> for OptimizationStrategy {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(tag = "type", rename_all = "snake_case")]
        enum Tagged {
            RecentN {
                n: u32,
            },
            Intelligent,
            ImportanceScoring {
                #[serde(default)]
                weights: BTreeMap<String, f64>,
            },
        }
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Either {
            Name(String),
            Tagged(Tagged),
        }
        match Either::deserialize(deserializer)? {
            Either::Name(name) => match name.as_str() {
                "recent_n" => Ok(OptimizationStrategy::RecentN { n: 50 }),
                "intelligent" => Ok(OptimizationStrategy::Intelligent),
                "importance_scoring" => Ok(OptimizationStrategy::ImportanceScoring {
                    weights: BTreeMap::new(),
                }),
                other => Err(serde::de::Error::custom(format!(
                    "unknown strategy `{other}`, expected one of recent_n, intelligent, importance_scoring"
                ))),
            },
            Either::Tagged(Tagged::RecentN { n }) => Ok(OptimizationStrategy::RecentN { n }),
            Either::Tagged(Tagged::Intelligent) => Ok(OptimizationStrategy::Intelligent),
            Either::Tagged(Tagged::ImportanceScoring { weights }) => {
                Ok(OptimizationStrategy::ImportanceScoring { weights })
            }
        }
    }
}

/// Optimization settings.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[cfg_attr(test, derive(TS))]
pub struct OptimizationConfig {
    /// The strategy used when a request would not fit.
    #[serde(default)]
    pub strategy: OptimizationStrategy,
    /// Tokens kept free for the model's answer.
    #[serde(default = "default_reserve_output_tokens")]
    pub reserve_output_tokens: u32,
    /// Extra tokens kept free as a safety margin against miscounting.
    #[serde(default = "default_margin_tokens")]
    pub margin_tokens: u32,
    /// The most of the prompt's budget, in percent, the ledger block may take (what left-out
    /// messages did, and the pinned facts); older entries are counted instead of listed
    /// beyond it. 0 sends no ledger (pinned facts still ride).
    #[serde(default = "default_ledger_percent")]
    #[schemars(range(max = 50))]
    pub ledger_percent: u32,
}

fn default_ledger_percent() -> u32 {
    15
}

fn default_reserve_output_tokens() -> u32 {
    4096
}

/// The answer never reserves more than this share (1/N) of the window, so a small window
/// (a local model's 4k or 8k slot) still leaves room for the prompt; the output cap follows.
pub const MAX_RESERVE_SHARE: u32 = 4;

impl OptimizationConfig {
    /// Tokens kept free for the answer in a window of `window` tokens: the configured reserve,
    /// at most [`MAX_RESERVE_SHARE`] of the window.
    pub fn reserve_for(&self, window: u32) -> u32 {
        self.reserve_output_tokens.min(window / MAX_RESERVE_SHARE)
    }
}

fn default_margin_tokens() -> u32 {
    256
}

impl Default for OptimizationConfig {
    fn default() -> Self {
        Self {
            strategy: OptimizationStrategy::default(),
            reserve_output_tokens: default_reserve_output_tokens(),
            margin_tokens: default_margin_tokens(),
            ledger_percent: default_ledger_percent(),
        }
    }
}

/// A context's configuration.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[cfg_attr(test, derive(TS))]
pub struct ContextConfig {
    /// The model to use; empty means the server's default model.
    #[serde(default)]
    pub model: String,
    /// Plan or act.
    #[serde(default)]
    pub mode: Mode,
    /// Planner or actor.
    #[serde(default)]
    pub agent_role: AgentRole,
    /// Root for file references and tools; without it file access is refused.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(test, ts(optional))]
    pub workspace: Option<String>,
    /// The base system prompt; a branch may override it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(test, ts(optional))]
    pub system_prompt: Option<String>,
    /// Which tool calls run without asking.
    #[serde(default)]
    pub approval_policy: ApprovalPolicy,
    /// Tools the person approved "for this session": they run without asking until this list is
    /// changed.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[cfg_attr(test, ts(as = "Option<Vec<String>>", optional))]
    pub approved_tools: Vec<String>,
    /// The sandbox commands run in; the server's default (`--sandbox`) when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(test, ts(optional))]
    pub sandbox: Option<SandboxMode>,
    /// Commands that run without asking, under every approval policy.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[cfg_attr(test, ts(as = "Option<Vec<CommandRule>>", optional))]
    pub command_rules: Vec<CommandRule>,
    /// Limit for one iteration of the tool loop, in seconds.
    #[serde(default = "default_tool_timeout_secs")]
    pub tool_timeout_secs: u32,
    /// Limit for one model call (connecting, retries and the whole answer), in seconds; a call
    /// that takes longer is stopped and the turn fails, recoverably. Apart from the tools' limit.
    #[serde(default = "default_llm_timeout_secs")]
    #[cfg_attr(test, ts(as = "Option<u32>", optional))]
    pub llm_timeout_secs: u32,
    /// Overrides the model table's context window, in tokens.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(test, ts(optional))]
    pub context_window: Option<u32>,
    /// How history is trimmed to fit.
    #[serde(default)]
    pub optimization: OptimizationConfig,
    /// The most tokens one answer of the model may have, sent with every request so a model
    /// that loops stops (and a paid API stops charging); `optimization.reserve_output_tokens`
    /// when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(test, ts(optional))]
    pub max_output_tokens: Option<u32>,
    /// MCP servers switched off in this context, by their configured name: none of their tools
    /// is offered to the model, and a call to one gets an error result.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[cfg_attr(test, ts(as = "Option<Vec<String>>", optional))]
    pub disabled_mcp_servers: Vec<String>,
    /// Single MCP tools switched off in this context, by the name the model calls them
    /// (`mcp__<server>__<tool>`): not offered, and a call gets an error result.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[cfg_attr(test, ts(as = "Option<Vec<String>>", optional))]
    pub disabled_mcp_tools: Vec<String>,
    /// The language OCR reads this context's images in: Tesseract's codes, joined by `+`
    /// (`eng`, `deu+eng`). When absent each image's language is detected among those installed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(test, ts(optional))]
    pub ocr_language: Option<String>,
}

impl ContextConfig {
    /// The output cap sent with every request: `max_output_tokens`, else the tokens the
    /// budget reserves for the answer.
    pub fn output_cap(&self) -> u32 {
        self.max_output_tokens
            .unwrap_or(self.optimization.reserve_output_tokens)
    }

    /// Why this context switched off the tool the model calls `name` (of MCP server `server`,
    /// when it is an MCP tool); `None` when it is on.
    pub fn mcp_switch_off(&self, name: &str, server: Option<&str>) -> Option<McpSwitchOff> {
        if let Some(server) = server.filter(|s| self.disabled_mcp_servers.iter().any(|d| d == s)) {
            return Some(McpSwitchOff::Server(server.to_owned()));
        }
        self.disabled_mcp_tools
            .iter()
            .any(|t| t == name)
            .then(|| McpSwitchOff::Tool(name.to_owned()))
    }
}

/// Why a context does not offer or run an MCP tool.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum McpSwitchOff {
    /// Its whole server is in `disabled_mcp_servers`.
    Server(String),
    /// The tool itself is in `disabled_mcp_tools`.
    Tool(String),
}

impl fmt::Display for McpSwitchOff {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            McpSwitchOff::Server(server) => write!(
                f,
                "the MCP server `{server}` is switched off in this context (config.disabled_mcp_servers)"
            ),
            McpSwitchOff::Tool(tool) => write!(
                f,
                "the tool `{tool}` is switched off in this context (config.disabled_mcp_tools)"
            ),
        }
    }
}

fn default_tool_timeout_secs() -> u32 {
    30
}

fn default_llm_timeout_secs() -> u32 {
    300
}

impl Default for ContextConfig {
    fn default() -> Self {
        Self {
            model: String::new(),
            mode: Mode::default(),
            agent_role: AgentRole::default(),
            workspace: None,
            system_prompt: None,
            approval_policy: ApprovalPolicy::default(),
            approved_tools: Vec::new(),
            sandbox: None,
            command_rules: Vec::new(),
            tool_timeout_secs: default_tool_timeout_secs(),
            llm_timeout_secs: default_llm_timeout_secs(),
            context_window: None,
            optimization: OptimizationConfig::default(),
            max_output_tokens: None,
            disabled_mcp_servers: Vec::new(),
            disabled_mcp_tools: Vec::new(),
            ocr_language: None,
        }
    }
}

impl Validate for ContextConfig {
    fn validate_at(&self, path: &FieldPath, problems: &mut Problems) {
        problems.check(
            self.tool_timeout_secs == 0,
            &path.field("tool_timeout_secs"),
            "must be at least 1 second",
        );
        problems.check(
            self.llm_timeout_secs == 0,
            &path.field("llm_timeout_secs"),
            "must be at least 1 second",
        );
        if let Some(w) = &self.workspace {
            problems.check(
                w.trim().is_empty(),
                &path.field("workspace"),
                "must not be empty when given",
            );
        }
        if let ApprovalPolicy::LimitedAuto { max_depth, tools } = &self.approval_policy {
            problems.check(
                *max_depth == 0,
                &path.field("approval_policy").field("max_depth"),
                "must be at least 1",
            );
            for (i, tool) in tools.iter().enumerate() {
                problems.check(
                    tool.trim().is_empty(),
                    &path.field("approval_policy").field("tools").index(i),
                    "must name a tool",
                );
            }
        }
        problems.check(
            self.optimization.ledger_percent > 50,
            &path.field("optimization").field("ledger_percent"),
            format!(
                "must be at most 50 (percent of the prompt's budget), got {}",
                self.optimization.ledger_percent
            ),
        );
        if let Some(window) = self.context_window {
            // In u64: two u32 settings near their maximum must not overflow the sum.
            let reserved = u64::from(self.optimization.reserve_for(window))
                + u64::from(self.optimization.margin_tokens);
            problems.check(
                u64::from(window) <= reserved,
                &path.field("context_window"),
                format!(
                    "must exceed the tokens reserved for the answer (at most a quarter of the window) and the margin ({reserved}), got {window}"
                ),
            );
        }
        if let Some(cap) = self.max_output_tokens {
            problems.check(
                cap == 0,
                &path.field("max_output_tokens"),
                "must be at least 1",
            );
            problems.check(
                cap > self.optimization.reserve_output_tokens,
                &path.field("max_output_tokens"),
                format!(
                    "must not exceed optimization.reserve_output_tokens ({}), the room the budget keeps for the answer; got {cap}",
                    self.optimization.reserve_output_tokens
                ),
            );
        }
        for (i, rule) in self.command_rules.iter().enumerate() {
            rule.validate_at(&path.field("command_rules").index(i), problems);
        }
        for (i, server) in self.disabled_mcp_servers.iter().enumerate() {
            problems.check(
                server.trim().is_empty(),
                &path.field("disabled_mcp_servers").index(i),
                "must name an MCP server",
            );
        }
        for (i, tool) in self.disabled_mcp_tools.iter().enumerate() {
            problems.check(
                !tool.starts_with(MCP_TOOL_PREFIX) || tool.len() <= MCP_TOOL_PREFIX.len(),
                &path.field("disabled_mcp_tools").index(i),
                format!("must be an MCP tool's name as the model calls it (`{MCP_TOOL_PREFIX}<server>__<tool>`), got `{tool}`"),
            );
        }
        if let Some(language) = &self.ocr_language {
            let code = |c: &str| {
                !c.is_empty()
                    && c.bytes()
                        .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_')
            };
            problems.check(
                !language.split('+').all(code),
                &path.field("ocr_language"),
                format!(
                    "must be Tesseract language codes joined by `+` (`eng`, `deu+eng`), got `{language}`"
                ),
            );
        }
        if let OptimizationStrategy::RecentN { n } = self.optimization.strategy {
            problems.check(
                n == 0,
                &path.field("optimization").field("strategy").field("n"),
                "must be at least 1",
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_ocr_language_must_be_tesseract_codes() {
        for good in ["eng", "deu+eng", "chi_sim"] {
            let config = ContextConfig {
                ocr_language: Some(good.into()),
                ..ContextConfig::default()
            };
            assert!(config.validate().is_ok(), "{good}");
        }
        for bad in ["", "eng+", "English", "eng; rm -rf /", "-l"] {
            let config = ContextConfig {
                ocr_language: Some(bad.into()),
                ..ContextConfig::default()
            };
            assert!(
                config.validate().unwrap_err().has_path("ocr_language"),
                "{bad}"
            );
        }
    }

    #[test]
    fn design_example_config_parses() {
        let config: ContextConfig = serde_json::from_str(
            r#"{
                "model": "gpt-4o-mini", "mode": "act", "agent_role": "actor",
                "workspace": "/home/me/project", "system_prompt": "You are ...",
                "approval_policy": { "type": "white_list", "tools": ["read_file", "codebase_search"] },
                "tool_timeout_secs": 30, "context_window": 128000,
                "optimization": { "strategy": "intelligent", "reserve_output_tokens": 4096 }
            }"#,
        )
        .unwrap();
        assert_eq!(
            config.approval_policy,
            ApprovalPolicy::WhiteList {
                tools: vec!["read_file".into(), "codebase_search".into()]
            }
        );
        assert_eq!(
            config.optimization.strategy,
            OptimizationStrategy::Intelligent
        );
        config.validate().unwrap();
    }

    #[test]
    fn sandbox_and_command_rules_parse_and_bad_rules_are_named() {
        let config: ContextConfig = serde_json::from_str(
            r#"{"sandbox": "read_only",
                "command_rules": [{"program": "cargo", "args_prefix": ["test"]}, {"program": "/usr/bin/git"}]}"#,
        )
        .unwrap();
        assert_eq!(config.sandbox, Some(SandboxMode::ReadOnly));
        assert_eq!(config.command_rules[0].to_string(), "cargo test");
        assert!(config.command_rules[1].args_prefix.is_empty());
        config.validate().unwrap();
        assert_eq!(
            ContextConfig::default().sandbox,
            None,
            "absent means the server's default"
        );
        assert!(serde_json::from_str::<ContextConfig>(r#"{"sandbox": "none"}"#).is_err());
        let bad: ContextConfig = serde_json::from_str(
            r#"{"command_rules": [
                {"program": ""}, {"program": "c\u0430rgo"}, {"program": "./cargo"},
                {"program": "git", "args_prefix": ["st\u200batus"]}]}"#,
        )
        .unwrap();
        let problems = bad.validate().unwrap_err();
        for path in [
            "command_rules[0].program",
            "command_rules[1].program",
            "command_rules[2].program",
            "command_rules[3].args_prefix[0]",
        ] {
            assert!(problems.has_path(path), "{path}: {problems}");
        }
    }

    #[test]
    fn the_output_cap_defaults_to_the_reserve_and_is_checked() {
        let config = ContextConfig::default();
        assert_eq!(config.output_cap(), 4096);
        let capped: ContextConfig = serde_json::from_str(r#"{"max_output_tokens": 512}"#).unwrap();
        assert_eq!(capped.output_cap(), 512);
        capped.validate().unwrap();
        for (text, needle) in [
            (r#"{"max_output_tokens": 0}"#, "at least 1"),
            (
                r#"{"max_output_tokens": 5000}"#,
                "reserve_output_tokens (4096)",
            ),
        ] {
            let config: ContextConfig = serde_json::from_str(text).unwrap();
            let errors = config.validate().unwrap_err();
            let problem = &errors.problems()[0];
            assert_eq!(problem.path, "max_output_tokens");
            assert!(problem.message.contains(needle), "{}", problem.message);
        }
    }

    #[test]
    fn mcp_switches_name_the_server_or_the_tool_and_are_checked() {
        let config: ContextConfig = serde_json::from_str(
            r#"{"disabled_mcp_servers": ["web"], "disabled_mcp_tools": ["mcp__files__delete"]}"#,
        )
        .unwrap();
        config.validate().unwrap();
        assert_eq!(
            config.mcp_switch_off("mcp__web__fetch", Some("web")),
            Some(McpSwitchOff::Server("web".into()))
        );
        assert_eq!(
            config.mcp_switch_off("mcp__files__delete", Some("files")),
            Some(McpSwitchOff::Tool("mcp__files__delete".into()))
        );
        assert_eq!(
            config.mcp_switch_off("mcp__files__read", Some("files")),
            None
        );
        assert_eq!(config.mcp_switch_off("read_file", None), None);
        let bad: ContextConfig = serde_json::from_str(
            r#"{"disabled_mcp_servers": [" "], "disabled_mcp_tools": ["delete"]}"#,
        )
        .unwrap();
        let errors = bad.validate().unwrap_err();
        let paths: Vec<&str> = errors.problems().iter().map(|p| p.path.as_str()).collect();
        assert_eq!(paths, ["disabled_mcp_servers[0]", "disabled_mcp_tools[0]"]);
    }

    #[test]
    fn empty_config_gets_defaults() {
        let config: ContextConfig = serde_json::from_str("{}").unwrap();
        assert_eq!(config, ContextConfig::default());
        assert_eq!(config.tool_timeout_secs, 30);
        assert_eq!(config.llm_timeout_secs, 300);
    }

    #[test]
    fn strategy_accepts_tagged_objects_and_rejects_unknown_names() {
        let s: OptimizationStrategy = serde_json::from_str(r#"{"type":"recent_n","n":7}"#).unwrap();
        assert_eq!(s, OptimizationStrategy::RecentN { n: 7 });
        assert_eq!(
            serde_json::to_value(&s).unwrap(),
            serde_json::json!({"type":"recent_n","n":7})
        );
        let err = serde_json::from_str::<OptimizationStrategy>(r#""magic""#).unwrap_err();
        assert!(err.to_string().contains("magic"));
    }

    #[test]
    fn reserved_tokens_at_their_maximum_are_an_error_not_an_overflow() {
        // Found by the API body fuzz target: the sum overflowed u32 and panicked.
        let config: ContextConfig = serde_json::from_str(
            r#"{"context_window": 0, "optimization": {"reserve_output_tokens": 4294967295}}"#,
        )
        .unwrap();
        assert!(config.validate().unwrap_err().has_path("context_window"));
        let config = ContextConfig {
            context_window: Some(u32::MAX),
            optimization: OptimizationConfig {
                reserve_output_tokens: u32::MAX,
                margin_tokens: u32::MAX,
                ..OptimizationConfig::default()
            },
            ..ContextConfig::default()
        };
        assert!(config.validate().unwrap_err().has_path("context_window"));
    }

    #[test]
    fn a_4096_token_window_is_valid_with_the_default_reserve() {
        // The answer reserves at most a quarter of it: 1,024 + 256 leave room for the prompt.
        let config = ContextConfig {
            context_window: Some(4_096),
            ..ContextConfig::default()
        };
        config.validate().unwrap();
        assert_eq!(config.optimization.reserve_for(4_096), 1_024);
        let tiny = ContextConfig {
            context_window: Some(300),
            ..ContextConfig::default()
        };
        let err = tiny.validate().unwrap_err();
        assert!(err.has_path("context_window"), "{err:?}");
    }

    #[test]
    fn limited_auto_with_zero_depth_is_invalid() {
        let config = ContextConfig {
            approval_policy: ApprovalPolicy::LimitedAuto {
                max_depth: 0,
                tools: vec![" ".into()],
            },
            ..ContextConfig::default()
        };
        let problems = config.validate().unwrap_err();
        assert!(problems.has_path("approval_policy.max_depth"));
        assert!(problems.has_path("approval_policy.tools[0]"), "{problems}");
    }

    #[test]
    fn limited_auto_tools_are_optional_in_json() {
        let policy: ApprovalPolicy =
            serde_json::from_str(r#"{"type":"limited_auto","max_depth":3}"#).unwrap();
        assert_eq!(
            policy,
            ApprovalPolicy::LimitedAuto {
                max_depth: 3,
                tools: Vec::new()
            }
        );
        assert_eq!(
            serde_json::to_value(&policy).unwrap(),
            serde_json::json!({"type":"limited_auto","max_depth":3})
        );
        let listed: ApprovalPolicy = serde_json::from_str(
            r#"{"type":"limited_auto","max_depth":2,"tools":["run_command"]}"#,
        )
        .unwrap();
        assert_eq!(
            listed,
            ApprovalPolicy::LimitedAuto {
                max_depth: 2,
                tools: vec!["run_command".into()]
            }
        );
    }
}
