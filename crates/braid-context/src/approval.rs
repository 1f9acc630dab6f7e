//! Who decides whether a tool call runs: the policy, an approval the person gave "for this
//! session", or the person, call by call. Pure functions, so every policy is tested alone.

use std::collections::{BTreeSet, HashMap};

use braid_protocol::ApprovalPolicy;
use braid_tools::ToolCategory;
use serde_json::Value;

/// What the policy says about one call.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PolicyDecision {
    /// It may run without asking.
    Run,
    /// A person must decide.
    AskPerson,
}

/// What is known about a call when deciding.
#[derive(Clone, Copy, Debug)]
pub struct CallFacts<'a> {
    /// The tool's name as the model called it.
    pub tool: &'a str,
    /// Whether the tool only reads.
    pub read_only: bool,
    /// Whether an MCP server's config lists the tool under `autoApprove`.
    pub server_auto_approved: bool,
    /// The tool's category, when the tool is known.
    pub category: Option<ToolCategory>,
}

/// Decides one call. Writes and commands are never auto-approved unless the policy says so
/// (`auto_all`, or the tool named in a white list) or the person approved the tool for the
/// session.
pub fn decide(
    policy: &ApprovalPolicy,
    session_approved: &BTreeSet<String>,
    call: CallFacts<'_>,
) -> PolicyDecision {
    // Proposing a plan or asking a question changes nothing: the person decides in the card
    // itself, so asking first would only ask twice.
    if session_approved.contains(call.tool)
        || call.server_auto_approved
        || call.category == Some(ToolCategory::Interaction)
    {
        return PolicyDecision::Run;
    }
    let runs = match policy {
        ApprovalPolicy::Manual => false,
        ApprovalPolicy::WhiteList { tools } => tools.iter().any(|t| t == call.tool),
        ApprovalPolicy::LimitedAuto { .. } => call.read_only,
        ApprovalPolicy::AutoAll => true,
    };
    if runs {
        PolicyDecision::Run
    } else {
        PolicyDecision::AskPerson
    }
}

/// The most rounds of tool execution one loop may run: the policy's `max_depth`, or the
/// engine's safety limit for the other policies.
pub fn max_depth(policy: &ApprovalPolicy, safety_limit: u32) -> u32 {
    match policy {
        ApprovalPolicy::LimitedAuto { max_depth } => (*max_depth).min(safety_limit),
        _ => safety_limit,
    }
}

/// Notices a model that keeps making the same call (tool and arguments) without getting
/// anywhere.
#[derive(Debug, Default)]
pub struct CycleDetector {
    seen: HashMap<String, u32>,
}

impl CycleDetector {
    /// How many times the same call may be made in one loop before it counts as a cycle.
    pub const REPEAT_LIMIT: u32 = 3;

    /// Records a call; answers whether it has now been made [`Self::REPEAT_LIMIT`] times.
    pub fn record(&mut self, tool: &str, arguments: &Value) -> bool {
        // serde_json's maps are sorted, so equal arguments give equal text.
        let key = format!("{tool}\u{0}{arguments}");
        let count = self.seen.entry(key).or_insert(0);
        *count += 1;
        *count >= Self::REPEAT_LIMIT
    }

    /// Starts over (a new turn from the person).
    pub fn reset(&mut self) {
        self.seen.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn facts(tool: &str, read_only: bool) -> CallFacts<'_> {
        CallFacts {
            tool,
            read_only,
            server_auto_approved: false,
            category: None,
        }
    }

    #[test]
    fn manual_asks_for_everything() {
        let none = BTreeSet::new();
        assert_eq!(
            decide(&ApprovalPolicy::Manual, &none, facts("read_file", true)),
            PolicyDecision::AskPerson
        );
    }

    #[test]
    fn white_list_runs_only_listed_tools() {
        let policy = ApprovalPolicy::WhiteList {
            tools: vec!["read_file".into()],
        };
        let none = BTreeSet::new();
        assert_eq!(
            decide(&policy, &none, facts("read_file", true)),
            PolicyDecision::Run
        );
        assert_eq!(
            decide(&policy, &none, facts("delete_file", false)),
            PolicyDecision::AskPerson
        );
    }

    #[test]
    fn limited_auto_runs_reads_but_never_writes_or_commands() {
        let policy = ApprovalPolicy::LimitedAuto { max_depth: 3 };
        let none = BTreeSet::new();
        assert_eq!(
            decide(&policy, &none, facts("codebase_search", true)),
            PolicyDecision::Run
        );
        assert_eq!(
            decide(&policy, &none, facts("run_command", false)),
            PolicyDecision::AskPerson
        );
        assert_eq!(max_depth(&policy, 25), 3);
        assert_eq!(max_depth(&ApprovalPolicy::AutoAll, 25), 25);
    }

    #[test]
    fn auto_all_runs_everything() {
        let none = BTreeSet::new();
        assert_eq!(
            decide(&ApprovalPolicy::AutoAll, &none, facts("run_command", false)),
            PolicyDecision::Run
        );
    }

    #[test]
    fn session_approval_and_server_auto_approve_skip_the_question() {
        let session: BTreeSet<String> = ["write_file".to_owned()].into();
        assert_eq!(
            decide(
                &ApprovalPolicy::Manual,
                &session,
                facts("write_file", false)
            ),
            PolicyDecision::Run
        );
        let mcp = CallFacts {
            tool: "mcp__time__now",
            read_only: false,
            server_auto_approved: true,
            category: None,
        };
        assert_eq!(
            decide(&ApprovalPolicy::Manual, &BTreeSet::new(), mcp),
            PolicyDecision::Run
        );
    }

    #[test]
    fn plans_and_questions_never_wait_for_approval() {
        let ask = CallFacts {
            tool: "ask_user",
            read_only: true,
            server_auto_approved: false,
            category: Some(ToolCategory::Interaction),
        };
        assert_eq!(
            decide(&ApprovalPolicy::Manual, &BTreeSet::new(), ask),
            PolicyDecision::Run
        );
    }

    #[test]
    fn the_same_call_three_times_is_a_cycle() {
        let mut d = CycleDetector::default();
        assert!(!d.record("read_file", &json!({"path":"a"})));
        assert!(!d.record("read_file", &json!({"path":"b"})));
        assert!(!d.record("read_file", &json!({"path":"a"})));
        assert!(d.record("read_file", &json!({"path":"a"})));
        d.reset();
        assert!(!d.record("read_file", &json!({"path":"a"})));
    }
}
