//! Compaction people can trust (issue 42), through `braid serve` with the mock model: a long
//! tool-using session in a small window keeps every path and command in its last request (in
//! whole messages or the ledger), pins survive, every request is recorded as sent, and each
//! compaction is a row in the conversation.

use std::collections::BTreeSet;

use braid_testkit::Script;
use serde_json::{Value, json};

use crate::common::{TestServer, calls, reply};

/// Turns of the session.
const TURNS: usize = 200;
/// Distinct files written, then read.
const FILES: usize = 60;
/// Distinct commands run.
const COMMANDS: usize = 40;

fn path(i: usize) -> String {
    format!("src/module_{i:02}.rs")
}

/// What turn `i` does: write each file, run each command, read each file, run again.
fn call_of(i: usize) -> (&'static str, Value) {
    match i {
        i if i < FILES => (
            "write_file",
            json!({"path": path(i), "content": format!("pub const VALUE: u32 = {};\n", 7_919 * (i + 1))}),
        ),
        i if i < FILES + COMMANDS => (
            "run_command",
            json!({"program": "echo", "args": ["step", format!("{}", i - FILES)]}),
        ),
        i if i < 2 * FILES + COMMANDS => ("read_file", json!({"path": path(i - FILES - COMMANDS)})),
        i => (
            "read_file",
            json!({"path": path((i - 2 * FILES - COMMANDS) % FILES)}),
        ),
    }
}

fn script() -> Script {
    let mut s = Script::new();
    for i in 0..TURNS {
        let (tool, args) = call_of(i);
        let id = format!("call_{i}");
        s = s
            .then(calls(&[(id.as_str(), tool, args)]))
            .then(reply(&[&format!(
                "Step {i} done; checksum {}.",
                104_729 + i * 31
            )]));
    }
    s
}

/// Tokens of a chat-completions body the mock received, counted as the records count with the
/// tokenizer named `encoding`: each message's overhead and content, each call's overhead, name
/// and arguments, each tool definition, and the reply priming.
fn recount(body: &Value, encoding: &str) -> u32 {
    use braid_optimizer::tokens::{CALL_OVERHEAD, MESSAGE_OVERHEAD, REPLY_PRIMING};
    let encoding = match encoding {
        "o200k_base" => braid_optimizer::Encoding::O200kBase,
        "cl100k_base" => braid_optimizer::Encoding::Cl100kBase,
        other => panic!("unknown encoding {other}"),
    };
    let mut total = REPLY_PRIMING;
    for m in body["messages"].as_array().unwrap() {
        total += MESSAGE_OVERHEAD;
        match &m["content"] {
            Value::String(s) => total += encoding.count(s),
            Value::Null => {}
            other => panic!("content that is not text: {other}"),
        }
        for call in m["tool_calls"].as_array().into_iter().flatten() {
            total += CALL_OVERHEAD
                + encoding.count(call["function"]["name"].as_str().unwrap())
                + encoding.count(call["function"]["arguments"].as_str().unwrap());
        }
    }
    for tool in body["tools"].as_array().into_iter().flatten() {
        let definition: braid_llm::ToolDefinition =
            serde_json::from_value(tool["function"].clone()).unwrap();
        total += CALL_OVERHEAD + encoding.count(&serde_json::to_string(&definition).unwrap());
    }
    total
}

/// Every text the request carries: contents and tool call arguments.
fn request_text(body: &Value) -> String {
    let mut out = String::new();
    for m in body["messages"].as_array().into_iter().flatten() {
        match &m["content"] {
            Value::String(s) => out.push_str(s),
            Value::Null => {}
            other => out.push_str(&other.to_string()),
        }
        out.push('\n');
        for call in m["tool_calls"].as_array().into_iter().flatten() {
            out.push_str(call["function"]["arguments"].as_str().unwrap_or_default());
            out.push('\n');
        }
    }
    out
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_long_session_keeps_every_path_and_command_and_pin_in_its_last_request() {
    let mut script = script();
    // Two more turns after the pins, then a last one whose request is checked.
    script = script.then(reply(&["pinned noted"]));
    let s = TestServer::start(script).await;
    let id = s
        .context(json!({
            "approval_policy": {"type": "auto_all"},
            "context_window": 8_192,
            "optimization": {
                "strategy": {"type": "recent_n", "n": 12},
                "reserve_output_tokens": 512,
                "margin_tokens": 64
            }
        }))
        .await;
    let mut pinned_text = None;
    for i in 0..TURNS {
        let sent = s.send_text(&id, &format!("Please do step {i}.")).await;
        let state = s.settle(&id).await;
        assert_eq!(state["type"], "idle", "turn {i}: {state}");
        if i == 3 {
            let message = sent["message_id"].as_str().unwrap().to_owned();
            let (status, body) = s
                .call(
                    "PUT",
                    &format!("/v1/contexts/{id}/messages/{message}/pin"),
                    None,
                )
                .await;
            assert_eq!(status, 200, "{body}");
            assert_eq!(body["metadata"]["pinned"], true);
            pinned_text = Some("Please do step 3.".to_owned());
            let (status, body) = s
                .call(
                    "POST",
                    &format!("/v1/contexts/{id}/pins"),
                    Some(json!({"text": "The release branch is frozen until Monday."})),
                )
                .await;
            assert_eq!(status, 201, "{body}");
        }
    }
    s.send_text(&id, "What is pinned?").await;
    assert_eq!(s.settle(&id).await["type"], "idle");

    let requests = s.mock.requests();
    let last = requests.last().unwrap().json().unwrap();
    let text = request_text(&last);
    let paths: Vec<String> = (0..FILES).map(path).collect();
    let kept_paths = paths.iter().filter(|p| text.contains(p.as_str())).count();
    let kept_commands = (0..COMMANDS)
        .filter(|k| {
            text.contains(&format!("echo step {k}`"))
                || text.contains(&format!("[\"step\",\"{k}\"]"))
        })
        .count();
    let numbers: Vec<String> = (0..TURNS)
        .map(|i| format!("{}", 104_729 + i * 31))
        .collect();
    let kept_numbers = numbers.iter().filter(|n| text.contains(n.as_str())).count();

    // The record of the last request: what it held, against the window.
    let (status, list) = s
        .call("GET", &format!("/v1/contexts/{id}/requests?limit=5"), None)
        .await;
    assert_eq!(status, 200, "{list}");
    let record = &list["requests"][0];
    let ledger_tokens = record["ledger"]["tokens"].as_u64().unwrap_or(0);
    eprintln!(
        "long session: {TURNS} turns; last request keeps {kept_paths}/{FILES} paths, {kept_commands}/{COMMANDS} commands, {kept_numbers}/{TURNS} numbers; request {} tokens of a {} limit (window {}), ledger {ledger_tokens} tokens, {} messages whole or cut, {} left out",
        record["tokens"],
        record["budget"]["limit"],
        record["budget"]["window"],
        record["messages"].as_array().unwrap().len(),
        record["dropped"].as_array().unwrap().len(),
    );
    assert_eq!(kept_paths, FILES, "every path is in the last request");
    assert_eq!(
        kept_commands, COMMANDS,
        "every command is in the last request"
    );
    assert!(
        text.contains(pinned_text.as_deref().unwrap()),
        "the pinned message"
    );
    assert!(text.contains("The release branch is frozen until Monday."));
    assert!(record["tokens"].as_u64().unwrap() <= record["budget"]["limit"].as_u64().unwrap());
    assert!(ledger_tokens > 0);

    // The request as recorded is the request as sent: the ledger first, then the messages in
    // order (the provider's format joins a user text to the user text before it).
    let sent = last["messages"].as_array().unwrap();
    let system = usize::from(sent.first().is_some_and(|m| m["role"] == "system"));
    let mut roles = vec!["user".to_owned()];
    let mut at = system;
    for entry in record["messages"].as_array().unwrap() {
        let (status, stored) = s
            .call(
                "GET",
                &format!(
                    "/v1/contexts/{id}/messages/{}",
                    entry["id"].as_str().unwrap()
                ),
                None,
            )
            .await;
        assert_eq!(status, 200);
        let role = stored["role"].as_str().unwrap().to_owned();
        if roles.last() != Some(&role) || role != "user" {
            roles.push(role.clone());
            at += 1;
        }
        assert_eq!(sent[at]["role"].as_str().unwrap(), role, "{stored}");
        if let Some(text) = stored["data"]["parts"][0]["text"].as_str() {
            assert!(
                sent[at]["content"]
                    .as_str()
                    .unwrap_or_default()
                    .contains(text),
                "{text} is sent in place"
            );
        }
        // What the record counts is what the counter gives the message as sent.
        assert_eq!(entry["sent_as"]["type"], "whole");
    }
    assert_eq!(
        sent.len(),
        system + roles.len(),
        "no message sent but recorded or left out"
    );
    assert!(
        sent[system]["content"]
            .as_str()
            .unwrap()
            .starts_with(record["ledger"]["text"].as_str().unwrap())
    );

    // Every request is recorded with the tokens the mock was sent, counted by the same
    // tokenizer (the conversation's requests are the ones offering tools; titles offer none).
    let (status, all) = s
        .call(
            "GET",
            &format!("/v1/contexts/{id}/requests?limit=1000"),
            None,
        )
        .await;
    assert_eq!(status, 200);
    assert_eq!(all["has_more"], false);
    let mut records: Vec<&Value> = all["requests"].as_array().unwrap().iter().collect();
    records.reverse();
    let bodies: Vec<Value> = requests
        .iter()
        .filter_map(|r| r.json())
        .filter(|b| b["tools"].as_array().is_some_and(|t| !t.is_empty()))
        .collect();
    assert_eq!(records.len(), bodies.len(), "one record per request sent");
    for (record, body) in records.iter().zip(&bodies) {
        assert_eq!(
            record["tokens"].as_u64().unwrap(),
            u64::from(recount(body, record["encoding"].as_str().unwrap())),
            "request {}",
            record["id"]
        );
        assert_eq!(
            record["tools"]["names"].as_array().unwrap().len(),
            body["tools"].as_array().unwrap().len()
        );
    }
    assert_eq!(bodies.last(), Some(&last));

    // Each compaction is a row of the conversation, and the answers link their requests.
    let messages = all_messages(&s, &id).await;
    let compactions: Vec<&Value> = messages
        .iter()
        .filter(|m| m["data"]["type"] == "compaction")
        .collect();
    assert!(!compactions.is_empty());
    let mut recorded = BTreeSet::new();
    for c in &compactions {
        for d in c["data"]["record"]["dropped"].as_array().unwrap() {
            assert!(
                recorded.insert(d.as_str().unwrap().to_owned()),
                "recorded once"
            );
        }
    }
    for d in record["dropped"].as_array().unwrap() {
        assert!(
            recorded.contains(d.as_str().unwrap()),
            "no silent drop: {d}"
        );
    }
    let answer = messages
        .iter()
        .rev()
        .find(|m| m["role"] == "assistant")
        .unwrap();
    assert_eq!(answer["metadata"]["model_request_id"], record["id"]);
    let (status, one) = s
        .call(
            "GET",
            &format!(
                "/v1/contexts/{id}/requests/{}",
                record["id"].as_str().unwrap()
            ),
            None,
        )
        .await;
    assert_eq!(status, 200);
    assert_eq!(&one, record);
}

/// Every message of the active branch, page by page.
async fn all_messages(s: &TestServer, id: &str) -> Vec<Value> {
    let mut out = Vec::new();
    let mut after = String::new();
    loop {
        let (status, page) = s
            .call(
                "GET",
                &format!("/v1/contexts/{id}/messages?limit=1000{after}"),
                None,
            )
            .await;
        assert_eq!(status, 200, "{page}");
        out.extend(page["messages"].as_array().unwrap().iter().cloned());
        match page["next_after"].as_str() {
            Some(next) => after = format!("&after={next}"),
            None => return out,
        }
    }
}

#[tokio::test]
async fn a_fact_is_pinned_and_unpinned_and_only_a_summary_can_be_corrected() {
    let s = TestServer::start(Script::new().then(reply(&["hello"]))).await;
    let id = s.context(json!({})).await;
    s.send_text(&id, "hi").await;
    s.settle(&id).await;
    let (status, fact) = s
        .call(
            "POST",
            &format!("/v1/contexts/{id}/pins"),
            Some(json!({"text": "  "})),
        )
        .await;
    assert_eq!(status, 422, "{fact}");
    let (status, fact) = s
        .call(
            "POST",
            &format!("/v1/contexts/{id}/pins"),
            Some(json!({"text": "Use metric units."})),
        )
        .await;
    assert_eq!(status, 201, "{fact}");
    let fact_id = fact["id"].as_str().unwrap();
    let (_, summary) = s.call("GET", &format!("/v1/contexts/{id}"), None).await;
    assert_eq!(summary["pinned"], json!([fact_id]));
    // Unpinned, the fact stays stored but rides no more.
    let (status, body) = s
        .call(
            "DELETE",
            &format!("/v1/contexts/{id}/messages/{fact_id}/pin"),
            None,
        )
        .await;
    assert_eq!(status, 200, "{body}");
    let (_, summary) = s.call("GET", &format!("/v1/contexts/{id}"), None).await;
    assert_eq!(summary["pinned"], json!([]));
    // Not a summary: 409 naming what it is.
    let (status, body) = s
        .call(
            "PUT",
            &format!("/v1/contexts/{id}/messages/{fact_id}/summary"),
            Some(json!({"text": "x"})),
        )
        .await;
    assert_eq!(status, 409, "{body}");
    let (status, _) = s
        .call(
            "GET",
            &format!(
                "/v1/contexts/{id}/requests/{}",
                braid_protocol::ModelRequestId::new()
            ),
            None,
        )
        .await;
    assert_eq!(status, 404);
}

#[tokio::test]
async fn a_summary_merge_brings_a_branchs_conclusions_back_as_one_marked_message() {
    let mut script = Script::new().then(reply(&["On main."]));
    for i in 0..8 {
        let (tool, args) = if i % 2 == 0 {
            ("read_file", json!({"path": format!("notes.txt")}))
        } else {
            (
                "run_command",
                json!({"program": "echo", "args": ["probe", format!("{i}")]}),
            )
        };
        let id = format!("b{i}");
        script = script
            .then(calls(&[(id.as_str(), tool, args)]))
            .then(reply(&[&format!("Finding {i}.")]));
    }
    script = script.then(reply(&[
        "SUMMARY: the branch found that notes.txt has two lines.",
    ]));
    let s = TestServer::start(script).await;
    let id = s
        .context(json!({"approval_policy": {"type": "auto_all"}}))
        .await;
    s.send_text(&id, "start").await;
    s.settle(&id).await;
    let (status, body) = s
        .call(
            "POST",
            &format!("/v1/contexts/{id}/branches"),
            Some(json!({"name": "explore"})),
        )
        .await;
    assert_eq!(status, 201, "{body}");
    let (status, _) = s
        .call(
            "POST",
            &format!("/v1/contexts/{id}/branches/explore/activate"),
            None,
        )
        .await;
    assert_eq!(status, 204);
    for i in 0..8 {
        s.send_text(&id, &format!("explore {i}")).await;
        assert_eq!(s.settle(&id).await["type"], "idle");
    }
    let (status, _) = s
        .call(
            "POST",
            &format!("/v1/contexts/{id}/branches/main/activate"),
            None,
        )
        .await;
    assert_eq!(status, 204);
    let before = s.messages(&id).await.len();
    let (status, body) = s
        .call(
            "POST",
            &format!("/v1/contexts/{id}/branches/nowhere/merge"),
            Some(json!({"strategy": {"type": "summary"}, "dry_run": true})),
        )
        .await;
    assert_eq!(status, 404, "an unknown branch is named: {body}");
    let merge = format!("/v1/contexts/{id}/branches/explore/merge");
    let (status, preview) = s
        .call(
            "POST",
            &merge,
            Some(json!({"strategy": {"type": "summary"}, "dry_run": true})),
        )
        .await;
    assert_eq!(status, 200, "{preview}");
    assert_eq!(preview["merged"], false);
    let summary = &preview["summary"];
    assert_eq!(
        summary["text"],
        "SUMMARY: the branch found that notes.txt has two lines."
    );
    assert!(summary["count"].as_u64().unwrap() >= 30, "{summary}");
    let ledger = summary["ledger"].as_str().unwrap();
    assert!(ledger.contains("- read: notes.txt"), "{ledger}");
    for i in [1, 3, 5, 7] {
        assert!(ledger.contains(&format!("`echo probe {i}`")), "{ledger}");
    }
    assert_eq!(
        s.messages(&id).await.len(),
        before,
        "a dry run stores nothing"
    );

    // The person edits the summary and merges: no second model call.
    let calls_before = s.mock.requests().len();
    let edited = "The branch found that notes.txt has two lines; keep it.";
    let (status, outcome) = s
        .call(
            "POST",
            &merge,
            Some(json!({"strategy": {"type": "summary", "text": edited}})),
        )
        .await;
    assert_eq!(status, 200, "{outcome}");
    assert_eq!(outcome["merged"], true);
    assert_eq!(s.mock.requests().len(), calls_before);
    let messages = s.messages(&id).await;
    assert_eq!(
        messages.len(),
        before + 2,
        "the marked message and the notice"
    );
    let marked = &messages[before];
    let text = marked["data"]["parts"][0]["text"].as_str().unwrap();
    assert!(text.contains("Conclusions of branch `explore`"), "{text}");
    assert!(
        text.contains(edited) && text.contains("`echo probe 7`"),
        "{text}"
    );
    assert_eq!(marked["metadata"]["merged_from"]["branch"], "explore");
    assert_eq!(marked["metadata"]["merged_from"]["from"], summary["from"]);
    assert_eq!(messages[before + 1]["data"]["strategy"], "summary");
}
