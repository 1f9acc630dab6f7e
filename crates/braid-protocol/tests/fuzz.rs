//! Fuzz targets (issue 13): arbitrary bytes, arbitrary JSON and mutated valid documents fed to
//! the two readers of outside input in this crate, `SendMessageRequest::from_json` (the send
//! body) and the message reader of every schema version. Properties: nothing panics; input that
//! is JSON is never refused as a syntax error, and every refusal names the field at fault;
//! whatever is accepted is written back and read again unchanged.
//!
//! Case counts: `PROPTEST_CASES` (else the default given to each target); `make fuzz` runs them
//! long, bounded by `BRAID_FUZZ_SECONDS`.

use crate::strategies;

use braid_protocol::body::RequestError;
use braid_protocol::migrate::{ReadError, read_message, read_messages};
use braid_protocol::*;
use braid_testkit::fuzz::{self, any_bytes, json_with_keys, mutated_bytes, mutated_json};
use proptest::prelude::*;
use serde_json::{Value, json};

/// Field names of send bodies, so arbitrary JSON often looks almost right.
const PAYLOAD_KEYS: &[&str] = &[
    "payload",
    "client_metadata",
    "type",
    "text",
    "file_references",
    "path",
    "range",
    "start_line",
    "end_line",
    "display_text",
    "source",
    "url",
    "data",
    "media_type",
    "recognition_mode",
    "caption",
    "workflow",
    "parameters",
    "call_id",
    "output",
    "error",
    "question_id",
    "value",
    "server_name",
    "resource_uri",
];

/// Field names of messages in every version.
const MESSAGE_KEYS: &[&str] = &[
    "schema_version",
    "id",
    "role",
    "kind",
    "type",
    "data",
    "status",
    "created_at",
    "updated_at",
    "metadata",
    "content",
    "message_type",
    "tool_calls",
    "tool_call_id",
    "function",
    "name",
    "tool_name",
    "arguments",
    "parameters",
    "image_url",
    "text",
    "parts",
    "calls",
    "call_id",
    "output",
    "error",
    "message",
    "path",
    "range",
    "start_line",
    "end_line",
    "server_name",
    "resource_uri",
    "request_id",
    "called_as",
    "goal",
    "steps",
    "question",
    "options",
    "activity",
];

/// The default case count of each target in `make test`.
const CASES: u32 = 256;

fn fixture(name: &str) -> String {
    std::fs::read_to_string(format!(
        "{}/tests/fixtures/{name}",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap()
}

/// One valid body of every payload type.
fn send_bodies() -> Vec<Value> {
    vec![
        json!({"payload":{"type":"text","text":"hi","file_references":[{"path":"a.rs","range":{"start_line":1,"end_line":2}}]},"client_metadata":{"draft":7}}),
        json!({"payload":{"type":"file_reference","path":"src/lib.rs","range":{"start_line":1,"end_line":3},"display_text":"@lib"}}),
        json!({"payload":{"type":"image","source":{"type":"url","url":"https://x/y.png"},"recognition_mode":"ocr","caption":"c"}}),
        json!({"payload":{"type":"image","source":{"type":"base64","data":"iVBORw0KGgo=","media_type":"image/png"}}}),
        json!({"payload":{"type":"workflow","workflow":"release","parameters":{"v":"1.0"}}}),
        json!({"payload":{"type":"tool_result","call_id":"c1","output":{"ok":true}}}),
        json!({"payload":{"type":"tool_result","call_id":"c1","error":"boom"}}),
        json!({"payload":{"type":"question_answer","question_id":"0192f0c4-1111-7000-8000-000000000003","value":"yes"}}),
        json!({"payload":{"type":"mcp_resource","server_name":"everything","resource_uri":"test://static/resource/1"}}),
    ]
}

/// Every legacy and current message the fixtures hold.
fn message_fixtures() -> Vec<Value> {
    let dir = format!("{}/tests/fixtures", env!("CARGO_MANIFEST_DIR"));
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|n| n.ends_with(".json"))
        .collect();
    names.sort();
    names
        .iter()
        .map(|n| serde_json::from_str(&fixture(n)).unwrap())
        .collect()
}

/// The send-body property: a syntax error only for text that is not JSON, a field of the body
/// named for every other refusal, and an accepted body that survives writing and reading back.
fn check_send(body: &str) -> Result<(), TestCaseError> {
    let is_json = serde_json::from_str::<Value>(body).is_ok();
    match SendMessageRequest::from_json(body) {
        Ok(request) => {
            let written = serde_json::to_string(&request).unwrap();
            let again = SendMessageRequest::from_json(&written);
            prop_assert_eq!(again, Ok(request));
        }
        Err(RequestError::Syntax(message)) => {
            prop_assert!(!is_json, "JSON refused as a syntax error: {}", message);
        }
        Err(e) => {
            prop_assert!(is_json);
            let field = e.field().unwrap_or_default();
            let head = field.split(['.', '[']).next().unwrap_or_default();
            // An unknown field is refused by its own name.
            let given = serde_json::from_str::<Value>(body)
                .ok()
                .is_some_and(|v| names_a_key(&v, field));
            prop_assert!(
                given || ["payload", "client_metadata", "(root)"].contains(&head),
                "refusal names no field of the body: {:?}",
                e
            );
        }
    }
    Ok(())
}

/// The message property: JSON is never a syntax error, every refusal names a path, and every
/// message read is written back and read again unchanged.
fn check_messages(text: &str) -> Result<(), TestCaseError> {
    let is_json = serde_json::from_str::<Value>(text).is_ok();
    let single = read_message(text);
    match read_messages(text) {
        Ok(messages) => {
            if messages.len() == 1 && !text.trim_start().starts_with('[') {
                prop_assert!(
                    single.is_ok(),
                    "one message, but read_message: {:?}",
                    single
                );
            }
            for m in messages {
                let _ = m.validate_for_storage();
                let written = m.to_json();
                let again = read_message(&written);
                prop_assert!(again.is_ok(), "{} does not read back: {:?}", written, again);
                let again = again.unwrap();
                if let MessageKind::Unknown(_) = m.kind {
                    // Kept as found: the same text, so the same kind and raw JSON.
                    prop_assert_eq!(&again.kind, &m.kind);
                } else {
                    prop_assert_eq!(&again, &m);
                    prop_assert_eq!(again.to_json(), written);
                }
            }
        }
        Err(ReadError::Syntax(e)) => prop_assert!(!is_json, "JSON refused as syntax: {}", e),
        Err(ReadError::Invalid { path, message }) => {
            prop_assert!(is_json);
            prop_assert!(!path.is_empty() && !message.is_empty());
        }
        Err(ReadError::Expands { count }) => {
            prop_assert!(false, "read_messages never expands-refuses ({count})")
        }
    }
    if let Err(e) = &single {
        prop_assert!(is_json || matches!(e, ReadError::Syntax(_)));
    }
    Ok(())
}

#[test]
fn send_request_from_arbitrary_bytes() {
    fuzz::run("send_request_bytes", CASES, any_bytes(256), |bytes| {
        check_send(&String::from_utf8_lossy(&bytes))
    });
}

#[test]
fn send_request_from_arbitrary_json() {
    fuzz::run(
        "send_request_json",
        CASES,
        json_with_keys(PAYLOAD_KEYS),
        |value| {
            check_send(&value.to_string())?;
            check_send(&json!({ "payload": value }).to_string())
        },
    );
}

#[test]
fn send_request_from_mutated_valid_bodies() {
    let bodies = send_bodies();
    for b in &bodies {
        SendMessageRequest::from_json(&b.to_string()).unwrap();
    }
    let strategy = prop::sample::select(bodies)
        .prop_flat_map(|b| mutated_json(b, PAYLOAD_KEYS))
        .prop_map(|v| v.to_string());
    fuzz::run("send_request_mutated", CASES, strategy, |body| {
        check_send(&body)
    });
}

#[test]
fn send_request_from_mutated_bytes() {
    let strategy = prop::sample::select(send_bodies())
        .prop_flat_map(|b| mutated_bytes(b.to_string().into_bytes()));
    fuzz::run("send_request_mutated_bytes", CASES, strategy, |bytes| {
        check_send(&String::from_utf8_lossy(&bytes))
    });
}

#[test]
fn messages_from_arbitrary_bytes() {
    fuzz::run("message_bytes", CASES, any_bytes(256), |bytes| {
        check_messages(&String::from_utf8_lossy(&bytes))
    });
}

#[test]
fn messages_from_arbitrary_json() {
    fuzz::run(
        "message_json",
        CASES,
        json_with_keys(MESSAGE_KEYS),
        |value| check_messages(&value.to_string()),
    );
}

#[test]
fn messages_of_every_version_mutated() {
    let fixtures = message_fixtures();
    assert!(fixtures.len() >= 14, "fixtures of v0, v1 and v2 are read");
    let strategy = prop::sample::select(fixtures)
        .prop_flat_map(|m| mutated_json(m, MESSAGE_KEYS))
        .prop_map(|v| v.to_string());
    fuzz::run("message_legacy_mutated", CASES, strategy, |text| {
        check_messages(&text)
    });
}

#[test]
fn messages_of_every_kind_mutated() {
    let strategy = strategies::message()
        .prop_map(|m| serde_json::to_value(&m).unwrap())
        .prop_flat_map(|m| {
            // The `type` alias for `kind`, and an unknown kind, are read too.
            let aliased = {
                let mut m = m.clone();
                if let Some(obj) = m.as_object_mut()
                    && let Some(kind) = obj.remove("kind")
                {
                    obj.insert("type".into(), kind);
                }
                m
            };
            let unknown = {
                let mut m = m.clone();
                m["kind"] = json!("hologram");
                m
            };
            prop_oneof![
                mutated_json(m, MESSAGE_KEYS),
                mutated_json(aliased, MESSAGE_KEYS),
                mutated_json(unknown, MESSAGE_KEYS),
            ]
        })
        .prop_map(|v| v.to_string());
    fuzz::run("message_kinds_mutated", CASES, strategy, |text| {
        check_messages(&text)
    });
}

#[test]
fn message_arrays_mutated() {
    let strategy = prop::collection::vec(prop::sample::select(message_fixtures()), 1..5)
        .prop_flat_map(|ms| mutated_json(Value::Array(ms), MESSAGE_KEYS))
        .prop_map(|v| v.to_string());
    fuzz::run("message_arrays_mutated", CASES, strategy, |text| {
        check_messages(&text)
    });
}

#[test]
fn messages_from_mutated_bytes() {
    let strategy = prop::sample::select(message_fixtures())
        .prop_flat_map(|m| mutated_bytes(m.to_string().into_bytes()));
    fuzz::run("message_mutated_bytes", CASES, strategy, |bytes| {
        check_messages(&String::from_utf8_lossy(&bytes))
    });
}

/// Whether `field` is a key of the body's top level, or a path below one (a key may hold dots).
fn names_a_key(body: &Value, field: &str) -> bool {
    body.as_object().is_some_and(|o| {
        o.keys().any(|k| {
            field == k
                || field
                    .strip_prefix(k.as_str())
                    .is_some_and(|rest| rest.starts_with('.') || rest.starts_with('['))
        })
    })
}
