//! Command rules end to end through `braid serve` over HTTP, with the mock model: "approve for
//! this session" on a command stores the rule the waiting state offered, the next command that
//! rule allows runs unasked (also after a restart), another command still asks, and a call
//! asking to leave the sandbox is never approved for the session.

use crate::common;

use braid_testkit::Script;
use common::TestServer;
use serde_json::{Value, json};

fn cargo(id: &str, args: &[&str]) -> (String, &'static str, Value) {
    (
        id.to_owned(),
        "run_command",
        json!({"program": "cargo", "args": args}),
    )
}

/// Whether the call `id` has a result among the context's messages.
async fn answered(s: &TestServer, context: &str, id: &str) -> bool {
    s.messages(context)
        .await
        .iter()
        .any(|m| m["kind"] == "tool_result" && m["data"]["call_id"] == id)
}

#[tokio::test]
async fn a_rule_approved_for_the_session_runs_its_command_unasked_across_a_restart() {
    let turn = |c: (String, &'static str, Value)| common::calls(&[(c.0.as_str(), c.1, c.2)]);
    let script = Script::new()
        .then(turn(cargo("t1", &["test", "-q"])))
        .then(common::reply(&["tested"]))
        .then(turn(cargo("t2", &["test", "--lib"])))
        .then(common::reply(&["tested again"]))
        .then(turn(cargo("t3", &["test"])))
        .then(common::reply(&["tested after the restart"]))
        .then(turn(cargo("p1", &["publish"])))
        .then(common::reply(&["not published"]))
        .then(common::calls(&[(
            "e1",
            "run_command",
            json!({"program": "cargo", "args": ["test"], "outside_sandbox": "needs the registry"}),
        )]));
    // The operator allows unsandboxed commands, so leaving the sandbox is the person's to decide.
    let mut setup = common::Setup::new(script);
    setup.app.sandbox.unsandboxed = braid_tools::Unsandboxed::Allowed;
    let mut s = TestServer::with(setup).await;
    let id = s.context(json!({})).await;

    s.send_text(&id, "run the tests").await;
    let state = s.settle(&id).await;
    assert_eq!(state["type"], "awaiting_tool_approval", "{state}");
    // The waiting state names the rule "approve for this session" adds.
    assert_eq!(
        state["offered_rules"],
        json!([{"call_id": "t1", "rule": {"program": "cargo", "args_prefix": ["test"], "origin": "session_approval"}}])
    );
    let approve = |call: &str, decision: &str| json!({"decisions": [{"call_id": call, "decision": decision}]});
    let path = format!("/v1/contexts/{id}/approvals");
    let (status, body) = s
        .call("POST", &path, Some(approve("t1", "approve_for_session")))
        .await;
    assert_eq!(status, 202, "{body}");
    assert_eq!(s.settle(&id).await["type"], "idle");
    let (_, summary) = s.call("GET", &format!("/v1/contexts/{id}"), None).await;
    assert_eq!(
        summary["config"]["command_rules"],
        json!([{"program": "cargo", "args_prefix": ["test"], "origin": "session_approval"}])
    );
    assert_eq!(
        summary["config"]["approved_tools"],
        Value::Null,
        "{summary}"
    );

    // The same rule's command runs without asking...
    s.send_text(&id, "again").await;
    assert_eq!(s.settle(&id).await["type"], "idle");
    assert!(answered(&s, &id, "t2").await);

    // ...also after a restart.
    s.restart().await;
    s.send_text(&id, "once more").await;
    assert_eq!(s.settle(&id).await["type"], "idle");
    assert!(answered(&s, &id, "t3").await);

    // A command the rule does not name asks.
    s.send_text(&id, "publish it").await;
    let state = s.settle(&id).await;
    assert_eq!(state["type"], "awaiting_tool_approval", "{state}");
    assert_eq!(state["pending_requests"], json!(["p1"]));
    let (status, _) = s.call("POST", &path, Some(approve("p1", "deny"))).await;
    assert_eq!(status, 202);
    assert_eq!(s.settle(&id).await["type"], "idle");

    // Leaving the sandbox asks even for a command the rule allows, and only once at a time.
    s.send_text(&id, "test it outside").await;
    let state = s.settle(&id).await;
    assert_eq!(state["pending_requests"], json!(["e1"]), "{state}");
    assert_eq!(state.get("offered_rules"), None, "{state}");
    let (status, body) = s
        .call("POST", &path, Some(approve("e1", "approve_for_session")))
        .await;
    assert_eq!(status, 409, "{body}");
    assert!(
        body["error"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("outside the sandbox")),
        "{body}"
    );
}
