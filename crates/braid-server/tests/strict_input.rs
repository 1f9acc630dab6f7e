//! Strict input: unknown fields are refused by name, every error has a JSON body, a message's
//! text has a limit, lists page, one message reads alone.

use reqwest::Method;
use serde_json::json;

use crate::common::{Setup, TestServer, reply};
use braid_testkit::Script;

#[tokio::test]
async fn a_send_to_a_branch_and_a_misspelled_config_field_are_refused_by_name() {
    let s = TestServer::start(Script::new()).await;
    let id = s.context(json!({})).await;
    let (status, body) = s
        .call(
            "POST",
            &format!("/v1/contexts/{id}/messages"),
            Some(json!({"payload": {"type": "text", "text": "hi"}, "branch": "alt"})),
        )
        .await;
    assert_eq!(status, 422, "{body}");
    assert_eq!(body["error"]["field"], "branch");
    assert!(s.messages(&id).await.is_empty(), "nothing was stored");
    let (status, body) = s
        .call(
            "POST",
            "/v1/contexts",
            Some(json!({"config": {"worksapce": "/tmp"}})),
        )
        .await;
    assert_eq!(status, 422, "{body}");
    assert_eq!(body["error"]["field"], "config.worksapce");
    let (status, body) = s
        .call(
            "PATCH",
            &format!("/v1/contexts/{id}"),
            Some(json!({"config": {"modle": "x"}})),
        )
        .await;
    assert_eq!(status, 422, "{body}");
    assert_eq!(body["error"]["field"], "config.modle");
}

#[tokio::test]
async fn a_method_a_route_lacks_is_a_json_405_with_allow() {
    let s = TestServer::start(Script::new()).await;
    let res = s.req(Method::PUT, "/v1/contexts").send().await.unwrap();
    assert_eq!(res.status().as_u16(), 405);
    assert!(res.headers().contains_key("allow"));
    let body: serde_json::Value = res.json().await.unwrap();
    assert_eq!(body["error"]["code"], "method_not_allowed", "{body}");
}

#[tokio::test]
async fn a_message_text_over_the_limit_is_413_before_the_context_sees_it() {
    let mut setup = Setup::new(Script::new());
    setup.app.max_message_text = 1000;
    let s = TestServer::with(setup).await;
    let id = s.context(json!({})).await;
    let (status, body) = s
        .call(
            "POST",
            &format!("/v1/contexts/{id}/messages"),
            Some(json!({"payload": {"type": "text", "text": "x".repeat(1001)}})),
        )
        .await;
    assert_eq!(status, 413, "{body}");
    assert_eq!(body["error"]["field"], "payload.text");
    assert!(s.messages(&id).await.is_empty());
    assert!(s.mock.requests().is_empty());
}

#[tokio::test]
async fn the_context_list_pages_with_limit_and_before() {
    let s = TestServer::start(Script::new()).await;
    for _ in 0..3 {
        s.context(json!({})).await;
    }
    let (_, all) = s.call("GET", "/v1/contexts", None).await;
    let all: Vec<String> = all["contexts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["id"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(all.len(), 3);
    let (status, page) = s.call("GET", "/v1/contexts?limit=2", None).await;
    assert_eq!(status, 200, "{page}");
    assert_eq!(page["contexts"].as_array().unwrap().len(), 2);
    assert_eq!(page["next_before"], all[1].as_str());
    let (_, rest) = s
        .call(
            "GET",
            &format!("/v1/contexts?limit=2&before={}", all[1]),
            None,
        )
        .await;
    assert_eq!(rest["contexts"][0]["id"], all[2].as_str());
    assert!(rest.get("next_before").is_none(), "{rest}");
    assert_eq!(s.call("GET", "/v1/contexts?limit=0", None).await.0, 422);
}

#[tokio::test]
async fn one_message_reads_alone_and_an_unknown_one_is_404() {
    let s = TestServer::start(Script::new().then(reply(&["answer"]))).await;
    let id = s.context(json!({})).await;
    let sent = s.send_text(&id, "hello").await;
    s.settle(&id).await;
    let mid = sent["message_id"].as_str().unwrap();
    let (status, message) = s
        .call("GET", &format!("/v1/contexts/{id}/messages/{mid}"), None)
        .await;
    assert_eq!(status, 200, "{message}");
    assert_eq!(message["id"], mid);
    assert_eq!(message["data"]["parts"][0]["text"], "hello");
    let other = braid_protocol::MessageId::new();
    let (status, body) = s
        .call("GET", &format!("/v1/contexts/{id}/messages/{other}"), None)
        .await;
    assert_eq!(status, 404, "{body}");
}

/// A branch request wrong on its face is 422 naming the field while the context is busy (the
/// busy check would answer 409 and hide what is wrong).
#[tokio::test]
async fn a_bad_branch_request_is_refused_by_name_while_the_context_is_busy() {
    let (s, id) = busy_context(&[]).await;
    let branches = format!("/v1/contexts/{id}/branches");
    let (status, body) = s
        .call("POST", &branches, Some(json!({"name": "a/b"})))
        .await;
    assert_eq!(status, 422, "{body}");
    assert_eq!(body["error"]["field"], "name", "{body}");
    let m = uuid_like();
    let (status, body) = s
        .call(
            "POST",
            &branches,
            Some(json!({"name": "ok", "from_message": m, "before_message": m})),
        )
        .await;
    assert_eq!(status, 422, "{body}");
    assert_eq!(body["error"]["field"], "before_message", "{body}");
    let (status, body) = s.call("POST", &branches, Some(json!({"name": "ok"}))).await;
    assert_eq!(
        status, 409,
        "a good request still waits for the turn: {body}"
    );
}

fn uuid_like() -> String {
    braid_protocol::MessageId::new().to_string()
}

/// A server whose context (with `branches` made first) streams a long answer slowly, once its
/// first piece has arrived.
async fn busy_context(branches: &[&str]) -> (TestServer, String) {
    let pieces: Vec<String> = (0..150).map(|i| format!("w{i} ")).collect();
    let refs: Vec<&str> = pieces.iter().map(String::as_str).collect();
    let slow = reply(&refs).chunk_delay(std::time::Duration::from_millis(20));
    let s = TestServer::start(Script::new().then(slow)).await;
    let id = s.context(json!({})).await;
    for name in branches {
        let (status, body) = s
            .call(
                "POST",
                &format!("/v1/contexts/{id}/branches"),
                Some(json!({"name": name})),
            )
            .await;
        assert_eq!(status, 201, "{body}");
    }
    let mut events = s.events(&id, "", None).await;
    s.send_text(&id, "talk slowly").await;
    events.until(|e| e.event == "content_delta").await;
    (s, id)
}

/// A merge request the plan refuses is answered as such while the context is busy, and a
/// preview (it changes nothing) is answered too.
#[tokio::test]
async fn a_bad_merge_is_refused_by_name_and_a_preview_answered_while_the_context_is_busy() {
    let (s, id) = busy_context(&["alt"]).await;
    let merge = |from: &str| format!("/v1/contexts/{id}/branches/{from}/merge");
    let (status, body) = s
        .call(
            "POST",
            &merge("nowhere"),
            Some(json!({"strategy": {"type": "append"}})),
        )
        .await;
    assert_eq!(status, 404, "an unknown source: {body}");
    let (status, body) = s
        .call(
            "POST",
            &merge("main"),
            Some(json!({"strategy": {"type": "append"}})),
        )
        .await;
    assert_eq!(status, 422, "a branch into itself: {body}");
    let (status, body) = s
        .call(
            "POST",
            &merge("alt"),
            Some(json!({"strategy": {"type": "append"}, "dry_run": true})),
        )
        .await;
    assert_eq!(status, 200, "a preview changes nothing: {body}");
    assert_eq!(body["source"], "alt", "{body}");
    let (status, body) = s
        .call(
            "POST",
            &merge("alt"),
            Some(json!({"strategy": {"type": "append"}})),
        )
        .await;
    assert_eq!(status, 409, "a good merge still waits for the turn: {body}");
}
