//! `braid message migrate` and `braid message validate`: pure functions from input text to what
//! is printed, so they are tested without spawning a process.

use braid_protocol::migrate::read_messages;
use braid_protocol::validate::{FieldPath, Problems, Validate};

/// What a command prints and its exit code.
#[derive(Debug, PartialEq, Eq)]
pub struct Outcome {
    pub stdout: String,
    pub stderr: String,
    pub code: u8,
}

impl Outcome {
    fn error(message: impl std::fmt::Display) -> Self {
        Self {
            stdout: String::new(),
            stderr: format!("error: {message}"),
            code: 2,
        }
    }
}

/// Whether the input was one message or an array, so the output has the same shape.
fn is_array(input: &str) -> bool {
    input.trim_start().starts_with('[')
}

/// Prints the input's messages in the current schema version.
pub fn migrate(input: &str) -> Outcome {
    let messages = match read_messages(input) {
        Ok(m) => m,
        Err(e) => return Outcome::error(e),
    };
    let printed = if messages.len() == 1 && !is_array(input) {
        serde_json::to_string_pretty(&messages[0])
    } else {
        serde_json::to_string_pretty(&messages)
    };
    match printed {
        Ok(stdout) => Outcome {
            stdout,
            stderr: String::new(),
            code: 0,
        },
        Err(e) => Outcome::error(e),
    }
}

/// Prints every problem of the input's messages as `path: problem`; exit code 1 when any.
pub fn validate(input: &str) -> Outcome {
    let messages = match read_messages(input) {
        Ok(m) => m,
        Err(e) => {
            return Outcome {
                stdout: e.to_string(),
                stderr: String::new(),
                code: 1,
            };
        }
    };
    let array = is_array(input) || messages.len() > 1;
    let mut problems = Problems::default();
    for (i, m) in messages.iter().enumerate() {
        let at = if array {
            FieldPath::root().index(i)
        } else {
            FieldPath::root()
        };
        m.validate_at(&at, &mut problems);
        if let Err(errors) = m.validate_for_storage() {
            // Only the storage rule on top of plain validation: the role.
            for p in errors.problems().iter().filter(|p| p.path == "role") {
                problems.push(&at.field("role"), p.message.clone());
            }
        }
    }
    match problems.into_result() {
        Ok(()) => Outcome {
            stdout: String::new(),
            stderr: String::new(),
            code: 0,
        },
        Err(errors) => Outcome {
            stdout: dedup_lines(&errors.to_string()),
            stderr: String::new(),
            code: 1,
        },
    }
}

fn dedup_lines(text: &str) -> String {
    let mut seen = std::collections::HashSet::new();
    text.lines()
        .filter(|l| seen.insert(*l))
        .collect::<Vec<_>>()
        .join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Value;

    #[test]
    fn migrate_turns_openai_tool_calls_into_a_pending_tool_request() {
        let input = r#"{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"read_file","arguments":"{\"path\":\"a.rs\"}"}}]}"#;
        let out = migrate(input);
        assert_eq!(out.code, 0, "{}", out.stderr);
        let v: Value = serde_json::from_str(&out.stdout).unwrap();
        assert_eq!(v["kind"], "tool_request");
        assert_eq!(v["schema_version"], 2);
        assert_eq!(v["data"]["calls"][0]["id"], "c1");
        assert_eq!(
            v["data"]["calls"][0]["arguments"],
            serde_json::json!({"path":"a.rs"})
        );
        assert_eq!(v["data"]["calls"][0]["approval_status"], "pending");
    }

    #[test]
    fn messages_that_leave_out_fields_or_use_plain_forms_migrate_and_validate() {
        // Issue 24: the three messages `braid message migrate` used to refuse.
        let input = r##"[
            {"role":"user","kind":"mcp_resource","data":{"server_name":"docs","resource_uri":"file:///README.md","content":"# Readme","mime_type":"text/markdown"}},
            {"role":"assistant","kind":"mcp_tool_request","data":{"server_name":"everything","tool_name":"echo","arguments":{"message":"hi"},"request_id":"call_1"}},
            {"role":"assistant","kind":"processing","data":{}}
        ]"##;
        let out = migrate(input);
        assert_eq!(out.code, 0, "{}", out.stderr);
        let v: Value = serde_json::from_str(&out.stdout).unwrap();
        assert_eq!(
            v[0]["data"]["content"],
            serde_json::json!({"type":"text","text":"# Readme"})
        );
        assert_eq!(v[1]["data"]["called_as"], "echo");
        assert!(v[2]["data"]["activity"].is_string());
        let checked = validate(input);
        assert_eq!(checked.code, 0, "{}", checked.stdout);
        // What migrate printed validates too.
        assert_eq!(validate(&out.stdout).code, 0);
    }

    #[test]
    fn migrate_keeps_arrays_as_arrays() {
        let out = migrate(r#"[{"role":"user","content":"hi"}]"#);
        assert_eq!(out.code, 0);
        assert!(
            serde_json::from_str::<Value>(&out.stdout)
                .unwrap()
                .is_array()
        );
    }

    #[test]
    fn unreadable_json_is_a_clear_error_not_a_panic() {
        let out = migrate("{not json");
        assert_eq!(out.code, 2);
        assert!(out.stderr.starts_with("error: not valid JSON"));
    }

    #[test]
    fn validate_prints_every_problem_and_exits_1() {
        let input = r#"{"schema_version":2,"role":"assistant","kind":"tool_request","data":{"calls":[{"id":"","name":"","arguments":"x"}]}}"#;
        let out = validate(input);
        assert_eq!(out.code, 1);
        let lines: Vec<&str> = out.stdout.lines().collect();
        assert!(
            lines.contains(&"data.calls[0].id: must not be empty"),
            "{lines:?}"
        );
        assert!(lines.contains(&"data.calls[0].name: must not be empty"));
        assert!(
            lines
                .iter()
                .any(|l| l.starts_with("data.calls[0].arguments: must be a JSON object"))
        );
    }

    #[test]
    fn validate_rejects_the_system_role_for_storage() {
        let out = validate(r#"{"role":"system","content":"be nice"}"#);
        assert_eq!(out.code, 1);
        assert!(
            out.stdout
                .starts_with("role: the system role is not stored"),
            "{}",
            out.stdout
        );
    }

    #[test]
    fn validate_accepts_a_good_message() {
        let out = validate(r#"{"role":"user","content":"hello"}"#);
        assert_eq!(
            out,
            Outcome {
                stdout: String::new(),
                stderr: String::new(),
                code: 0
            }
        );
    }
}
