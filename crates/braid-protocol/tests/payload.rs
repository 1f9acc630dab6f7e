//! `SendMessageRequest`: every variant parses; every malformed payload is an error naming the
//! field.

use braid_protocol::body::RequestError;
use braid_protocol::*;
use serde_json::json;

fn parse(v: serde_json::Value) -> Result<SendMessageRequest, RequestError> {
    SendMessageRequest::from_json(&v.to_string())
}

fn field_of(v: serde_json::Value) -> String {
    parse(v).unwrap_err().field().unwrap_or("").to_owned()
}

#[test]
fn every_payload_variant_parses() {
    let id = MessageId::new();
    let bodies = [
        json!({"payload":{"type":"text","text":"hi"}}),
        json!({"payload":{"type":"text","text":"see","file_references":[{"path":"a.rs"}]}}),
        json!({"payload":{"type":"file_reference","path":"src/lib.rs","range":{"start_line":1,"end_line":3},"display_text":"@lib"}}),
        json!({"payload":{"type":"image","source":{"type":"url","url":"https://x/y.png"}}}),
        json!({"payload":{"type":"workflow","workflow":"release","parameters":{"v":"1.0"}}}),
        json!({"payload":{"type":"tool_result","call_id":"c1","output":{"ok":true}}}),
        json!({"payload":{"type":"question_answer","question_id": id,"value":"yes"}}),
        json!({"payload":{"type":"mcp_resource","server_name":"everything","resource_uri":"test://static/resource/1"}}),
    ];
    let mut types = Vec::new();
    for b in bodies {
        let r = parse(b.clone()).unwrap_or_else(|e| panic!("{b}: {e}"));
        types.push(r.payload.type_name());
        // Round trip through JSON.
        let again: SendMessageRequest =
            serde_json::from_value(serde_json::to_value(&r).unwrap()).unwrap();
        assert_eq!(again, r);
    }
    types.dedup();
    assert_eq!(types, MessagePayload::TYPES.to_vec());
}

#[test]
fn client_metadata_is_kept() {
    let r = parse(json!({"payload":{"type":"text","text":"hi"},"client_metadata":{"draft":7}}))
        .unwrap();
    assert_eq!(r.client_metadata.unwrap()["draft"], 7);
}

#[test]
fn missing_field_is_named() {
    assert_eq!(
        field_of(json!({"payload":{"type":"file_reference"}})),
        "payload.path"
    );
    assert_eq!(field_of(json!({"payload":{"type":"text"}})), "payload.text");
    assert_eq!(field_of(json!({})), "payload");
    assert_eq!(field_of(json!({"payload":{"text":"hi"}})), "payload.type");
}

#[test]
fn wrong_type_is_named() {
    assert_eq!(
        field_of(json!({"payload":{"type":"text","text":5}})),
        "payload.text"
    );
    assert_eq!(
        field_of(
            json!({"payload":{"type":"file_reference","path":"a","range":{"start_line":"one","end_line":2}}})
        ),
        "payload.range.start_line"
    );
    assert_eq!(field_of(json!({"payload":"hi"})), "payload");
}

#[test]
fn unsupported_variant_is_named_with_the_supported_ones() {
    let err = parse(json!({"payload":{"type":"audio","data":"..."}})).unwrap_err();
    assert_eq!(err.field(), Some("payload.type"));
    let text = err.to_string();
    assert!(
        text.contains("`audio`") && text.contains("file_reference"),
        "{text}"
    );
}

#[test]
fn rule_violations_are_named() {
    assert_eq!(
        field_of(json!({"payload":{"type":"text","text":"  "}})),
        "payload.text"
    );
    assert_eq!(
        field_of(json!({"payload":{"type":"file_reference","path":"../etc/passwd"}})),
        "payload.path"
    );
    assert_eq!(
        field_of(
            json!({"payload":{"type":"file_reference","path":"a","range":{"start_line":5,"end_line":1}}})
        ),
        "payload.range.end_line"
    );
    assert_eq!(
        field_of(json!({"payload":{"type":"tool_result","call_id":"c","output":1,"error":"x"}})),
        "payload.error"
    );
    assert_eq!(
        field_of(json!({"payload":{"type":"text","text":"x","file_references":[{"path":""}]}})),
        "payload.file_references[0].path"
    );
}

#[test]
fn body_that_is_not_json_is_a_syntax_error() {
    assert!(matches!(
        SendMessageRequest::from_json("{payload"),
        Err(RequestError::Syntax(_))
    ));
}

#[test]
fn api_error_body_carries_the_field() {
    let err = parse(json!({"payload":{"type":"file_reference"}})).unwrap_err();
    let body = serde_json::to_value(api::ApiError::from(&err)).unwrap();
    assert_eq!(body["error"]["code"], "invalid_input");
    assert_eq!(body["error"]["field"], "payload.path");
}

#[test]
fn a_field_a_send_does_not_have_is_refused_by_name() {
    // `branch` is not a field of a send: it was answered 202 and the message went to the
    // active branch.
    let err = parse(json!({"payload":{"type":"text","text":"hi"},"branch":"alt"})).unwrap_err();
    assert_eq!(err.field(), Some("branch"));
    assert!(err.to_string().contains("unknown field `branch`"), "{err}");
    assert_eq!(
        field_of(json!({"payload":{"type":"text","txet":"hi","text":"hi"}})),
        "payload.txet"
    );
    assert_eq!(
        field_of(
            json!({"payload":{"type":"text","text":"see","file_references":[{"path":"a.rs","rnage":{}}]}})
        ),
        "payload.file_references[0].rnage"
    );
}

#[test]
fn the_text_of_a_send_counts_its_words_and_captions() {
    let r = parse(json!({"payload":{"type":"text","text":"hello","images":[{"source":{"type":"url","url":"https://x/y.png"},"caption":"abc"}]}})).unwrap();
    assert_eq!(r.payload.text_bytes(), (8, "payload.text"));
    let r = parse(json!({"payload":{"type":"file_reference","path":"a.rs"}})).unwrap();
    assert_eq!(r.payload.text_bytes().0, 0);
}
