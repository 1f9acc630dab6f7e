//! Workflow runs as turns of their own (issue 45): a run's 202 names its turn, every event of
//! the run carries it, one `turn_completed` ends it (also when the run waits, pauses, fails or
//! is cancelled), the turn reads back, a resume is a new turn, and an `Idempotency-Key` replay
//! answers the same turn.

use std::time::Duration;

use reqwest::Method;
use serde_json::{Value, json};

use crate::common::{Sse, TestServer, calls, reply};
use braid_testkit::Script;

/// A prompt, an approval step, and another prompt.
const GREET: &str = r#"
name: greet
parameters:
  type: object
  properties: { who: { type: string, default: "you" } }
steps:
  - name: hello
    prompt: "Say hello to {{ params.who }}"
  - name: check
    approval: "Keep the greeting for {{ params.who }}?"
  - name: again
    prompt: "Say it once more"
"#;

/// Two prompts (the first to pause or cancel while it streams).
const TWICE: &str = r#"
name: twice
steps:
  - name: first
    prompt: "Talk slowly"
  - name: second
    prompt: "Then briefly"
"#;

/// A tool step that cannot run.
const BROKEN: &str = r#"
name: broken
steps:
  - name: missing
    tool: no_such_tool
    arguments: {}
"#;

fn define(s: &TestServer) {
    let dir = s.workspace.join(".braid/workflows");
    std::fs::create_dir_all(&dir).unwrap();
    for (name, text) in [("greet", GREET), ("twice", TWICE), ("broken", BROKEN)] {
        std::fs::write(dir.join(format!("{name}.yaml")), text).unwrap();
    }
}

/// A slow answer: long enough to pause or cancel while it streams.
fn slow() -> braid_testkit::StreamReply {
    let pieces: Vec<String> = (0..60).map(|i| format!("w{i} ")).collect();
    let refs: Vec<&str> = pieces.iter().map(String::as_str).collect();
    reply(&refs).chunk_delay(Duration::from_millis(20))
}

async fn start_run(s: &TestServer, id: &str, name: &str) -> Value {
    let (status, started) = s
        .call(
            "POST",
            &format!("/v1/contexts/{id}/workflows/{name}/run"),
            Some(json!({"parameters": {}})),
        )
        .await;
    assert_eq!(status, 202, "{started}");
    assert!(
        started["turn_id"].is_string(),
        "the run's 202 names its turn: {started}"
    );
    started
}

async fn control(s: &TestServer, id: &str, eid: &Value, what: &str) -> (u16, Value) {
    let eid = eid.as_str().unwrap();
    s.call(
        "POST",
        &format!("/v1/contexts/{id}/workflows/executions/{eid}/{what}"),
        None,
    )
    .await
}

/// The events from the answer's `stream_after` up to its turn's `turn_completed`, each checked
/// to carry the turn and the branch.
async fn events_of_turn(s: &TestServer, id: &str, answer: &Value) -> Vec<Sse> {
    let after = answer["stream_after"]
        .as_u64()
        .expect("the 202 names where to stream from");
    let turn = answer["turn_id"].clone();
    let mut events = s.events(id, "", Some(after)).await;
    let wanted = turn.clone();
    let seen = events
        .until(move |e| e.event == "turn_completed" && e.data["turn_id"] == wanted)
        .await;
    for e in &seen {
        assert_eq!(
            e.data["turn_id"], turn,
            "{} without the run's turn: {}",
            e.event, e.data
        );
        assert_eq!(e.data["branch"], "main", "{}", e.data);
    }
    seen
}

/// Every `turn_completed` in the context's log so far, with its outcome (the log is read until
/// no logged event comes within a second; heartbeats come meanwhile).
async fn completions(s: &TestServer, id: &str) -> Vec<(Value, Value)> {
    let mut events = s.events(id, "", Some(0)).await;
    let mut ends = Vec::new();
    let mut quiet_since = tokio::time::Instant::now();
    while quiet_since.elapsed() < Duration::from_secs(1) {
        let Ok(Some(e)) = tokio::time::timeout(Duration::from_millis(200), events.next()).await
        else {
            continue;
        };
        if e.event == "heartbeat" {
            continue;
        }
        quiet_since = tokio::time::Instant::now();
        if e.event == "turn_completed" {
            ends.push((e.data["turn_id"].clone(), e.data["outcome"].clone()));
        }
    }
    ends
}

async fn get_turn(s: &TestServer, id: &str, turn: &Value) -> Value {
    let turn = turn.as_str().unwrap();
    let (status, view) = s
        .call("GET", &format!("/v1/contexts/{id}/turns/{turn}"), None)
        .await;
    assert_eq!(status, 200, "{view}");
    view
}

fn run_status(messages: &[Value], eid: &Value) -> Value {
    messages
        .iter()
        .find(|m| m["kind"] == "workflow_execution" && m["data"]["execution_id"] == *eid)
        .unwrap_or_else(|| panic!("no run {eid}"))["data"]["status"]
        .clone()
}

#[tokio::test]
async fn a_run_is_a_turn_every_event_carries_and_its_resume_is_a_turn_of_its_own() {
    let s = TestServer::start(
        Script::new()
            .then(reply(&["Hello, ", "you."]))
            .then(reply(&["Hello again."])),
    )
    .await;
    define(&s);
    let id = s.context(json!({})).await;
    let started = start_run(&s, &id, "greet").await;
    let turn = started["turn_id"].clone();
    let seen = events_of_turn(&s, &id, &started).await;
    assert!(
        seen.iter().any(|e| e.event == "content_delta"),
        "the prompt step's answer streams in the run's turn: {seen:?}"
    );
    assert!(
        seen.iter()
            .any(|e| e.data["message_update"]["message_id"] == started["message_id"]),
        "the run's own message is an event of its turn"
    );
    let done = seen.last().unwrap();
    assert_eq!(
        done.data["outcome"], "awaiting_approval",
        "the run waits at its approval step: {}",
        done.data
    );
    let view = get_turn(&s, &id, &turn).await;
    assert_eq!(view["status"], "completed", "{view}");
    assert_eq!(view["outcome"], "awaiting_approval", "{view}");
    assert_eq!(view["message_id"], started["message_id"]);

    let (status, resumed) = control(&s, &id, &started["execution_id"], "resume").await;
    assert_eq!(status, 202, "{resumed}");
    assert!(resumed["turn_id"].is_string(), "{resumed}");
    assert_ne!(resumed["turn_id"], turn, "a resume is a turn of its own");
    let seen = events_of_turn(&s, &id, &resumed).await;
    assert_eq!(seen.last().unwrap().data["outcome"], "answered");
    assert_eq!(
        get_turn(&s, &id, &resumed["turn_id"]).await["outcome"],
        "answered"
    );
    assert_eq!(
        run_status(&s.messages(&id).await, &started["execution_id"]),
        "completed"
    );
    assert_eq!(
        completions(&s, &id).await,
        vec![
            (turn, json!("awaiting_approval")),
            (resumed["turn_id"].clone(), json!("answered"))
        ],
        "exactly one turn_completed per turn"
    );
}

#[tokio::test]
async fn a_run_cancelled_while_it_streams_ends_its_turn_once_as_interrupted() {
    let s = TestServer::start(Script::new().then(slow())).await;
    define(&s);
    let id = s.context(json!({})).await;
    let started = start_run(&s, &id, "twice").await;
    let mut events = s.events(&id, "", started["stream_after"].as_u64()).await;
    events.until(|e| e.event == "content_delta").await;
    let (status, body) = control(&s, &id, &started["execution_id"], "cancel").await;
    assert_eq!(status, 204, "{body}");
    let seen = events_of_turn(&s, &id, &started).await;
    assert_eq!(seen.last().unwrap().data["outcome"], "interrupted");
    assert_eq!(
        get_turn(&s, &id, &started["turn_id"]).await["outcome"],
        "interrupted"
    );
    assert_eq!(
        run_status(&s.messages(&id).await, &started["execution_id"]),
        "cancelled"
    );
    assert_eq!(
        completions(&s, &id).await,
        vec![(started["turn_id"].clone(), json!("interrupted"))],
        "the cancelled run's turn ends once"
    );
}

#[tokio::test]
async fn cancelling_a_run_that_waits_at_its_approval_runs_no_second_turn() {
    let s = TestServer::start(Script::new().then(reply(&["Hello."]))).await;
    define(&s);
    let id = s.context(json!({})).await;
    let started = start_run(&s, &id, "greet").await;
    events_of_turn(&s, &id, &started).await;
    let (status, body) = control(&s, &id, &started["execution_id"], "cancel").await;
    assert_eq!(status, 204, "{body}");
    s.settle(&id).await;
    assert_eq!(
        run_status(&s.messages(&id).await, &started["execution_id"]),
        "cancelled"
    );
    assert_eq!(
        completions(&s, &id).await,
        vec![(started["turn_id"].clone(), json!("awaiting_approval"))]
    );
}

#[tokio::test]
async fn a_paused_run_ends_its_turn_paused_and_a_failed_one_failed() {
    let s = TestServer::start(Script::new().then(slow()).then(reply(&["Briefly."]))).await;
    define(&s);
    let id = s.context(json!({})).await;
    let started = start_run(&s, &id, "twice").await;
    let mut events = s.events(&id, "", started["stream_after"].as_u64()).await;
    events.until(|e| e.event == "content_delta").await;
    let (status, body) = control(&s, &id, &started["execution_id"], "pause").await;
    assert_eq!(status, 204, "{body}");
    let seen = events_of_turn(&s, &id, &started).await;
    assert_eq!(seen.last().unwrap().data["outcome"], "paused");
    assert_eq!(
        run_status(&s.messages(&id).await, &started["execution_id"]),
        "paused"
    );
    let (status, resumed) = control(&s, &id, &started["execution_id"], "resume").await;
    assert_eq!(status, 202, "{resumed}");
    let seen = events_of_turn(&s, &id, &resumed).await;
    assert_eq!(seen.last().unwrap().data["outcome"], "answered");

    let failed = start_run(&s, &id, "broken").await;
    let seen = events_of_turn(&s, &id, &failed).await;
    let done = &seen.last().unwrap().data;
    assert_eq!(done["outcome"], "failed", "{done}");
    assert!(
        done["error"].as_str().unwrap().contains("no_such_tool"),
        "the turn says what failed: {done}"
    );
    let view = get_turn(&s, &id, &failed["turn_id"]).await;
    assert_eq!(view["outcome"], "failed", "{view}");
}

#[tokio::test]
async fn a_run_retried_with_its_key_answers_the_same_turn_and_runs_once() {
    let s = TestServer::start(Script::new().then(reply(&["Hello."]))).await;
    define(&s);
    let id = s.context(json!({})).await;
    let path = format!("/v1/contexts/{id}/workflows/greet/run");
    let post = || async {
        let res = s
            .req(Method::POST, &path)
            .header("content-type", "application/json")
            .header("Idempotency-Key", "run-1")
            .body(json!({"parameters": {"who": "Ada"}}).to_string())
            .send()
            .await
            .unwrap();
        let status = res.status().as_u16();
        (status, res.json::<Value>().await.unwrap())
    };
    let (status, first) = post().await;
    assert_eq!(status, 202, "{first}");
    events_of_turn(&s, &id, &first).await;
    let (status, again) = post().await;
    assert_eq!(status, 202, "{again}");
    assert_eq!(again, first, "the replay answers the same run and turn");
    s.settle(&id).await;
    let runs = s
        .messages(&id)
        .await
        .into_iter()
        .filter(|m| m["kind"] == "workflow_execution")
        .count();
    assert_eq!(runs, 1, "one run");
    assert_eq!(s.mock.requests().len(), 1, "one model request");
}

#[tokio::test]
async fn a_run_started_by_a_send_is_that_sends_turn() {
    let s = TestServer::start(Script::new().then(reply(&["Hello."]))).await;
    define(&s);
    let id = s.context(json!({})).await;
    let (status, sent) = s
        .call(
            "POST",
            &format!("/v1/contexts/{id}/messages"),
            Some(json!({"payload": {"type": "workflow", "workflow": "greet", "display_text": "/greet"}})),
        )
        .await;
    assert_eq!(status, 202, "{sent}");
    let seen = events_of_turn(&s, &id, &sent).await;
    assert_eq!(seen.last().unwrap().data["outcome"], "awaiting_approval");
    assert_eq!(
        completions(&s, &id).await,
        vec![(sent["turn_id"].clone(), json!("awaiting_approval"))]
    );
}

#[tokio::test]
async fn a_run_the_model_starts_is_part_of_its_turn_which_ends_as_the_model_answers() {
    let s = TestServer::start(
        Script::new()
            .then(calls(&[("call_1", "workflow__broken", json!({}))]))
            .then(reply(&["That workflow failed."])),
    )
    .await;
    define(&s);
    let id = s
        .context(json!({"approval_policy": {"type": "auto_all"}}))
        .await;
    let sent = s.send_text(&id, "run broken").await;
    let seen = events_of_turn(&s, &id, &sent).await;
    assert_eq!(
        seen.last().unwrap().data["outcome"],
        "answered",
        "the run failed, but the model went on and answered: {:?}",
        seen.last()
    );
    let runs: Vec<Value> = s
        .messages(&id)
        .await
        .into_iter()
        .filter(|m| m["kind"] == "workflow_execution")
        .map(|m| m["data"]["status"].clone())
        .collect();
    assert_eq!(runs, vec![json!("failed")]);
    assert_eq!(
        completions(&s, &id).await,
        vec![(sent["turn_id"].clone(), json!("answered"))],
        "one turn_completed: the run is part of the send's turn"
    );
}
