//! The workflow routes over real HTTP: listing definitions with their errors, starting a run
//! (by its route and by a `workflow` payload) with parameters checked against the schema (422
//! naming the parameter), and pausing, resuming and cancelling runs.

use crate::common;

use braid_testkit::Script;
use common::*;
use serde_json::{Value, json};

const NOTE: &str = r#"
name: note
description: Writes a note
parameters:
  type: object
  required: [text]
  properties: { text: { type: string, minLength: 1 } }
steps:
  - name: write
    tool: write_file
    arguments: { path: "NOTE.md", content: "{{ params.text }}" }
  - name: check
    approval: "Keep {{ params.text }}?"
  - name: read
    tool: read_file
    arguments: { path: "NOTE.md" }
"#;

fn define(s: &TestServer) {
    let dir = s.workspace.join(".braid/workflows");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("note.yaml"), NOTE).unwrap();
    std::fs::write(
        dir.join("broken.yml"),
        "name: broken\nsteps:\n  - name: a\n",
    )
    .unwrap();
}

fn run_of(messages: &[Value], eid: &str) -> Value {
    messages
        .iter()
        .find(|m| m["kind"] == "workflow_execution" && m["data"]["execution_id"] == eid)
        .unwrap_or_else(|| panic!("no run {eid}"))["data"]
        .clone()
}

#[tokio::test]
async fn definitions_are_listed_per_context_with_their_errors() {
    let s = TestServer::start(Script::new()).await;
    define(&s);
    let id = s
        .context(json!({"approval_policy": {"type": "auto_all"}}))
        .await;
    let (status, body) = s
        .call("GET", &format!("/v1/workflows?context={id}"), None)
        .await;
    assert_eq!(status, 200, "{body}");
    let list = body["workflows"].as_array().unwrap();
    assert_eq!(list.len(), 2);
    let note = list.iter().find(|w| w["name"] == "note").unwrap();
    assert_eq!(note["description"], "Writes a note");
    assert_eq!(note["origin"], "workspace");
    assert_eq!(note["parameters"]["required"], json!(["text"]));
    assert_eq!(
        note["steps"][1],
        json!({"name": "check", "type": "approval"})
    );
    assert!(note["source"].as_str().unwrap().ends_with("note.yaml"));
    let broken = list.iter().find(|w| w["name"] == "broken").unwrap();
    assert_eq!(broken["errors"][0]["path"], "steps[0]");
    // Without a context only the data directory's are listed (none here).
    let (status, body) = s.call("GET", "/v1/workflows", None).await;
    assert_eq!((status, body["workflows"].clone()), (200, json!([])));
    let (status, body) = s.call("GET", "/v1/workflows?context=nope", None).await;
    assert_eq!(status, 422);
    assert_eq!(body["error"]["field"], "query.context");
}

#[tokio::test]
async fn parameters_are_validated_over_http_naming_the_parameter() {
    let s = TestServer::start(Script::new()).await;
    define(&s);
    let id = s.context(json!({})).await;
    let path = format!("/v1/contexts/{id}/workflows/note/run");
    let (status, body) = s.call("POST", &path, Some(json!({}))).await;
    assert_eq!(status, 422, "{body}");
    assert_eq!(body["error"]["field"], "parameters.text");
    let (status, body) = s
        .call("POST", &path, Some(json!({"parameters": {"text": ""}})))
        .await;
    assert_eq!(status, 422, "{body}");
    assert_eq!(body["error"]["field"], "parameters.text");
    let (status, body) = s
        .call("POST", &path, Some(json!({"parameters": "text"})))
        .await;
    assert_eq!(status, 422, "{body}");
    let (status, _) = s
        .call(
            "POST",
            &format!("/v1/contexts/{id}/workflows/nothing/run"),
            Some(json!({})),
        )
        .await;
    assert_eq!(status, 404);
    let (status, body) = s
        .call(
            "POST",
            &format!("/v1/contexts/{id}/workflows/broken/run"),
            Some(json!({})),
        )
        .await;
    assert_eq!(status, 422);
    assert_eq!(body["error"]["field"], "workflow");
    let (status, body) = s
        .call(
            "POST",
            &format!("/v1/contexts/{id}/messages"),
            Some(json!({"payload": {"type": "workflow", "workflow": "note", "parameters": {"text": 7}}})),
        )
        .await;
    assert_eq!(status, 422, "{body}");
    assert_eq!(body["error"]["field"], "payload.parameters.text");
    assert!(
        s.messages(&id).await.is_empty(),
        "nothing refused is stored"
    );
}

#[tokio::test]
async fn a_run_started_over_http_pauses_at_its_approval_and_resumes_or_cancels() {
    let s = TestServer::start(Script::new()).await;
    define(&s);
    let id = s
        .context(json!({"approval_policy": {"type": "auto_all"}}))
        .await;
    let (status, started) = s
        .call(
            "POST",
            &format!("/v1/contexts/{id}/workflows/note/run"),
            Some(json!({"parameters": {"text": "hello"}})),
        )
        .await;
    assert_eq!(status, 202, "{started}");
    let eid = started["execution_id"].as_str().unwrap().to_owned();
    assert_eq!(started["message_id"], eid);
    s.settle(&id).await;
    let run = run_of(&s.messages(&id).await, &eid);
    assert_eq!(run["status"], "paused");
    assert_eq!(run["awaiting_approval"], "Keep hello?");
    assert_eq!(run["completed_steps"], 1);
    let control = |what: &str| format!("/v1/contexts/{id}/workflows/executions/{eid}/{what}");
    let (status, resumed) = s.call("POST", &control("resume"), None).await;
    assert_eq!(status, 202, "{resumed}");
    s.settle(&id).await;
    let run = run_of(&s.messages(&id).await, &eid);
    assert_eq!(run["status"], "completed");
    assert_eq!(run["completed_steps"], 3);
    assert!(run.get("current_step").is_none());
    // A finished run cannot be paused; an unknown one is 404.
    let (status, body) = s.call("POST", &control("pause"), None).await;
    assert_eq!(status, 409, "{body}");
    let (status, _) = s
        .call(
            "POST",
            &format!("/v1/contexts/{id}/workflows/executions/nope/cancel"),
            None,
        )
        .await;
    assert_eq!(status, 404);

    // The `workflow` payload starts a run too; cancelling at the approval records it.
    let (status, sent) = s
        .call(
            "POST",
            &format!("/v1/contexts/{id}/messages"),
            Some(json!({"payload": {"type": "workflow", "workflow": "note", "parameters": {"text": "bye"}, "display_text": "Note bye"}})),
        )
        .await;
    assert_eq!(status, 202, "{sent}");
    let eid = sent["message_id"].as_str().unwrap().to_owned();
    s.settle(&id).await;
    let (status, _) = s
        .call(
            "POST",
            &format!("/v1/contexts/{id}/workflows/executions/{eid}/cancel"),
            None,
        )
        .await;
    assert_eq!(status, 204);
    let run = run_of(&s.messages(&id).await, &eid);
    assert_eq!(run["status"], "cancelled");
    assert_eq!(run["completed_steps"], 1);
}
