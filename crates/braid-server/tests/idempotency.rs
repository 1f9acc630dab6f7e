//! `Idempotency-Key` on POSTs: a retried request gets the first answer and its work is done
//! once, also after a restart; the same key with another body is refused.

use reqwest::Method;
use serde_json::{Value, json};

use crate::common::{TestServer, reply};
use braid_testkit::Script;

/// A POST with a key; answers the status and the body's text.
async fn post(s: &TestServer, path: &str, key: &str, body: &Value) -> (u16, String) {
    let res = s
        .req(Method::POST, path)
        .header("content-type", "application/json")
        .header("Idempotency-Key", key)
        .body(body.to_string())
        .send()
        .await
        .unwrap();
    (res.status().as_u16(), res.text().await.unwrap())
}

#[tokio::test]
async fn two_identical_sends_with_one_key_make_one_turn_and_one_model_request() {
    let s = TestServer::start(Script::new().then(reply(&["only ", "once"]))).await;
    let id = s.context(json!({})).await;
    let path = format!("/v1/contexts/{id}/messages");
    let body = json!({"payload": {"type": "text", "text": "hello"}});
    let first = post(&s, &path, "send-1", &body).await;
    assert_eq!(first.0, 202, "{}", first.1);
    s.settle(&id).await;
    let second = post(&s, &path, "send-1", &body).await;
    assert_eq!(second, first, "the retry is answered the first answer");
    s.settle(&id).await;
    assert_eq!(s.mock.requests().len(), 1, "one model request");
    let users = s
        .messages(&id)
        .await
        .into_iter()
        .filter(|m| m["role"] == "user")
        .count();
    assert_eq!(users, 1, "one message stored");
}

#[tokio::test]
async fn the_same_key_with_another_body_is_refused_and_a_new_key_runs() {
    let s = TestServer::start(Script::new().then(reply(&["a"])).then(reply(&["b"]))).await;
    let id = s.context(json!({})).await;
    let path = format!("/v1/contexts/{id}/messages");
    let hello = json!({"payload": {"type": "text", "text": "hello"}});
    assert_eq!(post(&s, &path, "k", &hello).await.0, 202);
    s.settle(&id).await;
    let other = json!({"payload": {"type": "text", "text": "other"}});
    let (status, text) = post(&s, &path, "k", &other).await;
    assert_eq!(status, 422, "{text}");
    let body: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(body["error"]["field"], "Idempotency-Key");
    assert_eq!(post(&s, &path, "k2", &other).await.0, 202);
    s.settle(&id).await;
    assert_eq!(s.mock.requests().len(), 2);
}

#[tokio::test]
async fn a_created_context_is_answered_again_after_a_restart_and_made_once() {
    let mut s = TestServer::start(Script::new()).await;
    let body = json!({"title": "once", "config": {"workspace": s.workspace.display().to_string()}});
    let first = post(&s, "/v1/contexts", "create-1", &body).await;
    assert_eq!(first.0, 201, "{}", first.1);
    s.restart().await;
    let again = post(&s, "/v1/contexts", "create-1", &body).await;
    assert_eq!(again, first, "same status, same body");
    let (status, list) = s.call("GET", "/v1/contexts", None).await;
    assert_eq!(status, 200);
    assert_eq!(list["contexts"].as_array().unwrap().len(), 1, "{list}");
}

#[tokio::test]
async fn a_send_is_answered_again_after_a_restart_without_a_second_turn() {
    let mut s = TestServer::start(Script::new().then(reply(&["one ", "answer"]))).await;
    let id = s.context(json!({})).await;
    let path = format!("/v1/contexts/{id}/messages");
    let body = json!({"payload": {"type": "text", "text": "hello"}});
    let first = post(&s, &path, "send-restart", &body).await;
    assert_eq!(first.0, 202, "{}", first.1);
    s.settle(&id).await;
    s.restart().await;
    let again = post(&s, &path, "send-restart", &body).await;
    assert_eq!(again, first);
    s.settle(&id).await;
    assert_eq!(s.mock.requests().len(), 1);
}

#[tokio::test]
async fn a_failed_request_is_kept_too_and_a_key_that_is_not_ascii_is_refused() {
    let s = TestServer::start(Script::new()).await;
    // 4xx answers are answers: the retry gets the same 422.
    let bad = json!({"title": "x", "config": {"worksapce": "/tmp"}});
    let first = post(&s, "/v1/contexts", "bad-1", &bad).await;
    assert_eq!(first.0, 422, "{}", first.1);
    assert_eq!(post(&s, "/v1/contexts", "bad-1", &bad).await, first);
    let res = s
        .req(Method::POST, "/v1/contexts")
        .header("content-type", "application/json")
        .header("Idempotency-Key", "")
        .body("{}")
        .send()
        .await
        .unwrap();
    assert_eq!(res.status().as_u16(), 422);
}
