//! Each validation rule fails with the path of the field at fault, and validation reports every
//! problem, not the first.

use braid_protocol::*;
use serde_json::{Value, json};

fn message(role: &str, kind: &str, data: Value) -> Message {
    Message::from_json(
        &json!({"schema_version": 2, "role": role, "kind": kind, "data": data}).to_string(),
    )
    .unwrap()
}

fn problems(m: &Message) -> Vec<String> {
    match m.validate() {
        Ok(()) => vec![],
        Err(e) => e
            .problems()
            .iter()
            .map(|p| format!("{}: {}", p.path, p.message))
            .collect(),
    }
}

fn assert_problem(m: &Message, path: &str) {
    let found = problems(m);
    assert!(
        found.iter().any(|p| p.starts_with(&format!("{path}: "))),
        "expected a problem at {path}, got {found:?}"
    );
}

#[test]
fn empty_text_is_invalid() {
    let m = message(
        "user",
        "text",
        json!({"parts":[{"type":"text","text":"  "}]}),
    );
    assert_problem(&m, "data.parts[0].text");
}

#[test]
fn every_text_part_is_checked_and_reported_by_its_path() {
    let m = message(
        "assistant",
        "text",
        json!({"parts":[
            {"type":"reasoning","text":"Thinking."},
            {"type":"text","text":"Fine."},
            {"type":"text","text":" \n "},
            {"type":"text","text":"a\u{0}b"},
        ]}),
    );
    let found = problems(&m);
    assert_eq!(
        found,
        vec![
            "data.parts[2].text: must not be empty".to_owned(),
            "data.parts[3].text: must not contain a NUL character (U+0000)".to_owned(),
        ]
    );
    let fine = message(
        "assistant",
        "text",
        json!({"parts":[{"type":"reasoning","text":"Thinking."},{"type":"text","text":"Fine."}]}),
    );
    assert!(fine.validate().is_ok(), "{:?}", problems(&fine));
}

#[test]
fn text_without_parts_is_invalid() {
    assert_problem(&message("user", "text", json!({"parts":[]})), "data.parts");
}

#[test]
fn empty_text_is_allowed_while_streaming() {
    let m = message(
        "assistant",
        "text",
        json!({"parts":[{"type":"text","text":""}]}),
    )
    .with_status(MessageStatus::Streaming);
    assert!(m.validate().is_ok());
}

#[test]
fn end_line_before_start_line_is_invalid() {
    let m = message(
        "user",
        "file_reference",
        json!({"path":"a.rs","range":{"start_line":10,"end_line":2}}),
    );
    assert_problem(&m, "data.range.end_line");
}

#[test]
fn line_zero_is_invalid() {
    let m = message(
        "user",
        "file_reference",
        json!({"path":"a.rs","range":{"start_line":0,"end_line":2}}),
    );
    assert_problem(&m, "data.range.start_line");
}

#[test]
fn path_traversal_is_invalid() {
    let m = message("user", "file_reference", json!({"path":"../secrets.txt"}));
    assert_problem(&m, "data.path");
}

#[test]
fn path_with_nul_is_invalid() {
    let m = message("user", "file_reference", json!({"path":"a\u{0}b"}));
    assert_problem(&m, "data.path");
}

#[test]
fn empty_file_path_is_invalid() {
    assert_problem(
        &message("user", "file_reference", json!({"path":""})),
        "data.path",
    );
}

#[test]
fn tool_call_rules_report_every_problem_with_its_path() {
    let m = message(
        "assistant",
        "tool_request",
        json!({"calls":[
            {"id":"","name":"read_file","arguments":{}},
            {"id":"c2","name":"","arguments":[1,2]},
            {"id":"c3","name":"bad name","arguments":"{not json"},
            {"id":"c3","name":"x","arguments":{}}
        ]}),
    );
    let found = problems(&m);
    for path in [
        "data.calls[0].id",
        "data.calls[1].name",
        "data.calls[1].arguments",
        "data.calls[2].name",
        "data.calls[2].arguments",
        "data.calls[3].id",
    ] {
        assert!(
            found.iter().any(|p| p.starts_with(&format!("{path}: "))),
            "{path} in {found:?}"
        );
    }
    assert!(found.iter().any(|p| p.contains("duplicate call id `c3`")));
}

#[test]
fn tool_request_without_calls_is_invalid() {
    assert_problem(
        &message("assistant", "tool_request", json!({"calls":[]})),
        "data.calls",
    );
}

#[test]
fn tool_result_needs_its_call_id() {
    let m = message(
        "tool",
        "tool_result",
        json!({"call_id":"","tool_name":"x","status":"success","output":1}),
    );
    assert_problem(&m, "data.call_id");
}

#[test]
fn tool_error_needs_a_message() {
    let m = message(
        "tool",
        "tool_result",
        json!({"call_id":"c","status":"error","error":{"message":""}}),
    );
    assert_problem(&m, "data.error.message");
}

#[test]
fn plan_without_goal_or_steps_is_invalid() {
    let m = message("assistant", "plan", json!({"goal":"","steps":[]}));
    assert_problem(&m, "data.goal");
    assert_problem(&m, "data.steps");
}

#[test]
fn plan_step_rules() {
    let m = message(
        "assistant",
        "plan",
        json!({"goal":"g","steps":[
            {"step_number":0,"action":"","reason":"r"},
            {"step_number":2,"action":"a","reason":""},
            {"step_number":2,"action":"a","reason":"r"}
        ]}),
    );
    assert_problem(&m, "data.steps[0].step_number");
    assert_problem(&m, "data.steps[0].action");
    assert_problem(&m, "data.steps[1].reason");
    assert_problem(&m, "data.steps[2].step_number");
}

#[test]
fn question_without_options_is_invalid() {
    let m = message(
        "assistant",
        "question",
        json!({"question":"Which?","options":[]}),
    );
    assert_problem(&m, "data.options");
}

#[test]
fn question_option_and_answer_rules() {
    let m = message(
        "assistant",
        "question",
        json!({"question":"Which?","options":[{"label":"","value":"a"},{"label":"B","value":"a"}],
               "default":"z","answer":{"value":"q","answered_at":"2026-01-01T00:00:00Z"}}),
    );
    assert_problem(&m, "data.options[0].label");
    assert_problem(&m, "data.options[1].value");
    assert_problem(&m, "data.default");
    assert_problem(&m, "data.answer.value");
}

#[test]
fn image_source_rules() {
    assert_problem(
        &message(
            "user",
            "image",
            json!({"source":{"type":"url","url":"ftp://x"}}),
        ),
        "data.source.url",
    );
    let m = message(
        "user",
        "image",
        json!({"source":{"type":"base64","media_type":"text/plain","data":"!!"}}),
    );
    assert_problem(&m, "data.source.media_type");
    assert_problem(&m, "data.source.data");
    assert_problem(
        &message(
            "user",
            "image",
            json!({"source":{"type":"file_path","path":"../x.png"}}),
        ),
        "data.source.path",
    );
}

#[test]
fn mcp_request_rules() {
    let m = message(
        "assistant",
        "mcp_tool_request",
        json!({"server_name":"","tool_name":"echo","called_as":"mcp__s__echo","arguments":"x",
               "request_id":"","requested_at":"2026-01-01T00:00:00Z"}),
    );
    assert_problem(&m, "data.server_name");
    assert_problem(&m, "data.arguments");
    assert_problem(&m, "data.request_id");
}

#[test]
fn mcp_resource_needs_server_and_uri() {
    let m = message(
        "user",
        "mcp_resource",
        json!({"server_name":"","resource_uri":"","content":{"type":"text","text":"x"},
               "retrieved_at":"2026-01-01T00:00:00Z"}),
    );
    assert_problem(&m, "data.server_name");
    assert_problem(&m, "data.resource_uri");
}

#[test]
fn workflow_rules() {
    let m = message(
        "user",
        "workflow_execution",
        json!({"workflow_name":"","execution_id":"e","status":"failed","total_steps":2,
               "completed_steps":3,"started_at":"2026-01-02T00:00:00Z","updated_at":"2026-01-01T00:00:00Z"}),
    );
    assert_problem(&m, "data.workflow_name");
    assert_problem(&m, "data.completed_steps");
    assert_problem(&m, "data.error");
    assert_problem(&m, "data.updated_at");
}

#[test]
fn system_control_rules() {
    assert_problem(
        &message(
            "user",
            "system_control",
            json!({"type":"mode_change","from":"plan","to":"plan"}),
        ),
        "data.to",
    );
    assert_problem(
        &message(
            "assistant",
            "system_control",
            json!({"type":"summary","text":"s","replaces":[]}),
        ),
        "data.replaces",
    );
}

#[test]
fn dependency_edges_must_name_known_packages() {
    let m = message(
        "assistant",
        "project_structure",
        json!({"root_path":"/w","structure_type":"dependencies","generated_at":"2026-01-01T00:00:00Z",
               "content":{"packages":[{"id":"a","name":"a","ecosystem":"cargo","relation":"root"}],
                          "edges":[{"from":"a","to":"b"}]}}),
    );
    assert_problem(&m, "data.content.edges[0].to");
}

#[test]
fn role_must_fit_the_kind() {
    assert_problem(
        &message(
            "user",
            "tool_request",
            json!({"calls":[{"id":"c","name":"x","arguments":{}}]}),
        ),
        "role",
    );
    assert_problem(
        &message(
            "assistant",
            "tool_result",
            json!({"call_id":"c","status":"success","output":1}),
        ),
        "role",
    );
}

#[test]
fn system_role_is_valid_in_memory_but_not_storable() {
    let m = Message::new(
        Role::System,
        MessageKind::Text(TextMessage::plain("be brief")),
    );
    assert!(m.validate().is_ok());
    let err = m.validate_for_storage().unwrap_err();
    assert!(err.has_path("role"));
}

#[test]
fn every_storable_role_round_trips() {
    for role in [Role::User, Role::Assistant] {
        let m = Message::new(role, MessageKind::Text(TextMessage::plain("hi")));
        m.validate_for_storage().unwrap();
        assert_eq!(Message::from_json(&m.to_json()).unwrap().role, role);
    }
    let tool = message(
        "tool",
        "tool_result",
        json!({"call_id":"c1","status":"success","output":"ok"}),
    );
    tool.validate_for_storage().unwrap();
    assert_eq!(tool.tool_call_id().unwrap().as_str(), "c1");
}

#[test]
fn updated_before_created_is_invalid() {
    let mut m = Message::user_text("hi");
    m.updated_at = m.created_at - chrono::Duration::seconds(1);
    assert!(m.validate().unwrap_err().has_path("updated_at"));
}

#[test]
fn valid_messages_of_every_kind_pass() {
    let samples = [
        message(
            "user",
            "text",
            json!({"parts":[{"type":"text","text":"hi"}]}),
        ),
        message(
            "user",
            "file_reference",
            json!({"path":"src/lib.rs","range":{"start_line":1,"end_line":1}}),
        ),
        message(
            "user",
            "image",
            json!({"source":{"type":"base64","media_type":"image/png","data":"aGk="}}),
        ),
        message(
            "assistant",
            "tool_request",
            json!({"calls":[{"id":"c","name":"read_file","arguments":{"path":"a"}}]}),
        ),
        message(
            "tool",
            "tool_result",
            json!({"call_id":"c","tool_name":"read_file","status":"success","output":"x"}),
        ),
        message(
            "assistant",
            "plan",
            json!({"goal":"g","steps":[{"step_number":1,"action":"a","reason":"r"}]}),
        ),
        message(
            "assistant",
            "question",
            json!({"question":"q?","options":[{"label":"Yes","value":"y"}],"default":"y"}),
        ),
        message(
            "user",
            "system_control",
            json!({"type":"mode_change","from":"plan","to":"act"}),
        ),
        message(
            "assistant",
            "processing",
            json!({"activity":"Reading files","progress":{"done":1,"total":3}}),
        ),
    ];
    for m in samples {
        assert_eq!(problems(&m), Vec::<String>::new(), "{}", m.to_json());
    }
}
