//! Turns as objects (issue 45): a send's 202 names its turn, every event of the turn carries
//! its id and branch, one `turn_completed` ends it (also waiting for approval or interrupted),
//! and `GET /v1/contexts/{id}/turns/{turn_id}` answers where it is, also after a restart.

use std::time::Duration;

use serde_json::{Value, json};

use crate::common::{Sse, SseReader, TestServer, calls, reply};
use braid_testkit::Script;

/// Sends `text`; answers the 202's body.
async fn send(s: &TestServer, id: &str, text: &str) -> Value {
    s.send_text(id, text).await
}

/// The events from the 202's `stream_after` up to `turn`'s `turn_completed` (heartbeats left
/// out).
async fn turn_events(s: &TestServer, id: &str, sent: &Value) -> Vec<Sse> {
    let after = sent["stream_after"]
        .as_u64()
        .expect("the 202 names where to stream from");
    let turn = sent["turn_id"].clone();
    let mut events = s.events(id, "", Some(after)).await;
    until_completed(&mut events, &turn).await
}

async fn until_completed(events: &mut SseReader, turn: &Value) -> Vec<Sse> {
    let turn = turn.clone();
    events
        .until(move |e| e.event == "turn_completed" && e.data["turn_id"] == turn)
        .await
}

async fn get_turn(s: &TestServer, id: &str, turn: &Value) -> (u16, Value) {
    let turn = turn.as_str().unwrap();
    s.call("GET", &format!("/v1/contexts/{id}/turns/{turn}"), None)
        .await
}

#[tokio::test]
async fn every_event_of_a_turn_carries_its_id_and_one_turn_completed_ends_it() {
    let s = TestServer::start(
        Script::new()
            .then(reply(&["first ", "answer"]))
            .then(reply(&["second"])),
    )
    .await;
    let id = s.context(json!({})).await;
    let first = send(&s, &id, "hello").await;
    let turn = first["turn_id"].clone();
    assert!(turn.is_string(), "the 202 names its turn: {first}");
    let seen = turn_events(&s, &id, &first).await;
    assert!(seen.len() > 3, "{seen:?}");
    for e in &seen {
        assert_eq!(
            e.data["turn_id"], turn,
            "{} without the turn: {}",
            e.event, e.data
        );
        assert_eq!(e.data["branch"], "main", "{}", e.data);
    }
    let created = seen.iter().find(|e| {
        e.data["message_update"]["type"] == "created"
            && e.data["message_update"]["message_id"] == first["message_id"]
    });
    assert!(
        created.is_some(),
        "the send's own message is an event of its turn"
    );
    let done = seen.last().unwrap();
    assert_eq!(done.data["outcome"], "answered", "{}", done.data);
    let (status, view) = get_turn(&s, &id, &turn).await;
    assert_eq!(status, 200, "{view}");
    assert_eq!(view["status"], "completed");
    assert_eq!(view["outcome"], "answered");
    assert_eq!(view["message_id"], first["message_id"]);

    // A second turn has its own id; the log holds one `turn_completed` for the first.
    let second = send(&s, &id, "again").await;
    assert_ne!(second["turn_id"], turn);
    let mut events = s.events(&id, "", Some(0)).await;
    let all = until_completed(&mut events, &second["turn_id"]).await;
    let ends = all
        .iter()
        .filter(|e| e.event == "turn_completed" && e.data["turn_id"] == turn)
        .count();
    assert_eq!(ends, 1, "exactly one turn_completed per turn");
}

#[tokio::test]
async fn a_turn_that_waits_for_approval_completes_naming_the_calls_and_their_arguments() {
    let s = TestServer::start(
        Script::new()
            .then(calls(&[(
                "call_1",
                "read_file",
                json!({"path": "notes.txt"}),
            )]))
            .then(reply(&["The file says hello"])),
    )
    .await;
    let id = s
        .context(json!({"approval_policy": {"type": "manual"}}))
        .await;
    let sent = send(&s, &id, "read my notes").await;
    let seen = turn_events(&s, &id, &sent).await;
    let approval = seen
        .iter()
        .find(|e| e.data["current_state"]["type"] == "awaiting_tool_approval")
        .expect("the approval's update");
    assert_eq!(
        approval.data["pending_calls"],
        json!([{"call_id": "call_1", "tool_name": "read_file", "arguments": {"path": "notes.txt"}}]),
        "{}",
        approval.data
    );
    assert_eq!(seen.last().unwrap().data["outcome"], "awaiting_approval");
    let (_, view) = get_turn(&s, &id, &sent["turn_id"]).await;
    assert_eq!(view["outcome"], "awaiting_approval", "{view}");

    let (status, approved) = s
        .call(
            "POST",
            &format!("/v1/contexts/{id}/approvals"),
            Some(json!({"decisions": [{"call_id": "call_1", "decision": "approve"}]})),
        )
        .await;
    assert_eq!(status, 202, "{approved}");
    let next = approved["turn_id"].clone();
    assert!(
        next.is_string(),
        "the approval's answer names its turn: {approved}"
    );
    assert_ne!(next, sent["turn_id"], "the approval runs a turn of its own");
    let rest = turn_events(&s, &id, &approved).await;
    assert_eq!(rest.last().unwrap().data["outcome"], "answered");
    assert!(
        rest.iter().all(|e| e.data["turn_id"] == next),
        "every event from the answer's `stream_after` on is the new turn's: {rest:?}"
    );
    let (status, view) = get_turn(&s, &id, &next).await;
    assert_eq!(status, 200, "{view}");
    assert_eq!(view["status"], "completed", "{view}");
    assert_eq!(view["outcome"], "answered", "{view}");
}

#[tokio::test]
async fn an_approval_that_leaves_a_call_waiting_names_no_turn() {
    let s = TestServer::start(Script::new().then(calls(&[
        ("call_1", "read_file", json!({"path": "a.txt"})),
        ("call_2", "read_file", json!({"path": "b.txt"})),
    ])))
    .await;
    let id = s
        .context(json!({"approval_policy": {"type": "manual"}}))
        .await;
    let sent = send(&s, &id, "read both").await;
    turn_events(&s, &id, &sent).await;
    let (status, body) = s
        .call(
            "POST",
            &format!("/v1/contexts/{id}/approvals"),
            Some(json!({"decisions": [{"call_id": "call_1", "decision": "approve"}]})),
        )
        .await;
    assert_eq!(status, 202, "{body}");
    assert_eq!(body, json!({}), "nothing runs while call_2 waits");
}

#[tokio::test]
async fn a_resume_answers_with_the_turn_it_runs() {
    let pieces: Vec<String> = (0..200).map(|i| format!("w{i} ")).collect();
    let refs: Vec<&str> = pieces.iter().map(String::as_str).collect();
    let slow = reply(&refs).chunk_delay(Duration::from_millis(20));
    let s = TestServer::start(Script::new().then(slow).then(reply(&["resumed"]))).await;
    let id = s.context(json!({})).await;
    let sent = send(&s, &id, "talk slowly").await;
    let mut events = s.events(&id, "", sent["stream_after"].as_u64()).await;
    events.until(|e| e.event == "content_delta").await;
    let (status, _) = s
        .call("POST", &format!("/v1/contexts/{id}/interrupt"), None)
        .await;
    assert_eq!(status, 204);
    until_completed(&mut events, &sent["turn_id"]).await;
    let (status, resumed) = s
        .call("POST", &format!("/v1/contexts/{id}/resume"), None)
        .await;
    assert_eq!(status, 202, "{resumed}");
    let turn = resumed["turn_id"].clone();
    assert!(
        turn.is_string(),
        "the resume's answer names its turn: {resumed}"
    );
    assert_ne!(turn, sent["turn_id"]);
    let seen = turn_events(&s, &id, &resumed).await;
    assert!(
        seen.iter().all(|e| e.data["turn_id"] == turn),
        "every event from the answer's `stream_after` on is the resumed turn's: {seen:?}"
    );
    let (status, view) = get_turn(&s, &id, &turn).await;
    assert_eq!(status, 200, "{view}");
    assert_eq!(view["status"], "completed", "{view}");
    assert_eq!(view["outcome"], "answered", "{view}");
}

#[tokio::test]
async fn an_interrupted_turn_completes_as_interrupted() {
    let pieces: Vec<String> = (0..200).map(|i| format!("w{i} ")).collect();
    let refs: Vec<&str> = pieces.iter().map(String::as_str).collect();
    let slow = reply(&refs).chunk_delay(Duration::from_millis(20));
    let s = TestServer::start(Script::new().then(slow)).await;
    let id = s.context(json!({})).await;
    let sent = send(&s, &id, "talk slowly").await;
    let mut events = s.events(&id, "", sent["stream_after"].as_u64()).await;
    events.until(|e| e.event == "content_delta").await;
    let (status, _) = s
        .call("POST", &format!("/v1/contexts/{id}/interrupt"), None)
        .await;
    assert_eq!(status, 204);
    let rest = until_completed(&mut events, &sent["turn_id"]).await;
    assert_eq!(rest.last().unwrap().data["outcome"], "interrupted");
}

#[tokio::test]
async fn a_queued_send_names_its_own_turn_which_is_queued_until_it_runs() {
    let pieces: Vec<String> = (0..30).map(|i| format!("w{i} ")).collect();
    let refs: Vec<&str> = pieces.iter().map(String::as_str).collect();
    let slow = reply(&refs).chunk_delay(Duration::from_millis(20));
    let s = TestServer::start(Script::new().then(slow).then(reply(&["next"]))).await;
    let id = s.context(json!({})).await;
    let first = send(&s, &id, "talk slowly").await;
    let mut events = s.events(&id, "", first["stream_after"].as_u64()).await;
    events.until(|e| e.event == "content_delta").await;
    let second = send(&s, &id, "then this").await;
    assert_eq!(second["queued"], true, "{second}");
    let (status, view) = get_turn(&s, &id, &second["turn_id"]).await;
    assert_eq!(status, 200, "{view}");
    assert_eq!(view["status"], "queued", "{view}");
    let (_, running) = get_turn(&s, &id, &first["turn_id"]).await;
    assert_eq!(running["status"], "running", "{running}");
    let seen = until_completed(&mut events, &second["turn_id"]).await;
    let created = seen
        .iter()
        .find(|e| e.data["message_update"]["message_id"] == second["message_id"])
        .expect("the queued message's creation");
    assert_eq!(
        created.data["turn_id"], second["turn_id"],
        "a queued send's input is its own turn's, not the running one's"
    );
    let ends: Vec<&Value> = seen
        .iter()
        .filter(|e| e.event == "turn_completed")
        .map(|e| &e.data["turn_id"])
        .collect();
    assert_eq!(ends, vec![&first["turn_id"], &second["turn_id"]]);
}

#[tokio::test]
async fn a_completed_turn_is_answered_after_a_restart_and_an_unknown_one_is_404() {
    let mut s = TestServer::start(Script::new().then(reply(&["done"]))).await;
    let id = s.context(json!({})).await;
    let sent = send(&s, &id, "hello").await;
    turn_events(&s, &id, &sent).await;
    s.restart().await;
    let (status, view) = get_turn(&s, &id, &sent["turn_id"]).await;
    assert_eq!(status, 200, "{view}");
    assert_eq!(view["outcome"], "answered", "{view}");
    assert_eq!(view["branch"], "main");
    let unknown = json!(braid_protocol::ContextTurnId::new().to_string());
    let (status, body) = get_turn(&s, &id, &unknown).await;
    assert_eq!(status, 404, "{body}");
}

#[tokio::test]
async fn messages_page_back_from_the_end_with_before_or_from_end() {
    let s = TestServer::start(
        Script::new()
            .then(reply(&["a"]))
            .then(reply(&["b"]))
            .then(reply(&["c"])),
    )
    .await;
    let id = s.context(json!({})).await;
    for text in ["one", "two", "three"] {
        send(&s, &id, text).await;
        s.settle(&id).await;
    }
    let all: Vec<Value> = s
        .messages(&id)
        .await
        .iter()
        .map(|m| m["id"].clone())
        .collect();
    assert_eq!(all.len(), 6);
    // A listing's ids and its `next_before`, for the query after `?`.
    let list = |query: String| {
        let id = id.clone();
        let s = &s;
        async move {
            let (status, body) = s
                .call("GET", &format!("/v1/contexts/{id}/messages?{query}"), None)
                .await;
            assert_eq!(status, 200, "{body}");
            let ids: Vec<Value> = body["messages"]
                .as_array()
                .unwrap()
                .iter()
                .map(|m| m["id"].clone())
                .collect();
            assert!(body.get("next_after").is_none(), "{body}");
            (ids, body.get("next_before").cloned())
        }
    };
    let page = |before: &Value| list(format!("before={}&limit=2", before.as_str().unwrap()));
    let (newest, older) = page(&all[5]).await;
    assert_eq!(
        newest,
        all[3..5].to_vec(),
        "the newest two before the last, oldest first"
    );
    assert_eq!(older, Some(all[3].clone()));
    let (middle, older) = page(&all[3]).await;
    assert_eq!(middle, all[1..3].to_vec());
    let (oldest, older) = page(&older.unwrap()).await;
    assert_eq!(oldest, all[..1].to_vec());
    assert_eq!(older, None, "nothing older");
    let (status, body) = s
        .call(
            "GET",
            &format!(
                "/v1/contexts/{id}/messages?before={}&after={}",
                all[5].as_str().unwrap(),
                all[0].as_str().unwrap()
            ),
            None,
        )
        .await;
    assert_eq!(status, 422, "{body}");
    assert_eq!(body["error"]["field"], "before", "{body}");

    // `from=end` is the newest page without knowing the last id: what a reader opens first.
    let (newest, older) = list("from=end&limit=2".into()).await;
    assert_eq!(newest, all[4..].to_vec(), "the newest two, oldest first");
    assert_eq!(older, Some(all[4].clone()));
    let (before, _) = page(&all[4]).await;
    assert_eq!(before, all[2..4].to_vec());
    // The whole branch fits: nothing to page back to.
    let (whole, older) = list("from=end&limit=10".into()).await;
    assert_eq!(whole, all);
    assert_eq!(older, None);
    let (status, body) = s
        .call(
            "GET",
            &format!(
                "/v1/contexts/{id}/messages?from=end&after={}",
                all[0].as_str().unwrap()
            ),
            None,
        )
        .await;
    assert_eq!(status, 422, "{body}");
    assert_eq!(body["error"]["field"], "from", "{body}");
    // Nor is it ignored beside `before`.
    let (status, body) = s
        .call(
            "GET",
            &format!(
                "/v1/contexts/{id}/messages?from=end&before={}",
                all[1].as_str().unwrap()
            ),
            None,
        )
        .await;
    assert_eq!(status, 422, "{body}");
    assert_eq!(body["error"]["field"], "from", "{body}");
}
