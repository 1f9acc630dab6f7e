//! Checking a call's arguments against its tool's JSON Schema, and parsing them into a typed
//! struct. A model that sends bad arguments gets one recoverable `invalid_arguments` error that
//! lists every problem, so it can correct the call in one go.
//!
//! The checker covers the part of JSON Schema that tool schemas use: `type` (one or several),
//! `properties`, `required`, `additionalProperties: false`, `items`, `enum`, `const`, `minimum`,
//! `maximum`, `anyOf` / `oneOf` and local `$ref`s (`#/$defs/...`, `#/definitions/...`).

use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::tool::{ToolError, ToolErrorCode};

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

/// Checks `args` against `schema`; the error names every problem with its path.
pub fn validate_arguments(tool: &str, schema: &Value, args: &Value) -> Result<(), ToolError> {
    let mut problems = Vec::new();
    if !args.is_object() {
        problems.push(format!(
            "arguments: must be a JSON object, found {}",
            type_name(args)
        ));
    } else {
        check(schema, schema, args, "arguments", &mut problems, 0);
    }
    if problems.is_empty() {
        Ok(())
    } else {
        Err(ToolError::new(
            ToolErrorCode::InvalidArguments,
            format!("invalid arguments for `{tool}`: {}", problems.join("; ")),
        )
        .with_details(serde_json::json!({ "problems": problems })))
    }
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

fn type_name(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(n) if n.is_i64() || n.is_u64() => "an integer",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

fn has_type(value: &Value, ty: &str) -> bool {
    match ty {
        "null" => value.is_null(),
        "boolean" => value.is_boolean(),
        "integer" => {
            value.is_i64() || value.is_u64() || value.as_f64().is_some_and(|f| f.fract() == 0.0)
        }
        "number" => value.is_number(),
        "string" => value.is_string(),
        "array" => value.is_array(),
        "object" => value.is_object(),
        _ => true,
    }
}

fn resolve<'a>(root: &'a Value, reference: &str) -> Option<&'a Value> {
    let pointer = reference.strip_prefix('#')?;
    root.pointer(pointer)
}

/// Refs can be recursive; a schema deeper than this is accepted as is.
const MAX_DEPTH: usize = 32;

fn check(
    root: &Value,
    schema: &Value,
    value: &Value,
    at: &str,
    problems: &mut Vec<String>,
    depth: usize,
) {
    if depth > MAX_DEPTH {
        return;
    }
    let Value::Object(schema_map) = schema else {
        // `true` / `false` schemas, or a schema we cannot read: `false` refuses everything.
        if schema == &Value::Bool(false) {
            problems.push(format!("{at}: is not allowed"));
        }
        return;
    };
    if let Some(Value::String(reference)) = schema_map.get("$ref")
        && let Some(target) = resolve(root, reference)
    {
        check(root, target, value, at, problems, depth + 1);
    }
    if let Some(types) = schema_map.get("type") {
        let allowed: Vec<&str> = match types {
            Value::String(t) => vec![t.as_str()],
            Value::Array(ts) => ts.iter().filter_map(Value::as_str).collect(),
            _ => Vec::new(),
        };
        if !allowed.is_empty() && !allowed.iter().any(|t| has_type(value, t)) {
            problems.push(format!(
                "{at}: must be {}, found {}",
                allowed.join(" or "),
                type_name(value)
            ));
            return;
        }
    }
    if let Some(Value::Array(options)) = schema_map.get("enum")
        && !options.contains(value)
    {
        let names: Vec<String> = options.iter().map(Value::to_string).collect();
        problems.push(format!(
            "{at}: must be one of {}, found {value}",
            names.join(", ")
        ));
    }
    if let Some(expected) = schema_map.get("const")
        && expected != value
    {
        problems.push(format!("{at}: must be {expected}, found {value}"));
    }
    if let Some(n) = value.as_f64() {
        if let Some(min) = schema_map.get("minimum").and_then(Value::as_f64)
            && n < min
        {
            problems.push(format!("{at}: must be at least {min}, found {n}"));
        }
        if let Some(max) = schema_map.get("maximum").and_then(Value::as_f64)
            && n > max
        {
            problems.push(format!("{at}: must be at most {max}, found {n}"));
        }
    }
    for key in ["anyOf", "oneOf"] {
        if let Some(Value::Array(branches)) = schema_map.get(key) {
            let mut best: Option<Vec<String>> = None;
            for branch in branches {
                let mut branch_problems = Vec::new();
                check(root, branch, value, at, &mut branch_problems, depth + 1);
                if branch_problems.is_empty() {
                    best = None;
                    break;
                }
                if best
                    .as_ref()
                    .is_none_or(|b| branch_problems.len() < b.len())
                {
                    best = Some(branch_problems);
                }
            }
            if let Some(closest) = best {
                problems.extend(closest);
            }
        }
    }
    if let Some(Value::Array(all)) = schema_map.get("allOf") {
        for branch in all {
            check(root, branch, value, at, problems, depth + 1);
        }
    }
    match value {
        Value::Object(object) => {
            if let Some(Value::Array(required)) = schema_map.get("required") {
                for name in required.iter().filter_map(Value::as_str) {
                    if !object.contains_key(name) {
                        problems.push(format!("{at}.{name}: is required"));
                    }
                }
            }
            let properties = schema_map.get("properties").and_then(Value::as_object);
            for (name, field) in object {
                let field_at = format!("{at}.{name}");
                match properties.and_then(|p| p.get(name)) {
                    Some(field_schema) => {
                        check(root, field_schema, field, &field_at, problems, depth + 1)
                    }
                    None => match schema_map.get("additionalProperties") {
                        Some(Value::Bool(false)) => {
                            let known: Vec<&str> = properties
                                .map(|p| p.keys().map(String::as_str).collect())
                                .unwrap_or_default();
                            problems.push(format!(
                                "{field_at}: unknown argument (expected one of: {})",
                                known.join(", ")
                            ));
                        }
                        Some(extra @ Value::Object(_)) => {
                            check(root, extra, field, &field_at, problems, depth + 1)
                        }
                        _ => {}
                    },
                }
            }
        }
        Value::Array(items) => {
            if let Some(item_schema) = schema_map.get("items") {
                for (i, item) in items.iter().enumerate() {
                    check(
                        root,
                        item_schema,
                        item,
                        &format!("{at}[{i}]"),
                        problems,
                        depth + 1,
                    );
                }
            }
        }
        _ => {}
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
            "arguments.start_line: must be integer or null, found a string",
            "arguments.mode: must be one of",
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
        assert!(err.message.contains("at least 1"));
    }
}
