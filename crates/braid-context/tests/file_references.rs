//! File references and the context's role (seed 000 "Permission check for file access"): a
//! planner reads referenced files; what its role may not read is refused as a permission error
//! that names the role, and the input stays failed.

use crate::common;

use braid_protocol::payload::FileReferencePayload;
use braid_protocol::*;
use braid_testkit::Script;
use common::*;

fn reference(path: &str) -> SendMessageRequest {
    SendMessageRequest {
        payload: MessagePayload::FileReference(FileReferencePayload {
            path: path.into(),
            range: Some(LineRange {
                start_line: 2,
                end_line: 3,
            }),
            display_text: None,
        }),
        client_metadata: None,
    }
}

fn planner() -> ContextConfig {
    ContextConfig {
        agent_role: AgentRole::Planner,
        ..ContextConfig::default()
    }
}

#[tokio::test]
async fn a_planner_reads_a_referenced_file_without_changing_it() {
    let h = Harness::new(Script::new().then(reply(&["Seen."]))).await;
    let ctx = h.context(planner()).await;
    let file = h.workspace.join("src/lib.rs");
    let before = std::fs::metadata(&file).unwrap().modified().unwrap();
    // By its absolute path, inside the workspace.
    ctx.send_message(reference(&file.display().to_string()))
        .await
        .unwrap();
    assert_eq!(settle(&ctx).await, ContextState::Idle);
    let ms = messages(&ctx).await;
    let MessageKind::FileReference(f) = &ms[0].kind else {
        panic!("{:?}", ms[0].kind)
    };
    let FileResolution::Resolved { content, .. } = &f.resolution else {
        panic!("{:?}", f.resolution)
    };
    assert!(
        content.contains("// line 2") && content.contains("// line 3"),
        "{content}"
    );
    assert!(!content.contains("// line 4"), "{content}");
    assert_eq!(
        std::fs::metadata(&file).unwrap().modified().unwrap(),
        before
    );
    assert!(h.mock.requests()[0].body.contains("// line 3"));
}

#[tokio::test]
async fn a_reference_the_planner_may_not_read_is_a_permission_error_naming_the_role() {
    let h = Harness::new(Script::new()).await;
    // Beside the workspace, and a link inside it that leads there.
    let outside = h.dir.path().join("secrets.txt");
    std::fs::write(&outside, "one\ntwo\nthree\n").unwrap();
    std::os::unix::fs::symlink(&outside, h.workspace.join("notes.txt")).unwrap();
    for path in [outside.display().to_string(), "notes.txt".to_owned()] {
        let ctx = h.context(planner()).await;
        let sent = ctx.send_message(reference(&path)).await.unwrap();
        let ContextState::Failed { error, recoverable } = settle(&ctx).await else {
            panic!("{path}: the turn fails")
        };
        assert!(recoverable);
        assert!(
            error.contains("permission denied") && error.contains("planner role"),
            "{error}"
        );
        assert!(error.contains(&path), "{error}");
        let ms = messages(&ctx).await;
        let input = ms.iter().find(|m| m.id == sent.message_id).unwrap();
        assert_eq!(input.status, MessageStatus::Failed);
        let detail = input.error.as_ref().unwrap();
        assert!(detail.message.contains("planner role"), "{detail:?}");
        assert_eq!(detail.code.as_deref(), Some("file_reference"));
        assert!(!ms.iter().any(|m| match &m.kind {
            MessageKind::FileReference(f) =>
                matches!(f.resolution, FileResolution::Resolved { .. }),
            _ => false,
        }));
    }
    assert_eq!(h.mock.request_count(), 0, "nothing reached the model");

    // An actor is refused the same file, and told so for its own role.
    let ctx = h.context(ContextConfig::default()).await;
    ctx.send_message(reference(&outside.display().to_string()))
        .await
        .unwrap();
    let ContextState::Failed { error, .. } = settle(&ctx).await else {
        panic!()
    };
    assert!(error.contains("actor role"), "{error}");
}
