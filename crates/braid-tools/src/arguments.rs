//! Checking a call's arguments against its tool's JSON Schema, and parsing them into a typed
//! struct. A model that sends bad arguments gets one recoverable `invalid_arguments` error that
//! lists every problem, so it can correct the call in one go.
//!
//! Schemas are compiled once, when a tool is registered, by the `jsonschema` crate: the whole of
//! draft 2020-12 (and the draft a schema names in `$schema`), so what an MCP server's schema
//! forbids (`oneOf`, `pattern`, `minLength`, `$ref`s...) is refused before the call. Only
//! references inside the schema resolve: nothing is fetched from files or the network.

use jsonschema::error::ValidationErrorKind;
use jsonschema::paths::LocationSegment;
use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::tool::{ToolError, ToolErrorCode};

/// The most problems one error lists; a call wrong everywhere still gets a readable answer.
pub const MAX_LISTED_PROBLEMS: usize = 20;

/// The JSON Schema of `T`, as a tool's `parameters`.
pub fn schema_of<T: JsonSchema>() -> Value {
    let mut schema = serde_json::to_value(schemars::schema_for!(T)).unwrap_or(Value::Null);
    // `$schema` and `title` mean nothing to a model and cost tokens.
    if let Value::Object(map) = &mut schema {
        map.remove("$schema");
        map.remove("title");
    }
    schema
}

/// A tool's argument schema, compiled once and checked on every call.
pub struct ArgumentSchema {
    validator: jsonschema::Validator,
}

impl std::fmt::Debug for ArgumentSchema {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ArgumentSchema").finish_non_exhaustive()
    }
}

impl ArgumentSchema {
    /// Compiles `schema`; the error says why it is not a usable JSON Schema.
    pub fn compile(schema: &Value) -> Result<Self, String> {
        jsonschema::validator_for(schema)
            .map(|validator| Self { validator })
            .map_err(|e| e.to_string())
    }

    /// Checks `args`; the error names every problem with its path (`arguments.steps[0].n`).
    pub fn check(&self, tool: &str, args: &Value) -> Result<(), ToolError> {
        let mut problems = Vec::new();
        if !args.is_object() {
            problems.push(format!(
                "arguments: must be a JSON object, found {}",
                type_name(args)
            ));
        } else {
            for error in self.validator.iter_errors(args) {
                let at = path_of(error.instance_path());
                match error.kind() {
                    ValidationErrorKind::Required { property } => {
                        let name = property
                            .as_str()
                            .map_or_else(|| property.to_string(), str::to_owned);
                        problems.push(format!("{at}.{name}: is required"));
                    }
                    ValidationErrorKind::AdditionalProperties { unexpected } => {
                        for name in unexpected.iter().take(MAX_LISTED_PROBLEMS) {
                            problems.push(format!("{at}.{name}: unknown argument"));
                        }
                    }
                    _ => problems.push(format!("{at}: {}", error.masked())),
                }
                if problems.len() >= MAX_LISTED_PROBLEMS {
                    break;
                }
            }
        }
        if problems.is_empty() {
            Ok(())
        } else {
            problems.truncate(MAX_LISTED_PROBLEMS);
            Err(ToolError::new(
                ToolErrorCode::InvalidArguments,
                format!("invalid arguments for `{tool}`: {}", problems.join("; ")),
            )
            .with_details(serde_json::json!({ "problems": problems })))
        }
    }
}

/// Checks `args` against `schema` once (registered tools use their compiled
/// [`ArgumentSchema`]); a schema that does not compile is reported as the tool's fault.
pub fn validate_arguments(tool: &str, schema: &Value, args: &Value) -> Result<(), ToolError> {
    let compiled = ArgumentSchema::compile(schema).map_err(|reason| {
        ToolError::new(
            ToolErrorCode::Failed,
            format!("tool `{tool}` has an unusable argument schema: {reason}"),
        )
    })?;
    compiled.check(tool, args)
}

/// Parses checked arguments into `T`; a failure is a recoverable `invalid_arguments` error.
pub fn parse_arguments<T: DeserializeOwned>(tool: &str, args: Value) -> Result<T, ToolError> {
    serde_json::from_value(args).map_err(|e| {
        ToolError::new(
            ToolErrorCode::InvalidArguments,
            format!("invalid arguments for `{tool}`: {e}"),
        )
    })
}

/// `arguments.steps[0].n` for the JSON pointer `/steps/0/n`.
fn path_of(location: &jsonschema::paths::Location) -> String {
    let mut path = String::from("arguments");
    for segment in location {
        match segment {
            LocationSegment::Property(name) => {
                path.push('.');
                path.push_str(&name);
            }
            LocationSegment::Index(i) => path.push_str(&format!("[{i}]")),
        }
    }
    path
}

fn type_name(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;
    use serde_json::json;

    fn schema() -> Value {
        json!({
            "type": "object",
            "properties": {
                "path": {"type": "string"},
                "start_line": {"type": ["integer", "null"], "minimum": 1},
                "mode": {"enum": ["literal", "regex"]},
                "steps": {"type": "array", "items": {"$ref": "#/$defs/Step"}}
            },
            "required": ["path"],
            "additionalProperties": false,
            "$defs": {"Step": {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}}
        })
    }

    #[test]
    fn good_arguments_pass() {
        validate_arguments(
            "t",
            &schema(),
            &json!({"path": "a", "start_line": 3, "mode": "regex", "steps": [{"n": 1}]}),
        )
        .unwrap();
    }

    #[test]
    fn every_problem_is_listed_with_its_path() {
        let err = validate_arguments(
            "read_file",
            &schema(),
            &json!({"start_line": "3", "mode": "glob", "extra": 1, "steps": [{}]}),
        )
        .unwrap_err();
        assert_eq!(err.code, ToolErrorCode::InvalidArguments);
        let problems = err.details.unwrap()["problems"].as_array().unwrap().len();
        assert_eq!(problems, 5, "{}", err.message);
        for needle in [
            "arguments.path: is required",
            "arguments.start_line: value is not of types",
            "arguments.mode: value is not one of",
            "arguments.extra: unknown argument",
            "arguments.steps[0].n: is required",
        ] {
            assert!(
                err.message.contains(needle),
                "missing `{needle}` in {}",
                err.message
            );
        }
    }

    #[test]
    fn non_object_arguments_are_refused() {
        let err = validate_arguments("t", &schema(), &json!("path=a")).unwrap_err();
        assert!(
            err.message
                .contains("must be a JSON object, found a string")
        );
    }

    #[test]
    fn minimum_is_enforced() {
        let err =
            validate_arguments("t", &schema(), &json!({"path": "a", "start_line": 0})).unwrap_err();
        assert!(
            err.message.contains("arguments.start_line"),
            "{}",
            err.message
        );
        assert!(err.message.contains("minimum of 1"), "{}", err.message);
    }

    #[test]
    fn what_an_mcp_schema_forbids_is_refused_before_the_call() {
        // Keywords a server's schema may use that a hand-written subset would let through.
        let schema = ArgumentSchema::compile(&json!({
            "type": "object",
            "properties": {
                "name": {"type": "string", "minLength": 2, "pattern": "^[a-z]+$"},
                "target": {"oneOf": [
                    {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"], "additionalProperties": false},
                    {"type": "object", "properties": {"url": {"type": "string", "format": "uri"}}, "required": ["url"], "additionalProperties": false}
                ]},
                "tags": {"type": "array", "items": {"$ref": "#/$defs/tag"}, "uniqueItems": true, "maxItems": 2}
            },
            "$defs": {"tag": {"type": "string", "enum": ["a", "b", "c"]}}
        }))
        .unwrap();
        schema
            .check(
                "t",
                &json!({"name": "ok", "target": {"path": "x"}, "tags": ["a", "b"]}),
            )
            .unwrap();
        for (args, at) in [
            (json!({"name": "x"}), "arguments.name"),
            (json!({"name": "Not-lower"}), "arguments.name"),
            (
                json!({"target": {"path": "x", "url": "y"}}),
                "arguments.target",
            ),
            (json!({"tags": ["a", "a"]}), "arguments.tags"),
            (json!({"tags": ["a", "b", "c"]}), "arguments.tags"),
            (json!({"tags": ["z"]}), "arguments.tags[0]"),
        ] {
            let err = schema.check("t", &args).unwrap_err();
            assert!(err.message.contains(at), "{args}: {}", err.message);
        }
    }

    #[test]
    fn a_schema_that_does_not_compile_is_named_as_the_tools_fault() {
        let broken = json!({"type": "object", "properties": {"a": {"$ref": "#/$defs/missing"}}});
        let err = validate_arguments("t", &broken, &json!({"a": 1})).unwrap_err();
        assert_eq!(err.code, ToolErrorCode::Failed);
        assert!(
            err.message.contains("unusable argument schema"),
            "{}",
            err.message
        );
    }

    #[test]
    fn a_call_wrong_everywhere_lists_a_bounded_number_of_problems() {
        let schema = json!({"type": "object", "additionalProperties": {"type": "string"}});
        let args: serde_json::Map<String, Value> =
            (0..100).map(|i| (format!("k{i}"), json!(i))).collect();
        let err = validate_arguments("t", &schema, &Value::Object(args)).unwrap_err();
        let listed = err.details.unwrap()["problems"].as_array().unwrap().len();
        assert_eq!(listed, MAX_LISTED_PROBLEMS);
    }
}
