//! Who decides whether a tool call runs: the policy, an approval the person gave "for this
//! session", or the person, call by call. Pure functions, so every policy is tested alone.

use std::collections::{BTreeSet, HashMap};

use braid_protocol::{ApprovalPolicy, CommandRule};
use braid_tools::ToolCategory;
use braid_tools::command_rule::rule_for_call;
use serde_json::Value;

/// What the policy says about one call.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PolicyDecision {
    /// It may run without asking.
    Run,
    /// A person must decide.
    AskPerson,
}

/// What a tool may do, as far as Braid knows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Access {
    /// It only reads, and Braid knows it: a built-in read-only tool, or an MCP tool annotated
    /// `readOnlyHint` by a server whose configuration says `"trustToolHints": true`.
    ReadOnly,
    /// Its MCP server claims it only reads, but the configuration does not trust the server's
    /// hints: it counts as a tool that may change things.
    ClaimedReadOnly,
    /// It may write, delete or run commands (or it is not known what it does).
    Changes,
}

/// What is known about a call when deciding.
#[derive(Clone, Copy, Debug)]
pub struct CallFacts<'a> {
    /// The tool's name as the model called it.
    pub tool: &'a str,
    /// What the tool may do.
    pub access: Access,
    /// Whether an MCP server's config lists the tool under `autoApprove`.
    pub server_auto_approved: bool,
    /// The tool's category, when the tool is known.
    pub category: Option<ToolCategory>,
}

/// Decides one call. Writes and commands are never auto-approved unless the policy says so
/// (`auto_all`, or the tool named in a white list or in `limited_auto`'s `tools`) or the person
/// approved the tool for the session; `limited_auto` runs by itself only what is known to be
/// read-only, never what merely claims to be.
pub fn decide(
    policy: &ApprovalPolicy,
    session_approved: &BTreeSet<String>,
    call: CallFacts<'_>,
) -> PolicyDecision {
    // Proposing a plan or asking a question changes nothing: the person decides in the card
    // itself, so asking first would only ask twice. Reporting a plan's progress changes only
    // the plan card's ticks.
    if session_approved.contains(call.tool)
        || call.server_auto_approved
        || matches!(
            call.category,
            Some(ToolCategory::Interaction | ToolCategory::Planning | ToolCategory::Progress)
        )
    {
        return PolicyDecision::Run;
    }
    let runs = match policy {
        ApprovalPolicy::Manual => false,
        ApprovalPolicy::WhiteList { tools } => tools.iter().any(|t| t == call.tool),
        ApprovalPolicy::LimitedAuto { tools, .. } => {
            call.access == Access::ReadOnly || tools.iter().any(|t| t == call.tool)
        }
        ApprovalPolicy::AutoAll => true,
    };
    if runs {
        PolicyDecision::Run
    } else {
        PolicyDecision::AskPerson
    }
}

/// Decides one call as [`decide`] does, after the context's `command_rules`: a `run_command`
/// call (its JSON `arguments`) that a rule allows runs without asking under every policy. A
/// call asking to run outside the sandbox always asks the person: no policy, rule or session
/// approval leaves the sandbox.
pub fn decide_with_rules(
    policy: &ApprovalPolicy,
    session_approved: &BTreeSet<String>,
    rules: &[CommandRule],
    call: CallFacts<'_>,
    arguments: &Value,
) -> PolicyDecision {
    if leaves_sandbox(call.tool, arguments) {
        return PolicyDecision::AskPerson;
    }
    if call.tool == "run_command" && rule_for_call(rules, arguments).is_ok() {
        return PolicyDecision::Run;
    }
    decide(policy, session_approved, call)
}

/// Whether a call (tool and JSON `arguments`) asks to run outside the sandbox.
pub fn leaves_sandbox(tool: &str, arguments: &Value) -> bool {
    tool == "run_command"
        && arguments
            .get(braid_tools::command::OUTSIDE_SANDBOX)
            .is_some()
}

/// What a call runs with as to the sandbox: leaving it only when it asked to and a person
/// approved it (`approval`), which no policy can do since [`decide_with_rules`] always asks.
pub fn escalation(
    tool: &str,
    arguments: &Value,
    approval: braid_protocol::ApprovalStatus,
) -> braid_tools::Escalation {
    if leaves_sandbox(tool, arguments) && approval == braid_protocol::ApprovalStatus::Approved {
        braid_tools::Escalation::ApprovedByPerson
    } else {
        braid_tools::Escalation::NotApproved
    }
}

/// The most rounds of tool execution one loop may run: the policy's `max_depth`, or the
/// engine's safety limit for the other policies.
pub fn max_depth(policy: &ApprovalPolicy, safety_limit: u32) -> u32 {
    match policy {
        ApprovalPolicy::LimitedAuto { max_depth, .. } => (*max_depth).min(safety_limit),
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
            access: if read_only {
                Access::ReadOnly
            } else {
                Access::Changes
            },
            server_auto_approved: false,
            category: None,
        }
    }

    fn limited(tools: &[&str]) -> ApprovalPolicy {
        ApprovalPolicy::LimitedAuto {
            max_depth: 3,
            tools: tools.iter().map(|t| t.to_string()).collect(),
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
        let policy = limited(&[]);
        let none = BTreeSet::new();
        assert_eq!(
            decide(&policy, &none, facts("codebase_search", true)),
            PolicyDecision::Run
        );
        assert_eq!(
            decide(&policy, &none, facts("run_command", false)),
            PolicyDecision::AskPerson
        );
        assert_eq!(
            decide(&policy, &none, facts("write_file", false)),
            PolicyDecision::AskPerson
        );
        assert_eq!(max_depth(&policy, 25), 3);
        assert_eq!(max_depth(&ApprovalPolicy::AutoAll, 25), 25);
    }

    #[test]
    fn limited_auto_runs_a_write_or_command_it_lists() {
        let policy = limited(&["run_command"]);
        let none = BTreeSet::new();
        assert_eq!(
            decide(&policy, &none, facts("run_command", false)),
            PolicyDecision::Run
        );
        assert_eq!(
            decide(&policy, &none, facts("write_file", false)),
            PolicyDecision::AskPerson,
            "a tool the list does not name still waits"
        );
    }

    #[test]
    fn limited_auto_runs_a_trusted_mcp_read_but_not_a_claimed_one() {
        let none = BTreeSet::new();
        let mcp = |access| CallFacts {
            tool: "mcp__everything__echo",
            access,
            server_auto_approved: false,
            category: Some(ToolCategory::External),
        };
        assert_eq!(
            decide(&limited(&[]), &none, mcp(Access::ReadOnly)),
            PolicyDecision::Run
        );
        assert_eq!(
            decide(&limited(&[]), &none, mcp(Access::ClaimedReadOnly)),
            PolicyDecision::AskPerson
        );
        assert_eq!(
            decide(
                &limited(&["mcp__everything__echo"]),
                &none,
                mcp(Access::ClaimedReadOnly)
            ),
            PolicyDecision::Run,
            "listing the tool is the operator's own decision"
        );
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
            access: Access::Changes,
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
            access: Access::ReadOnly,
            server_auto_approved: false,
            category: Some(ToolCategory::Interaction),
        };
        assert_eq!(
            decide(&ApprovalPolicy::Manual, &BTreeSet::new(), ask),
            PolicyDecision::Run
        );
    }

    #[test]
    fn plan_progress_reports_never_wait_for_approval() {
        let progress = CallFacts {
            tool: "update_plan",
            access: Access::ReadOnly,
            server_auto_approved: false,
            category: Some(ToolCategory::Progress),
        };
        for policy in [
            ApprovalPolicy::Manual,
            ApprovalPolicy::WhiteList { tools: Vec::new() },
        ] {
            assert_eq!(
                decide(&policy, &BTreeSet::new(), progress),
                PolicyDecision::Run
            );
        }
    }

    #[test]
    fn a_command_rule_runs_its_command_under_every_policy_and_nothing_else() {
        let rules = [CommandRule {
            program: "cargo".into(),
            args_prefix: vec!["test".into()],
            origin: braid_protocol::RuleOrigin::Configuration,
        }];
        let none = BTreeSet::new();
        let test = json!({"program": "cargo", "args": ["test", "--quiet"]});
        let publish = json!({"program": "cargo", "args": ["publish"]});
        for policy in [
            ApprovalPolicy::Manual,
            limited(&[]),
            ApprovalPolicy::WhiteList { tools: vec![] },
        ] {
            let decide = |args: &Value, tool| {
                decide_with_rules(&policy, &none, &rules, facts(tool, false), args)
            };
            assert_eq!(decide(&test, "run_command"), PolicyDecision::Run);
            assert_eq!(decide(&publish, "run_command"), PolicyDecision::AskPerson);
            assert_eq!(
                decide(&test, "write_file"),
                PolicyDecision::AskPerson,
                "a rule is about commands only"
            );
        }
    }

    #[test]
    fn leaving_the_sandbox_always_asks_the_person() {
        let rules = [CommandRule {
            program: "cargo".into(),
            args_prefix: vec!["build".into()],
            origin: braid_protocol::RuleOrigin::Configuration,
        }];
        let session: BTreeSet<String> = ["run_command".to_owned()].into();
        let escalated =
            json!({"program": "cargo", "args": ["build"], "outside_sandbox": "needs the registry"});
        for policy in [
            ApprovalPolicy::AutoAll,
            limited(&["run_command"]),
            ApprovalPolicy::WhiteList {
                tools: vec!["run_command".into()],
            },
        ] {
            assert_eq!(
                decide_with_rules(
                    &policy,
                    &session,
                    &rules,
                    facts("run_command", false),
                    &escalated
                ),
                PolicyDecision::AskPerson,
                "{policy:?}"
            );
        }
        assert_eq!(
            escalation(
                "run_command",
                &escalated,
                braid_protocol::ApprovalStatus::Approved
            ),
            braid_tools::Escalation::ApprovedByPerson
        );
        assert_eq!(
            escalation(
                "run_command",
                &json!({"program": "cargo", "args": ["build"]}),
                braid_protocol::ApprovalStatus::Approved
            ),
            braid_tools::Escalation::NotApproved,
            "an approved call that did not ask stays in the sandbox"
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
