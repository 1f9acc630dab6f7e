//! Branch merge over HTTP against the real server: the route, its 409 with the conflicts and
//! their suggestions, resolutions, dry runs, validation errors naming the field, and the branch
//! settings route.

use crate::common;

use braid_testkit::Script;
use common::*;
use serde_json::{Value, json};

/// A context whose `main` and `alt` both wrote `notes.txt` after diverging; main is active.
async fn diverged(s: &TestServer) -> String {
    let id = s
        .context(json!({"approval_policy": {"type": "auto_all"}}))
        .await;
    s.send_text(&id, "first").await;
    s.settle(&id).await;
    let (status, _) = s
        .call(
            "POST",
            &format!("/v1/contexts/{id}/branches"),
            Some(json!({"name": "alt"})),
        )
        .await;
    assert_eq!(status, 201);
    s.send_text(&id, "write on main").await;
    s.settle(&id).await;
    let (status, _) = s
        .call(
            "POST",
            &format!("/v1/contexts/{id}/branches/alt/activate"),
            None,
        )
        .await;
    assert_eq!(status, 204);
    s.send_text(&id, "write on alt").await;
    s.settle(&id).await;
    s.call(
        "POST",
        &format!("/v1/contexts/{id}/branches/main/activate"),
        None,
    )
    .await;
    id
}

fn script() -> Script {
    Script::new()
        .then(reply(&["one"]))
        .then(calls(&[(
            "w1",
            "write_file",
            json!({"path": "notes.txt", "content": "main"}),
        )]))
        .then(reply(&["main wrote"]))
        .then(calls(&[(
            "w2",
            "write_file",
            json!({"path": "notes.txt", "content": "alt"}),
        )]))
        .then(reply(&["alt wrote"]))
}

async fn main_ids(s: &TestServer, id: &str) -> Vec<Value> {
    s.messages(id)
        .await
        .into_iter()
        .map(|m| m["id"].clone())
        .collect()
}

#[tokio::test]
async fn a_conflicting_merge_answers_409_with_its_conflicts_and_completes_once_resolved() {
    let s = TestServer::start(script()).await;
    let id = diverged(&s).await;
    let path = format!("/v1/contexts/{id}/branches/alt/merge");
    let before = main_ids(&s, &id).await;

    let (status, body) = s
        .call("POST", &path, Some(json!({"strategy": {"type": "rebase"}})))
        .await;
    assert_eq!(status, 409, "{body}");
    assert_eq!(body["error"]["code"], "conflict");
    assert!(
        body["error"]["message"]
            .as_str()
            .unwrap()
            .contains("conflict")
    );
    let conflict = &body["conflicts"][0];
    assert_eq!(conflict["id"], "file_write:notes.txt");
    assert_eq!(conflict["kind"], "file_write");
    assert_eq!(conflict["messages"][0]["branch"], "main");
    assert!(conflict["messages"][0]["created_at"].is_string());
    assert_eq!(conflict["suggestions"][0], "keep_target");
    assert_eq!(body["merged"], false);
    assert_eq!(main_ids(&s, &id).await, before, "a 409 changed the branch");

    // A dry run answers the same preview with 200 and changes nothing either.
    let (status, preview) = s
        .call(
            "POST",
            &path,
            Some(json!({"strategy": {"type": "rebase"}, "dry_run": true})),
        )
        .await;
    assert_eq!(status, 200, "{preview}");
    assert_eq!(preview["conflicts"], body["conflicts"]);
    assert_eq!(main_ids(&s, &id).await, before);

    let (status, done) = s
        .call(
            "POST",
            &path,
            Some(json!({
                "strategy": {"type": "rebase"},
                "resolutions": [{"conflict": "file_write:notes.txt", "resolution": "take_source"}]
            })),
        )
        .await;
    assert_eq!(status, 200, "{done}");
    assert_eq!(done["merged"], true);
    let messages = s.messages(&id).await;
    let last = messages.last().unwrap();
    assert_eq!(last["kind"], "system_control");
    assert_eq!(last["data"]["type"], "branch_merge");
    assert_eq!(last["data"]["source"], "alt");
    assert_eq!(last["id"], done["notice_id"]);
    let calls: Vec<&Value> = messages
        .iter()
        .filter(|m| m["kind"] == "tool_request")
        .map(|m| &m["data"]["calls"][0]["id"])
        .collect();
    assert_eq!(calls, ["w2"]);
}

#[tokio::test]
async fn bad_merge_requests_name_what_is_wrong() {
    let s = TestServer::start(script()).await;
    let id = diverged(&s).await;
    let path = format!("/v1/contexts/{id}/branches/alt/merge");
    let cases = [
        (
            json!({"strategy": {"type": "squash"}}),
            422,
            Some("strategy"),
        ),
        (
            json!({"strategy": {"type": "cherry_pick", "message_ids": ["0192f0c4-1111-7000-8000-000000000003"]}}),
            422,
            Some("strategy.message_ids[0]"),
        ),
        (
            json!({"strategy": {"type": "rebase"}, "resolutions": [{"conflict": "mode", "resolution": "keep_both"}]}),
            422,
            Some("resolutions[0].conflict"),
        ),
        (
            json!({"strategy": {"type": "rebase"}, "target": "alt"}),
            422,
            Some("target"),
        ),
        (
            json!({"strategy": {"type": "rebase"}, "target": "nope"}),
            404,
            None,
        ),
    ];
    for (body, want, field) in cases {
        let (status, answer) = s.call("POST", &path, Some(body.clone())).await;
        assert_eq!(status, want, "{body} -> {answer}");
        if let Some(field) = field {
            assert!(
                answer["error"]["field"]
                    .as_str()
                    .is_some_and(|f| f.starts_with(field)),
                "{body} -> {answer}"
            );
        }
    }
    let (status, _) = s
        .call(
            "POST",
            &format!("/v1/contexts/{id}/branches/nope/merge"),
            Some(json!({"strategy": {"type": "append"}})),
        )
        .await;
    assert_eq!(status, 404);
}

#[tokio::test]
async fn patching_a_branch_changes_its_prompt_and_pipeline() {
    let s = TestServer::start(script()).await;
    let id = diverged(&s).await;
    let path = format!("/v1/contexts/{id}/branches/alt");
    let (status, info) = s
        .call(
            "PATCH",
            &path,
            Some(
                json!({"system_prompt": "Be brief.", "pipeline": ["validate", "optimize_context"]}),
            ),
        )
        .await;
    assert_eq!(status, 200, "{info}");
    assert_eq!(info["system_prompt"], "Be brief.");
    assert_eq!(info["pipeline"], json!(["validate", "optimize_context"]));
    let (_, list) = s
        .call("GET", &format!("/v1/contexts/{id}/branches"), None)
        .await;
    let alt = list["branches"]
        .as_array()
        .unwrap()
        .iter()
        .find(|b| b["name"] == "alt")
        .unwrap();
    assert_eq!(alt["system_prompt"], "Be brief.");
    let (status, info) = s
        .call("PATCH", &path, Some(json!({"pipeline": null})))
        .await;
    assert_eq!(status, 200);
    assert_eq!(info["system_prompt"], "Be brief.");
    assert!(info.get("pipeline").is_none(), "{info}");
    let (status, body) = s
        .call("PATCH", &path, Some(json!({"pipeline": ["dance"]})))
        .await;
    assert_eq!(status, 422, "{body}");
    assert!(
        body["error"]["field"]
            .as_str()
            .unwrap_or_default()
            .starts_with("pipeline")
    );
}
