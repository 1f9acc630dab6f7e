//! Titles: an untitled context asks the model for one when its first exchange is over (the
//! engine decides, not the HTTP handler), once; a titled context is never retitled.

use std::time::Duration;

use crate::common;

use braid_context::EngineSettings;
use braid_context::title::TitleSetting;
use braid_protocol::api::CreateContextRequest;
use braid_protocol::*;
use braid_testkit::{Script, StreamReply};
use common::*;

fn titling() -> EngineSettings {
    EngineSettings {
        titles: TitleSetting::Auto,
        ..EngineSettings::default()
    }
}

#[tokio::test]
async fn an_untitled_context_asks_the_model_for_a_title_after_its_first_exchange_only() {
    let h = Harness::with_settings(
        Script::new()
            .then(reply(&["Hi! How can I help?"]))
            .then(StreamReply::new().text("\"Greeting the assistant.\""))
            .then(reply(&["Again."])),
        titling(),
    )
    .await;
    let ctx = h
        .registry
        .create(CreateContextRequest {
            title: None,
            config: ContextConfig::default(),
        })
        .await
        .unwrap();
    ctx.send_message(text("hello there")).await.unwrap();
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    let title = loop {
        if let Some(t) = ctx.summary().await.unwrap().title {
            break t;
        }
        assert!(tokio::time::Instant::now() < deadline, "never titled");
        tokio::time::sleep(Duration::from_millis(10)).await;
    };
    assert_eq!(title, "Greeting the assistant");
    let requests = h.mock.requests();
    assert_eq!(requests.len(), 2);
    assert!(requests[1].body.contains("hello there"));
    assert!(requests[1].body.contains("How can I help"));
    // A later exchange asks for nothing more.
    ctx.send_message(text("and again")).await.unwrap();
    assert_eq!(settle(&ctx).await, ContextState::Idle);
    tokio::time::sleep(Duration::from_millis(100)).await;
    assert_eq!(h.mock.request_count(), 3);
    assert_eq!(
        ctx.summary().await.unwrap().title.as_deref(),
        Some("Greeting the assistant")
    );
}

#[tokio::test]
async fn a_context_with_a_title_keeps_it_and_asks_for_none() {
    let h = Harness::with_settings(Script::new().then(reply(&["Sure."])), titling()).await;
    let ctx = h.context(ContextConfig::default()).await;
    ctx.send_message(text("hello")).await.unwrap();
    assert_eq!(settle(&ctx).await, ContextState::Idle);
    tokio::time::sleep(Duration::from_millis(100)).await;
    assert_eq!(h.mock.request_count(), 1);
    assert_eq!(ctx.summary().await.unwrap().title.as_deref(), Some("test"));
}
