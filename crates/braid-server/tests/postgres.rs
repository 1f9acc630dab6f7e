//! The server over PostgreSQL (`--store postgres://...`): a conversation streamed over SSE, then
//! a second server on the same database replays it. Runs when `BRAID_TEST_POSTGRES_URL` is set
//! (`scripts/with-postgres.sh`); with `BRAID_REQUIRE_POSTGRES=1` a missing server fails it.

use crate::common;

use std::time::Duration;

use braid_context::EngineSettings;
use braid_server::serve::{ServeOptions, StoreLocation, start};
use braid_testkit::{MockLlm, Script};
use common::*;
use serde_json::json;

fn postgres_url() -> Option<String> {
    match std::env::var("BRAID_TEST_POSTGRES_URL") {
        Ok(url) if !url.is_empty() => Some(url),
        _ => {
            assert_ne!(
                std::env::var("BRAID_REQUIRE_POSTGRES").as_deref(),
                Ok("1"),
                "BRAID_REQUIRE_POSTGRES=1 but BRAID_TEST_POSTGRES_URL is not set"
            );
            eprintln!("skipped: BRAID_TEST_POSTGRES_URL is not set");
            None
        }
    }
}

#[tokio::test]
async fn a_conversation_over_postgres_survives_a_restart() {
    let Some(url) = postgres_url() else { return };
    let mock = MockLlm::start(Script::new().then(reply(&["stored ", "in postgres"])))
        .await
        .unwrap();
    let options = || ServeOptions {
        bind: "127.0.0.1:0".parse().unwrap(),
        store: StoreLocation::Postgres(url.clone()),
        llm: Some(provider(&mock)),
        app: Setup::new(Script::new()).app,
        engine: EngineSettings {
            default_model: "mock-model".into(),
            ..EngineSettings::default()
        },
        unload_every: Duration::from_secs(60),
        mcp_config: None,
        advertise_url: None,
    };
    let first = start(options()).await.unwrap();
    let client = TestServerUrl(first.url());
    let http = reqwest::Client::new();
    let created: serde_json::Value = http
        .post(format!("{}/v1/contexts", first.url()))
        .header("content-type", "application/json")
        .body(json!({"title": "pg"}).to_string())
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let id = created["id"].as_str().unwrap().to_owned();
    let mut events = client.events(&id).await;
    let sent = http
        .post(format!("{}/v1/contexts/{id}/messages", first.url()))
        .header("content-type", "application/json")
        .body(json!({"payload": {"type": "text", "text": "hi"}}).to_string())
        .send()
        .await
        .unwrap();
    assert_eq!(sent.status().as_u16(), 202);
    let seen = events.until(is_idle).await;
    assert_eq!(text_of(&seen), "stored in postgres");
    let last_id = seen.last().unwrap().id.unwrap();
    first.stop().await;

    let second = start(options()).await.unwrap();
    let list: serde_json::Value = http
        .get(format!("{}/v1/contexts/{id}/messages", second.url()))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let ms = list["messages"].as_array().unwrap();
    assert_eq!(ms.len(), 2);
    assert_eq!(ms[1]["data"]["parts"][0]["text"], "stored in postgres");
    let res = http
        .get(format!("{}/v1/contexts/{id}/events?after=0", second.url()))
        .send()
        .await
        .unwrap();
    let mut replay = SseReader::from_response(res);
    let replayed = replay.until(|e| e.id == Some(last_id)).await;
    let ids: Vec<u64> = replayed.iter().map(|e| e.id.unwrap()).collect();
    assert_eq!(ids, (1..=last_id).collect::<Vec<_>>());
    second.stop().await;
}
