//! The JSON Schema generated from the Rust types documents every kind and payload variant.

use braid_protocol::*;

#[test]
fn message_schema_lists_every_kind() {
    let schema = serde_json::to_string(&schemars::schema_for!(Message)).unwrap();
    for kind in KindName::ALL {
        if kind != KindName::Unknown {
            assert!(
                schema.contains(&format!("\"{}\"", kind.as_str())),
                "{kind} missing from the schema"
            );
        }
    }
    assert!(schema.contains("schema_version"));
}

#[test]
fn send_message_schema_lists_every_payload_type() {
    let schema = serde_json::to_string(&schemars::schema_for!(SendMessageRequest)).unwrap();
    for t in MessagePayload::TYPES {
        assert!(schema.contains(&format!("\"{t}\"")), "{t} missing");
    }
}

#[test]
fn state_schema_lists_every_state() {
    let schema = serde_json::to_string(&schemars::schema_for!(ContextState)).unwrap();
    for k in StateKind::ALL {
        assert!(
            schema.contains(&format!("\"{}\"", k.as_str())),
            "{k} missing"
        );
    }
}
