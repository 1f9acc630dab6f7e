//! Reading every legacy shape (v0, v1, the `type` alias) and keeping unknown kinds byte-for-byte.

use braid_protocol::migrate::{ReadError, read_message, read_messages};
use braid_protocol::*;
use serde_json::{Value, json};

fn fixture(name: &str) -> String {
    std::fs::read_to_string(format!(
        "{}/tests/fixtures/{name}",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap()
}

#[test]
fn v0_user_text_becomes_text_and_ignores_unknown_fields() {
    let m = read_message(&fixture("v0_user_text.json")).unwrap();
    assert_eq!(m.role, Role::User);
    match &m.kind {
        MessageKind::Text(t) => assert_eq!(t.text(), "What does parse() return?"),
        other => panic!("{other:?}"),
    }
    assert_eq!(m.status, MessageStatus::Complete);
}

#[test]
fn v0_tool_calls_become_a_tool_request_with_parsed_arguments() {
    let m = read_message(&fixture("v0_assistant_tool_calls.json")).unwrap();
    assert_eq!(m.role, Role::Assistant);
    let MessageKind::ToolRequest(req) = &m.kind else {
        panic!("{:?}", m.kind)
    };
    assert_eq!(req.calls.len(), 2);
    assert_eq!(req.calls[0].id.as_str(), "call_1");
    assert_eq!(req.calls[0].name, "read_file");
    assert_eq!(
        req.calls[0].arguments,
        json!({"path":"src/lib.rs","start_line":1})
    );
    assert_eq!(req.calls[1].arguments, json!({"query":"fn parse"}));
    assert!(
        req.calls
            .iter()
            .all(|c| c.approval_status == ApprovalStatus::Pending)
    );
}

#[test]
fn v0_text_with_tool_calls_becomes_two_messages_of_one_turn() {
    let input = fixture("v0_assistant_text_and_tool_calls.json");
    let err = read_message(&input).unwrap_err();
    assert!(matches!(err, ReadError::Expands { count: 2 }));
    let messages = read_messages(&input).unwrap();
    assert_eq!(messages.len(), 2);
    assert!(
        matches!(&messages[0].kind, MessageKind::Text(t) if t.text() == "Let me look at the file.")
    );
    assert!(
        matches!(&messages[1].kind, MessageKind::ToolRequest(r) if r.calls[0].id.as_str() == "call_9")
    );
    let turn = messages[0].turn_id().expect("shared turn id");
    assert_eq!(messages[1].turn_id(), Some(turn));
    assert!(messages[0].id < messages[1].id, "order by creation is kept");
}

#[test]
fn v0_tool_message_becomes_a_tool_result_linked_to_its_call() {
    let m = read_message(&fixture("v0_tool_result.json")).unwrap();
    assert_eq!(m.role, Role::Tool);
    let MessageKind::ToolResult(r) = &m.kind else {
        panic!()
    };
    assert_eq!(r.call_id.as_str(), "call_1");
    assert_eq!(m.tool_call_id().map(|c| c.as_str()), Some("call_1"));
    assert_eq!(
        r.outcome,
        ToolOutcome::Success {
            output: json!("fn parse() -> Ast {}")
        }
    );
}

#[test]
fn v0_tool_message_without_call_id_is_rejected() {
    let err = read_message(r#"{"role":"tool","content":"x"}"#).unwrap_err();
    assert_eq!(err.path(), Some("tool_call_id"));
}

#[test]
fn v0_conversation_expands_parts_and_names_results_after_their_calls() {
    let messages = read_messages(&fixture("v0_conversation.json")).unwrap();
    let kinds: Vec<_> = messages.iter().map(|m| (m.role, m.kind_name())).collect();
    assert_eq!(
        kinds,
        vec![
            (Role::System, KindName::Text),
            (Role::User, KindName::Text),
            (Role::User, KindName::Image),
            (Role::Assistant, KindName::ToolRequest),
            (Role::Tool, KindName::ToolResult),
            (Role::Assistant, KindName::Text),
        ]
    );
    let MessageKind::ToolResult(r) = &messages[4].kind else {
        panic!()
    };
    assert_eq!(r.tool_name, "read_file");
    let MessageKind::Image(img) = &messages[2].kind else {
        panic!()
    };
    assert_eq!(
        img.source,
        ImageSource::Url {
            url: "https://example.com/a.png".into()
        }
    );
}

#[test]
fn v1_text_keeps_its_id_and_timestamp() {
    let m = read_message(&fixture("v1_text.json")).unwrap();
    assert_eq!(m.id.to_string(), "0192f0c4-1111-7000-8000-000000000001");
    assert_eq!(m.created_at.to_rfc3339(), "2025-12-13T10:00:00+00:00");
    assert_eq!(m.updated_at, m.created_at);
    assert!(matches!(&m.kind, MessageKind::Text(t) if t.text() == "Hello!"));
}

#[test]
fn v1_missing_message_type_means_text() {
    let m = read_message(&fixture("v1_missing_message_type.json")).unwrap();
    assert!(matches!(&m.kind, MessageKind::Text(t) if t.text() == "Old message without a type"));
}

#[test]
fn v1_plan_string_becomes_a_plan_accepting_single_risks() {
    let m = read_message(&fixture("v1_plan.json")).unwrap();
    let MessageKind::Plan(plan) = &m.kind else {
        panic!("{:?}", m.kind)
    };
    assert_eq!(plan.goal, "Add logging");
    assert_eq!(plan.steps.len(), 2);
    assert_eq!(plan.steps[0].risks, vec!["noisy output".to_string()]);
    assert_eq!(
        plan.steps[0].tools_needed,
        vec!["replace_in_file".to_string()]
    );
}

#[test]
fn v1_invalid_plan_falls_back_to_text_keeping_the_content() {
    let m = read_message(&fixture("v1_invalid_plan.json")).unwrap();
    let MessageKind::Text(t) = &m.kind else {
        panic!("{:?}", m.kind)
    };
    assert_eq!(t.text(), r#"{"goal":"Add logging","steps":[]}"#);
}

#[test]
fn v1_question_object_becomes_a_question() {
    let m = read_message(&fixture("v1_question.json")).unwrap();
    let MessageKind::Question(q) = &m.kind else {
        panic!("{:?}", m.kind)
    };
    assert_eq!(q.severity, Severity::Critical);
    assert_eq!(q.default.as_deref(), Some("sqlite"));
    assert_eq!(q.options[1].value, "postgres");
}

#[test]
fn v1_tool_call_and_result_become_request_and_result() {
    let call = read_message(&fixture("v1_tool_call.json")).unwrap();
    let MessageKind::ToolRequest(r) = &call.kind else {
        panic!()
    };
    assert_eq!(r.calls[0].id.as_str(), "call_5");
    assert_eq!(r.calls[0].arguments, json!({"path":"src"}));
    let result = read_message(&fixture("v1_tool_result.json")).unwrap();
    assert_eq!(result.tool_call_id().map(|c| c.as_str()), Some("call_5"));
}

#[test]
fn v2_type_alias_is_read_as_kind() {
    let m = read_message(&fixture("v2_type_alias.json")).unwrap();
    let MessageKind::FileReference(f) = &m.kind else {
        panic!()
    };
    assert_eq!(
        f.range,
        Some(LineRange {
            start_line: 10,
            end_line: 20
        })
    );
    assert_eq!(f.resolution, FileResolution::Pending);
    assert_eq!(m.status, MessageStatus::Pending);
    // Written back, it uses `kind`, not `type`.
    let v: Value = serde_json::from_str(&m.to_json()).unwrap();
    assert_eq!(v["kind"], "file_reference");
    assert!(v.get("type").is_none());
}

#[test]
fn unknown_kind_is_kept_byte_for_byte() {
    let input = fixture("v2_unknown_kind.json");
    let m = read_message(&input).unwrap();
    assert_eq!(m.kind_name(), KindName::Unknown);
    assert_eq!(m.kind.name_str(), "hologram");
    assert_eq!(m.role, Role::Assistant);
    assert_eq!(
        m.to_json(),
        input,
        "written back unchanged, spacing and escapes included"
    );
    // Also inside an array of messages.
    let arr = format!("[{input}]");
    let ms = read_messages(&arr).unwrap();
    assert_eq!(serde_json::to_string(&ms).unwrap(), arr);
}

#[test]
fn unknown_v1_message_type_is_kept_unchanged() {
    let input = r#"{"role":"assistant","content":"x","message_type":"diagram"}"#;
    let m = read_message(input).unwrap();
    assert_eq!(m.kind.name_str(), "diagram");
    assert_eq!(m.to_json(), input);
}

#[test]
fn unknown_role_is_an_error_naming_it() {
    for input in [
        r#"{"role":"wizard","content":"hi"}"#,
        r#"{"role":"wizard","content":"hi","message_type":"text"}"#,
        r#"{"schema_version":2,"role":"wizard","kind":"text","data":{"parts":[]}}"#,
    ] {
        let err = read_message(input).unwrap_err();
        assert_eq!(err.path(), Some("role"), "{input}");
        assert!(err.to_string().contains("`wizard`"), "{err}");
    }
}

#[test]
fn bad_data_of_a_known_kind_names_the_field() {
    let err = read_message(
        r#"{"schema_version":2,"role":"assistant","kind":"tool_request","data":{"calls":[{"id":"c","arguments":{}}]}}"#,
    )
    .unwrap_err();
    assert_eq!(err.path(), Some("data.calls[0]"));
    assert!(err.to_string().contains("name"), "{err}");
}

#[test]
fn unreadable_json_is_a_syntax_error() {
    assert!(matches!(
        read_message("{\"role\":"),
        Err(ReadError::Syntax(_))
    ));
    assert!(matches!(read_message("42"), Err(ReadError::Invalid { .. })));
}

#[test]
fn migrated_messages_are_written_in_the_current_version() {
    let messages = read_messages(&fixture("v0_conversation.json")).unwrap();
    for m in messages {
        let v: Value = serde_json::from_str(&m.to_json()).unwrap();
        assert_eq!(v["schema_version"], CURRENT_SCHEMA_VERSION);
        // And reading the written form again gives the same message.
        assert_eq!(Message::from_json(&m.to_json()).unwrap(), m);
    }
}

#[test]
fn missing_envelope_fields_get_defaults() {
    let m = read_message(
        r#"{"role":"user","kind":"text","data":{"parts":[{"type":"text","text":"hi"}]}}"#,
    )
    .unwrap();
    assert_eq!(m.status, MessageStatus::Complete);
    assert!(m.metadata.is_empty());
    assert_eq!(m.updated_at, m.created_at);
}
