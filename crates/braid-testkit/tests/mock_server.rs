//! The mock LLM over real HTTP: both APIs, streamed and whole, errors, exhaustion, recording,
//! and the `braid-mock-llm` binary.

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};

use braid_testkit::{ErrorReply, FinishKind, MockLlm, Script, ScriptedResponse, StreamReply};
use serde_json::json;

fn reply() -> StreamReply {
    StreamReply::new()
        .text("Hel")
        .text("lo")
        .usage(5, 2)
        .finish(FinishKind::Stop)
}

async fn post(url: &str, body: serde_json::Value) -> reqwest::Response {
    reqwest::Client::new()
        .post(url)
        .header("authorization", "Bearer test-key")
        .body(body.to_string())
        .send()
        .await
        .unwrap()
}

#[tokio::test]
async fn openai_stream_is_served_and_the_request_recorded() {
    let mock = MockLlm::start(Script::new().then(reply())).await.unwrap();
    let url = format!("{}/chat/completions", mock.openai_base_url());
    let response = post(
        &url,
        json!({"model": "gpt-4o", "stream": true, "messages": []}),
    )
    .await;
    assert_eq!(response.status(), 200);
    assert_eq!(
        response.headers()["content-type"].to_str().unwrap(),
        "text/event-stream"
    );
    let text = response.text().await.unwrap();
    assert!(text.contains("\"content\":\"Hel\""));
    assert!(text.contains("\"finish_reason\":\"stop\""));
    assert!(text.ends_with("data: [DONE]\n\n"));
    let requests = mock.requests();
    assert_eq!(requests.len(), 1);
    assert_eq!(requests[0].path, "/v1/chat/completions");
    assert_eq!(requests[0].header("Authorization"), Some("Bearer test-key"));
    assert_eq!(requests[0].json().unwrap()["model"], "gpt-4o");
}

#[tokio::test]
async fn anthropic_whole_answer_when_the_request_does_not_stream() {
    let mock = MockLlm::start(Script::new().then(reply())).await.unwrap();
    let url = format!("{}/v1/messages", mock.url());
    let answer: serde_json::Value = post(&url, json!({"model": "claude", "messages": []}))
        .await
        .json_text()
        .await;
    assert_eq!(answer["content"][0]["text"], "Hello");
    assert_eq!(answer["stop_reason"], "end_turn");
    assert_eq!(answer["usage"]["input_tokens"], 5);
}

trait JsonText {
    async fn json_text(self) -> serde_json::Value;
}

impl JsonText for reqwest::Response {
    async fn json_text(self) -> serde_json::Value {
        serde_json::from_str(&self.text().await.unwrap()).unwrap()
    }
}

#[tokio::test]
async fn scripted_error_has_status_body_and_retry_after() {
    let mock =
        MockLlm::start(Script::new().then(
            ErrorReply::new(429, json!({"error": {"message": "slow down"}})).retry_after("2"),
        ))
        .await
        .unwrap();
    let response = post(&format!("{}/v1/messages", mock.url()), json!({})).await;
    assert_eq!(response.status(), 429);
    assert_eq!(response.headers()["retry-after"], "2");
    assert_eq!(response.json_text().await["error"]["message"], "slow down");
}

#[tokio::test]
async fn exhausted_script_answers_500_saying_so_and_unknown_paths_404() {
    let mock = MockLlm::start(Script::new()).await.unwrap();
    let response = post(
        &format!("{}/chat/completions", mock.openai_base_url()),
        json!({}),
    )
    .await;
    assert_eq!(response.status(), 500);
    assert!(response.text().await.unwrap().contains("no response left"));
    let response = post(&format!("{}/v1/embeddings", mock.url()), json!({})).await;
    assert_eq!(response.status(), 404);
    assert_eq!(mock.request_count(), 2);
}

#[tokio::test]
async fn cut_stream_breaks_the_connection_without_the_end_marker() {
    let mock = MockLlm::start(Script::new().then(StreamReply::new().text("part").cut()))
        .await
        .unwrap();
    let response = post(
        &format!("{}/chat/completions", mock.openai_base_url()),
        json!({"stream": true}),
    )
    .await;
    assert_eq!(response.status(), 200);
    let body = response.text().await;
    assert!(body.is_err(), "a cut stream must fail to read: {body:?}");
}

#[tokio::test]
async fn responses_can_be_added_while_running() {
    let mock = MockLlm::start(Script::new()).await.unwrap();
    mock.push_response(ScriptedResponse::Stream(reply()));
    assert_eq!(mock.remaining_responses(), 1);
    let response = post(
        &format!("{}/v1/messages", mock.url()),
        json!({"stream": true}),
    )
    .await;
    let text = response.text().await.unwrap();
    assert!(text.starts_with("event: message_start"));
    assert!(text.ends_with("event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n"));
    assert_eq!(mock.remaining_responses(), 0);
}

#[tokio::test]
async fn binary_serves_a_script_file_on_the_port_it_prints() {
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("script.json");
    std::fs::write(
        &script,
        serde_json::to_string(&Script::new().then(reply())).unwrap(),
    )
    .unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_braid-mock-llm"))
        .args(["--script", script.to_str().unwrap(), "--port", "0"])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let port: u16 = line.trim().parse().unwrap();
    let response = post(
        &format!("http://127.0.0.1:{port}/v1/chat/completions"),
        json!({"stream": false}),
    )
    .await;
    let answer = response.json_text().await;
    child.kill().unwrap();
    child.wait().unwrap();
    assert_eq!(answer["choices"][0]["message"]["content"], "Hello");
}

#[test]
fn binary_refuses_a_broken_script_with_a_clear_message() {
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("bad.json");
    std::fs::write(&script, "{\"responses\": [{\"type\": \"strem\"}]}").unwrap();
    let output = Command::new(env!("CARGO_BIN_EXE_braid-mock-llm"))
        .args(["--script", script.to_str().unwrap()])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("bad.json") && stderr.contains("strem"),
        "{stderr}"
    );
}

#[test]
fn shipped_example_scripts_parse() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/scripts");
    let mut count = 0;
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        let script = Script::from_file(&path).unwrap_or_else(|e| panic!("{e}"));
        assert!(!script.responses.is_empty(), "{}", path.display());
        count += 1;
    }
    assert!(count > 0);
}

#[tokio::test]
async fn responder_answers_from_the_request_once_the_script_is_used_up() {
    let mock = MockLlm::start(Script::new().then(reply())).await.unwrap();
    mock.respond_with(|request| {
        let asked = request.json().unwrap()["messages"][0]["content"]
            .as_str()
            .unwrap_or("")
            .to_owned();
        StreamReply::answer(&[&format!("you said {asked}")]).into()
    });
    let url = format!("{}/chat/completions", mock.openai_base_url());
    let ask = |text: &str| json!({"model": "m", "stream": true, "messages": [{"role": "user", "content": text}]});
    let scripted = post(&url, ask("first")).await.text().await.unwrap();
    assert!(scripted.contains("\"content\":\"Hel\""), "{scripted}");
    let second = post(&url, ask("second")).await.text().await.unwrap();
    assert!(second.contains("you said second"), "{second}");
    let third = post(&url, ask("third")).await.text().await.unwrap();
    assert!(third.contains("you said third"), "{third}");
    let taken = mock.take_requests();
    assert_eq!(taken.len(), 3);
    assert!(mock.requests().is_empty());
}
