//! The context list: loaded contexts as their actors publish them, unloaded ones from the store,
//! in the store's order (most recently updated first) either way.

use crate::common;

use braid_context::EngineSettings;
use braid_protocol::api::ContextListEntry;
use braid_protocol::{ContextConfig, ContextId, ContextState};
use braid_testkit::Script;
use common::*;

fn ids(list: &[ContextListEntry]) -> Vec<ContextId> {
    list.iter().map(|e| e.id).collect()
}

#[tokio::test]
async fn loaded_and_unloaded_contexts_are_listed_alike_most_recent_first() {
    let h = Harness::with_settings(
        Script::new().then(reply(&["Hello."])),
        EngineSettings {
            idle_unload_after: std::time::Duration::ZERO,
            ..EngineSettings::default()
        },
    )
    .await;
    let talked = h.context(ContextConfig::default()).await;
    talked.send_message(text("hi")).await.unwrap();
    assert_eq!(settle(&talked).await, ContextState::Idle);
    let (talked, quiet) = (talked.id(), h.context(ContextConfig::default()).await.id());

    let all_loaded = h.registry.list().await.unwrap();
    assert_eq!(ids(&all_loaded), vec![quiet, talked]);
    assert_eq!(all_loaded[1].message_count, 2);
    assert_eq!(all_loaded[0].message_count, 0);

    assert_eq!(h.registry.unload_idle().await, 2);
    h.registry.get(talked).await.unwrap();
    assert!(h.registry.is_live(talked).await);
    assert!(!h.registry.is_live(quiet).await);
    let mixed = h.registry.list().await.unwrap();
    assert_eq!(ids(&mixed), vec![quiet, talked]);
    for (before, now) in all_loaded.iter().zip(&mixed) {
        assert_eq!(before.message_count, now.message_count, "{}", now.id);
        assert_eq!(before.state, now.state, "{}", now.id);
        assert_eq!(before.branches, now.branches, "{}", now.id);
    }
}
