//! A 202 means stored, over real HTTP: a send whose pipeline fails stays `failed` with its
//! error; `POST .../messages/{message_id}/retry` and `DELETE .../messages/{message_id}` act on it.

use crate::common;

use braid_testkit::Script;
use common::*;
use serde_json::{Value, json};

async fn send_missing_file(s: &TestServer, id: &str) -> String {
    let (status, body) = s
        .call(
            "POST",
            &format!("/v1/contexts/{id}/messages"),
            Some(json!({"payload": {"type": "text", "text": "read this", "file_references": [{"path": "later.txt"}]}})),
        )
        .await;
    assert_eq!(status, 202, "{body}");
    body["message_id"].as_str().unwrap().to_owned()
}

fn find<'a>(messages: &'a [Value], id: &str) -> &'a Value {
    messages
        .iter()
        .find(|m| m["id"] == id)
        .unwrap_or_else(|| panic!("{id} not in {messages:?}"))
}

#[tokio::test]
async fn failed_input_is_kept_and_retry_runs_it_once_the_file_exists() {
    let mut s = TestServer::start(Script::new().then(reply(&["I read it."]))).await;
    let id = s.context(json!({})).await;
    let message = send_missing_file(&s, &id).await;
    assert_eq!(s.settle(&id).await["type"], "failed");
    let ms = s.messages(&id).await;
    assert_eq!(ms.len(), 2, "the file reference and the text: {ms:?}");
    let failed = find(&ms, &message);
    assert_eq!(failed["status"], "failed");
    assert_eq!(failed["error"]["code"], "file_reference");
    assert!(
        failed["error"]["message"]
            .as_str()
            .unwrap()
            .contains("later.txt")
    );
    assert_eq!(failed["error"]["recoverable"], true);

    // 404 for a message that does not exist, 422 for one that is not an id, 409 for one that
    // did not fail.
    let (code, body) = s
        .call(
            "POST",
            &format!(
                "/v1/contexts/{id}/messages/{}/retry",
                braid_protocol::MessageId::new()
            ),
            None,
        )
        .await;
    assert_eq!(code, 404, "{body}");
    assert_eq!(body["error"]["code"], "not_found");
    let (code, body) = s
        .call(
            "POST",
            &format!("/v1/contexts/{id}/messages/not-an-id/retry"),
            None,
        )
        .await;
    assert_eq!(code, 422, "{body}");
    assert_eq!(body["error"]["field"], "message_id");

    let mut events = s.events(&id, "", None).await;
    std::fs::write(s.workspace.join("later.txt"), "written later\n").unwrap();
    let (code, body) = s
        .call(
            "POST",
            &format!("/v1/contexts/{id}/messages/{message}/retry"),
            None,
        )
        .await;
    assert_eq!(code, 202, "{body}");
    assert_eq!(body["message_id"], message.as_str());
    assert_eq!(body["queued"], false);
    let seen = events.until(is_idle).await;
    assert!(
        seen.iter()
            .any(|e| e.data["message_update"]["type"] == "status_changed"
                && e.data["message_update"]["message_id"] == message.as_str()
                && e.data["message_update"]["status"] == "pending"),
        "the retry is announced"
    );
    let ms = s.messages(&id).await;
    let retried = find(&ms, &message);
    assert_eq!(retried["status"], "complete");
    assert!(retried.get("error").is_none(), "{retried}");
    assert_eq!(s.mock.request_count(), 1);
    assert!(s.mock.requests()[0].body.contains("written later"));

    let (code, body) = s
        .call(
            "POST",
            &format!("/v1/contexts/{id}/messages/{message}/retry"),
            None,
        )
        .await;
    assert_eq!(code, 409, "{body}");
    assert_eq!(body["error"]["code"], "conflict");
    s.stop().await;
}

#[tokio::test]
async fn failed_input_can_be_deleted_and_nothing_else_can() {
    let mut s = TestServer::start(Script::new().then(reply(&["hello"]))).await;
    let id = s.context(json!({})).await;
    let message = send_missing_file(&s, &id).await;
    assert_eq!(s.settle(&id).await["type"], "failed");

    let mut events = s.events(&id, "", None).await;
    let (code, body) = s
        .call(
            "DELETE",
            &format!("/v1/contexts/{id}/messages/{message}"),
            None,
        )
        .await;
    assert_eq!(code, 204, "{body}");
    assert!(s.messages(&id).await.is_empty(), "the whole send is gone");
    let deleted = events
        .until(|e| e.data["message_update"]["type"] == "deleted")
        .await;
    assert_eq!(
        deleted.last().unwrap().data["message_update"]["kind"],
        "file_reference"
    );

    let (code, body) = s
        .call(
            "DELETE",
            &format!("/v1/contexts/{id}/messages/{message}"),
            None,
        )
        .await;
    assert_eq!(code, 404, "{body}");

    s.send_text(&id, "hi").await;
    assert_eq!(s.settle(&id).await["type"], "idle");
    let ms = s.messages(&id).await;
    assert_eq!(ms.len(), 3, "{ms:?}");
    for m in &ms {
        let (code, body) = s
            .call(
                "DELETE",
                &format!("/v1/contexts/{id}/messages/{}", m["id"].as_str().unwrap()),
                None,
            )
            .await;
        assert_eq!(code, 409, "{} {body}", m["kind"]);
    }
    s.stop().await;
}

#[tokio::test]
async fn both_routes_are_in_the_openapi_document() {
    let mut s = TestServer::start(Script::new()).await;
    let (_, doc) = s.call("GET", "/openapi.json", None).await;
    let retry = &doc["paths"]["/v1/contexts/{id}/messages/{message_id}/retry"]["post"];
    assert_eq!(retry["operationId"], "retry_message");
    assert!(retry["responses"]["202"].is_object(), "{retry}");
    let delete = &doc["paths"]["/v1/contexts/{id}/messages/{message_id}"]["delete"];
    assert_eq!(delete["operationId"], "delete_message");
    assert!(delete["responses"]["204"].is_object(), "{delete}");
    s.stop().await;
}
