//! `braid serve` as a real process: killed with SIGKILL in the middle of a streamed answer and
//! started again on the same data directory, it has lost no completed message and the context
//! is in a safe state that accepts the next message.

use crate::common;

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use braid_testkit::{MockLlm, Script};
use common::{is_idle, reply};
use serde_json::{Value, json};

struct Process {
    child: Child,
    url: String,
}

fn spawn(data: &Path, mock: &MockLlm) -> Process {
    let mut child = Command::new(env!("CARGO_BIN_EXE_braid"))
        .args(["serve", "--bind", "127.0.0.1:0", "--titles", "off"])
        .arg("--data-dir")
        .arg(data)
        .arg("--web-dir")
        .arg(data.join("no-ui"))
        .env("BRAID_LLM_PROVIDER", "openai")
        .env("BRAID_LLM_BASE_URL", mock.openai_base_url())
        .env("BRAID_LLM_API_KEY", "test-key")
        .env("BRAID_MODEL", "mock-model")
        .env("RUST_LOG", "info")
        .env("NO_COLOR", "1")
        .env_remove("BRAID_API_TOKEN")
        .env_remove("BRAID_BIND")
        .env_remove("BRAID_STORE")
        .env_remove("BRAID_DATA_DIR")
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let stderr = child.stderr.take().unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stderr).lines() {
            let Ok(line) = line else { break };
            if !line.contains("braid is listening") {
                continue;
            }
            if let Some(rest) = line.split(" url=").nth(1) {
                let _ = tx.send(rest.split_whitespace().next().unwrap_or("").to_owned());
            }
        }
    });
    let url = rx
        .recv_timeout(Duration::from_secs(30))
        .expect("the server never said where it listens");
    Process { child, url }
}

async fn call(url: &str, method: &str, path: &str, body: Option<Value>) -> (u16, Value) {
    let client = reqwest::Client::new();
    let mut r = client.request(method.parse().unwrap(), format!("{url}{path}"));
    if let Some(b) = body {
        r = r
            .header("content-type", "application/json")
            .body(b.to_string());
    }
    let res = r.send().await.unwrap();
    let status = res.status().as_u16();
    let text = res.text().await.unwrap();
    (status, serde_json::from_str(&text).unwrap_or(Value::Null))
}

async fn wait_for_state(url: &str, id: &str, wanted: &[&str]) -> Value {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(20);
    loop {
        let (_, body) = call(url, "GET", &format!("/v1/contexts/{id}/state"), None).await;
        if wanted.contains(&body["state"]["type"].as_str().unwrap_or("")) {
            return body["state"].clone();
        }
        assert!(tokio::time::Instant::now() < deadline, "{body}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// The context's event log from its start up to `turn`'s `turn_completed`.
async fn log_until_completed(url: &str, id: &str, turn: &str) -> Vec<common::Sse> {
    let log = reqwest::Client::new()
        .get(format!("{url}/v1/contexts/{id}/events?after=0"))
        .send()
        .await
        .unwrap();
    let mut log = common::SseReader::from_response(log);
    let turn = turn.to_owned();
    log.until(move |e| e.event == "turn_completed" && e.data["turn_id"] == turn.as_str())
        .await
}

#[tokio::test]
async fn sigkill_mid_stream_loses_no_completed_message() {
    let pieces: Vec<String> = (0..60).map(|i| format!("p{i} ")).collect();
    let refs: Vec<&str> = pieces.iter().map(String::as_str).collect();
    let mock = MockLlm::start(
        Script::new()
            .then(reply(&["first ", "answer"]))
            .then(reply(&refs).chunk_delay(Duration::from_millis(50))),
    )
    .await
    .unwrap();
    let data = tempfile::tempdir().unwrap();
    let mut first = spawn(data.path(), &mock);
    let url = first.url.clone();
    let (status, ctx) = call(
        &url,
        "POST",
        "/v1/contexts",
        Some(json!({"title": "crash"})),
    )
    .await;
    assert_eq!(status, 201);
    let id = ctx["id"].as_str().unwrap().to_owned();
    let text = |t: &str| Some(json!({"payload": {"type": "text", "text": t}}));
    let path = format!("/v1/contexts/{id}/messages");
    assert_eq!(call(&url, "POST", &path, text("one")).await.0, 202);
    wait_for_state(&url, &id, &["idle"]).await;
    // Second answer: kill the server while it streams.
    let server = common::TestServerUrl(url.clone());
    let mut events = server.events(&id).await;
    assert_eq!(call(&url, "POST", &path, text("two")).await.0, 202);
    let mut deltas = 0;
    let mut seen = Vec::new();
    while deltas < 5 {
        let e = events.next().await.unwrap();
        assert!(!is_idle(&e));
        if e.event == "content_delta" {
            deltas += 1;
        }
        seen.push(e);
    }
    first.child.kill().unwrap();
    first.child.wait().unwrap();
    let last_seen = seen.last().unwrap().id.unwrap();

    mock.push_response(reply(&["after ", "restart"]));
    let mut second = spawn(data.path(), &mock);
    let url = second.url.clone();
    // The client resumes from the last id it was sent: it gets every committed event after it,
    // once and in order, up to the end of the killed turn (the recovery's move to `failed`). No
    // id it saw names another event now.
    let resumed = reqwest::Client::new()
        .get(format!("{url}/v1/contexts/{id}/events"))
        .header("Last-Event-ID", last_seen.to_string())
        .send()
        .await
        .unwrap();
    let mut resumed = common::SseReader::from_response(resumed);
    let mut after = Vec::new();
    loop {
        let e = resumed
            .next()
            .await
            .expect("the resumed stream ended early");
        if e.event == "heartbeat" {
            continue;
        }
        assert_ne!(e.data["code"], "resume_point_unknown", "{e:?}");
        let end = e.event == "context_update" && e.data["current_state"]["type"] == "failed";
        after.push(e);
        if end {
            break;
        }
    }
    let ids: Vec<u64> = after.iter().map(|e| e.id.unwrap()).collect();
    assert_eq!(
        ids[0],
        last_seen + 1,
        "gap or reuse after {last_seen}: {ids:?}"
    );
    assert!(ids.windows(2).all(|w| w[1] == w[0] + 1), "{ids:?}");
    assert_eq!(
        after.last().unwrap().data["current_state"]["recoverable"],
        true
    );
    let mut streamed = common::text_of(&seen);
    streamed.push_str(&common::text_of(&after));
    let state = wait_for_state(&url, &id, &["idle", "failed"]).await;
    if state["type"] == "failed" {
        assert_eq!(state["recoverable"], true, "{state}");
    }
    let (_, list) = call(&url, "GET", &format!("{path}?limit=1000"), None).await;
    let ms = list["messages"].as_array().unwrap();
    let texts: Vec<(String, String, String)> = ms
        .iter()
        .filter(|m| m["kind"] == "text")
        .map(|m| {
            (
                m["role"].as_str().unwrap().to_owned(),
                m["data"]["parts"][0]["text"]
                    .as_str()
                    .unwrap_or("")
                    .to_owned(),
                m["status"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    assert_eq!(texts[0], ("user".into(), "one".into(), "complete".into()));
    assert_eq!(
        texts[1],
        ("assistant".into(), "first answer".into(), "complete".into())
    );
    assert_eq!(texts[2], ("user".into(), "two".into(), "complete".into()));
    // The partial answer keeps exactly what was streamed before the kill.
    assert_eq!(
        texts[3],
        ("assistant".into(), streamed.clone(), "incomplete".into())
    );
    assert!(streamed.starts_with("p0 p1 p2 p3 p4 "), "{streamed}");
    for m in ms {
        let status = m["status"].as_str().unwrap();
        assert!(
            !["streaming", "pending", "processing"].contains(&status),
            "a message left {status}: {m}"
        );
    }
    // The context takes the next message.
    assert_eq!(call(&url, "POST", &path, text("three")).await.0, 202);
    wait_for_state(&url, &id, &["idle"]).await;
    let (_, list) = call(&url, "GET", &format!("{path}?limit=1000"), None).await;
    let last = list["messages"].as_array().unwrap().last().unwrap().clone();
    assert_eq!(last["data"]["parts"][0]["text"], "after restart");
    // SIGTERM stops it gracefully.
    let pid = second.child.id().to_string();
    let killed = Command::new("kill").args(["-TERM", &pid]).status().unwrap();
    assert!(killed.success());
    let deadline = std::time::Instant::now() + Duration::from_secs(15);
    loop {
        if let Some(status) = second.child.try_wait().unwrap() {
            assert!(status.success(), "exit after SIGTERM: {status}");
            break;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "no exit after SIGTERM"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// A turn cut short by SIGKILL keeps its record: after the restart it is answered as
/// `completed`, `interrupted` (not 404), and the log ends it with one `turn_completed`.
#[tokio::test]
async fn a_turn_killed_mid_stream_is_answered_as_interrupted_after_the_restart() {
    let pieces: Vec<String> = (0..60).map(|i| format!("p{i} ")).collect();
    let refs: Vec<&str> = pieces.iter().map(String::as_str).collect();
    let mock =
        MockLlm::start(Script::new().then(reply(&refs).chunk_delay(Duration::from_millis(50))))
            .await
            .unwrap();
    let data = tempfile::tempdir().unwrap();
    let mut first = spawn(data.path(), &mock);
    let url = first.url.clone();
    let (status, ctx) = call(&url, "POST", "/v1/contexts", Some(json!({"title": "t"}))).await;
    assert_eq!(status, 201);
    let id = ctx["id"].as_str().unwrap().to_owned();
    let server = common::TestServerUrl(url.clone());
    let mut events = server.events(&id).await;
    let (status, sent) = call(
        &url,
        "POST",
        &format!("/v1/contexts/{id}/messages"),
        Some(json!({"payload": {"type": "text", "text": "talk"}})),
    )
    .await;
    assert_eq!(status, 202, "{sent}");
    let turn = sent["turn_id"].as_str().unwrap().to_owned();
    events.until(|e| e.event == "content_delta").await;
    let (_, running) = call(
        &url,
        "GET",
        &format!("/v1/contexts/{id}/turns/{turn}"),
        None,
    )
    .await;
    assert_eq!(running["status"], "running", "{running}");
    first.child.kill().unwrap();
    first.child.wait().unwrap();

    let mut second = spawn(data.path(), &mock);
    let url = second.url.clone();
    let (status, view) = call(
        &url,
        "GET",
        &format!("/v1/contexts/{id}/turns/{turn}"),
        None,
    )
    .await;
    assert_eq!(status, 200, "{view}");
    assert_eq!(view["status"], "completed", "{view}");
    assert_eq!(view["outcome"], "interrupted", "{view}");
    let ended = log_until_completed(&url, &id, &turn).await;
    assert_eq!(ended.last().unwrap().data["outcome"], "interrupted");
    second.child.kill().unwrap();
    second.child.wait().unwrap();
}

#[tokio::test]
async fn a_workflow_run_killed_mid_step_ends_its_turn_interrupted_and_resumes_as_a_new_turn() {
    let pieces: Vec<String> = (0..60).map(|i| format!("p{i} ")).collect();
    let refs: Vec<&str> = pieces.iter().map(String::as_str).collect();
    let mock = MockLlm::start(
        Script::new()
            .then(reply(&refs).chunk_delay(Duration::from_millis(50)))
            .then(reply(&["again, ", "quickly"])),
    )
    .await
    .unwrap();
    let data = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(data.path().join("workflows")).unwrap();
    std::fs::write(
        data.path().join("workflows/talk.yaml"),
        "name: talk\nsteps:\n  - name: talk\n    prompt: \"Talk slowly\"\n",
    )
    .unwrap();
    let mut first = spawn(data.path(), &mock);
    let url = first.url.clone();
    let (status, ctx) = call(&url, "POST", "/v1/contexts", Some(json!({"title": "t"}))).await;
    assert_eq!(status, 201);
    let id = ctx["id"].as_str().unwrap().to_owned();
    let mut events = common::TestServerUrl(url.clone()).events(&id).await;
    let (status, started) = call(
        &url,
        "POST",
        &format!("/v1/contexts/{id}/workflows/talk/run"),
        Some(json!({})),
    )
    .await;
    assert_eq!(status, 202, "{started}");
    let turn = started["turn_id"].as_str().unwrap().to_owned();
    events.until(|e| e.event == "content_delta").await;
    first.child.kill().unwrap();
    first.child.wait().unwrap();

    let mut second = spawn(data.path(), &mock);
    let url = second.url.clone();
    let turn_path = |t: &str| format!("/v1/contexts/{id}/turns/{t}");
    let (status, view) = call(&url, "GET", &turn_path(&turn), None).await;
    assert_eq!(status, 200, "{view}");
    assert_eq!(
        (&view["status"], &view["outcome"]),
        (&json!("completed"), &json!("interrupted")),
        "{view}"
    );
    // The context rests as recovery leaves a streamed answer cut short (failed, resumable);
    // the run is paused.
    wait_for_state(&url, &id, &["failed"]).await;
    let eid = started["execution_id"].as_str().unwrap();
    let (status, resumed) = call(
        &url,
        "POST",
        &format!("/v1/contexts/{id}/workflows/executions/{eid}/resume"),
        None,
    )
    .await;
    assert_eq!(
        status, 202,
        "the recovered run is paused and resumes: {resumed}"
    );
    let again = resumed["turn_id"].as_str().unwrap().to_owned();
    let all = log_until_completed(&url, &id, &again).await;
    let ends: Vec<(&Value, &Value)> = all
        .iter()
        .filter(|e| e.event == "turn_completed")
        .map(|e| (&e.data["turn_id"], &e.data["outcome"]))
        .collect();
    assert_eq!(
        ends,
        vec![
            (&json!(turn), &json!("interrupted")),
            (&json!(again), &json!("answered"))
        ],
        "one turn_completed each: the killed run's, and its resume's"
    );
    second.child.kill().unwrap();
    second.child.wait().unwrap();
}
