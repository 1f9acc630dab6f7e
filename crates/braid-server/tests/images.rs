//! Images over HTTP: the capabilities a context's model has (and where each figure came from)
//! in `GET /v1/contexts/{id}`, and a text payload's `images` checked with the field named.

use crate::common;

use braid_testkit::Script;
use common::*;
use serde_json::json;

#[tokio::test]
async fn the_context_shows_its_models_capabilities_with_their_sources() {
    let s = TestServer::start(Script::new()).await;
    let id = s.context(json!({})).await;
    let (status, ctx) = s.call("GET", &format!("/v1/contexts/{id}"), None).await;
    assert_eq!(status, 200);
    let caps = &ctx["capabilities"];
    assert_eq!(caps["model"], "mock-model");
    assert_eq!(caps["vision"], json!({"value": false, "source": "default"}));
    assert_eq!(
        caps["tool_calling"],
        json!({"value": "native", "source": "default"})
    );

    let id = s
        .context(json!({"model": "gpt-4o", "context_window": 50000}))
        .await;
    let (_, ctx) = s.call("GET", &format!("/v1/contexts/{id}"), None).await;
    let caps = &ctx["capabilities"];
    assert_eq!(caps["vision"], json!({"value": true, "source": "table"}));
    assert_eq!(
        caps["context_window"],
        json!({"value": 50000, "source": "override"})
    );
}

#[tokio::test]
async fn a_bad_image_in_a_text_payload_is_refused_naming_its_field() {
    let s = TestServer::start(Script::new()).await;
    let id = s.context(json!({})).await;
    let (status, body) = s
        .call(
            "POST",
            &format!("/v1/contexts/{id}/messages"),
            Some(json!({"payload": {"type": "text", "text": "what is this?", "images": [
                {"source": {"type": "base64", "media_type": "text/plain", "data": "not base64!"}}
            ]}})),
        )
        .await;
    assert_eq!(status, 422, "{body}");
    let field = body["error"]["field"].as_str().unwrap();
    assert!(field.starts_with("payload.images[0].source"), "{body}");
    assert!(s.messages(&id).await.is_empty(), "nothing was stored");
}

#[tokio::test]
async fn an_image_url_on_this_machine_is_refused_and_the_input_kept_failed() {
    let s = TestServer::start(Script::new()).await;
    let id = s.context(json!({})).await;
    let url = format!("{}/image.png", s.mock.url());
    let (status, body) = s
        .call(
            "POST",
            &format!("/v1/contexts/{id}/messages"),
            Some(
                json!({"payload": {"type": "text", "text": "what is this?", "images": [
                    {"source": {"type": "url", "url": url}, "recognition_mode": "ocr"}
                ]}}),
            ),
        )
        .await;
    assert_eq!(status, 202, "{body}");
    let state = s.settle(&id).await;
    assert_eq!(state["type"], "failed", "{state}");
    let text = state.to_string();
    assert!(text.contains("loopback"), "{text}");
    assert!(text.contains("--allow-image-host"), "{text}");
    assert_eq!(s.mock.request_count(), 0, "nothing reached the model");
}
