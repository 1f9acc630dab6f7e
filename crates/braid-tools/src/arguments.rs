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

/// How deep [`offered_schema`] inlines `$ref`s; a deeper (or recursive) schema keeps its
/// definitions as they are.
const MAX_INLINED_DEPTH: usize = 8;

/// Schema keywords that describe rather than constrain, or whose limits the argument check
/// reports to the model in words when a call breaks them: left out of what a model is offered.
const OMITTED_KEYWORDS: [&str; 9] = [
    "$schema",
    "title",
    "format",
    "default",
    "minimum",
    "maximum",
    "examples",
    "additionalProperties",
    "$comment",
];

/// The schema of a tool's arguments as a model is offered it: the same arguments in fewer
/// tokens. Local `$ref`s are inlined (unless recursive or deeper than [`MAX_INLINED_DEPTH`]),
/// `oneOf` lists of constants become one `enum`, an optional value's `["T", "null"]` type becomes
/// `"T"`, and keywords the check enforces anyway ([`OMITTED_KEYWORDS`]) are left out, as is the
/// top-level description (the tool's own says what it does). The registered schema, which every
/// call is checked against, is unchanged: a call that breaks a dropped limit gets an
/// `invalid_arguments` error that names it.
pub fn offered_schema(schema: &Value) -> Value {
    let definitions = ["$defs", "definitions"]
        .iter()
        .find_map(|k| schema.get(*k).and_then(Value::as_object).map(|d| (*k, d)));
    let inlined = match definitions {
        Some((key, defs)) => {
            let mut without = schema.clone();
            if let Value::Object(map) = &mut without {
                map.remove(key);
            }
            inline(&without, key, defs, 0)
        }
        None => Some(schema.clone()),
    };
    // A schema whose references cannot all be inlined is offered with its definitions.
    let mut offered = compact(&inlined.unwrap_or_else(|| schema.clone()));
    if let Value::Object(map) = &mut offered {
        map.remove("description");
    }
    offered
}

/// `value` with every `#/<key>/<name>` reference replaced by its definition; `None` when one
/// is unknown, recursive or too deep.
fn inline(
    value: &Value,
    key: &str,
    defs: &serde_json::Map<String, Value>,
    depth: usize,
) -> Option<Value> {
    match value {
        Value::Object(map) => {
            if let Some(Value::String(reference)) = map.get("$ref") {
                let name = reference.strip_prefix(&format!("#/{key}/"))?;
                if depth >= MAX_INLINED_DEPTH {
                    return None;
                }
                let mut target = inline(defs.get(name)?, key, defs, depth + 1)?;
                // The referring place's own words (and siblings) take precedence.
                if let Value::Object(target_map) = &mut target {
                    for (k, v) in map.iter().filter(|(k, _)| *k != "$ref") {
                        target_map.insert(k.clone(), inline(v, key, defs, depth)?);
                    }
                }
                return Some(target);
            }
            let mut out = serde_json::Map::with_capacity(map.len());
            for (k, v) in map {
                out.insert(k.clone(), inline(v, key, defs, depth)?);
            }
            Some(Value::Object(out))
        }
        Value::Array(items) => items
            .iter()
            .map(|v| inline(v, key, defs, depth))
            .collect::<Option<Vec<_>>>()
            .map(Value::Array),
        other => Some(other.clone()),
    }
}

/// The schema without omitted keywords, with constant lists as enums and nullable types as
/// plain ones. Property names are kept whatever they are called.
fn compact(value: &Value) -> Value {
    let Value::Object(map) = value else {
        return value.clone();
    };
    let mut out = serde_json::Map::with_capacity(map.len());
    for (k, v) in map {
        if OMITTED_KEYWORDS.contains(&k.as_str()) {
            continue;
        }
        let v = match k.as_str() {
            "properties" | "$defs" | "definitions" => match v {
                Value::Object(props) => Value::Object(
                    props
                        .iter()
                        .map(|(name, schema)| (name.clone(), compact(schema)))
                        .collect(),
                ),
                other => other.clone(),
            },
            "type" => match v {
                Value::Array(types) => {
                    let kept: Vec<&Value> = types
                        .iter()
                        .filter(|t| t.as_str() != Some("null"))
                        .collect();
                    match kept.as_slice() {
                        [one] => (*one).clone(),
                        _ => v.clone(),
                    }
                }
                other => other.clone(),
            },
            "items" | "not" | "if" | "then" | "else" => compact(v),
            "anyOf" | "oneOf" | "allOf" | "prefixItems" => match v {
                Value::Array(items) => Value::Array(items.iter().map(compact).collect()),
                other => other.clone(),
            },
            _ => v.clone(),
        };
        out.insert(k.clone(), v);
    }
    // An array's items repeat what the array's own description says.
    if out.contains_key("description")
        && let Some(Value::Object(items)) = out.get_mut("items")
    {
        items.remove("description");
    }
    if let Some(Value::Array(choices)) = out.get("oneOf").or_else(|| out.get("anyOf")) {
        if let Some(values) = constant_choices(choices) {
            out.remove("oneOf");
            out.remove("anyOf");
            out.insert("type".to_owned(), Value::String("string".to_owned()));
            out.insert("enum".to_owned(), Value::Array(values));
        } else if let Some(one) = one_besides_null(choices) {
            let key = if out.contains_key("oneOf") {
                "oneOf"
            } else {
                "anyOf"
            };
            out.remove(key);
            if let Value::Object(inner) = one {
                for (k, v) in inner {
                    out.entry(k).or_insert(v);
                }
            }
        }
    }
    Value::Object(out)
}

/// The values of a list of string constants (`{"const": "a"}`...), when that is what it is.
fn constant_choices(choices: &[Value]) -> Option<Vec<Value>> {
    choices
        .iter()
        .map(|c| match c.get("const") {
            Some(Value::String(s)) => Some(Value::String(s.clone())),
            _ => None,
        })
        .collect::<Option<Vec<_>>>()
        .filter(|v| !v.is_empty())
}

/// The one choice of a list that besides it allows only `null`.
fn one_besides_null(choices: &[Value]) -> Option<Value> {
    let kept: Vec<&Value> = choices
        .iter()
        .filter(|c| c.get("type").and_then(Value::as_str) != Some("null"))
        .collect();
    match kept.as_slice() {
        [one] if kept.len() < choices.len() => Some((*one).clone()),
        _ => None,
    }
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

    #[test]
    fn the_offered_schema_inlines_references_and_drops_what_the_check_enforces() {
        let schema = json!({
            "description": "Arguments of `t`.",
            "type": "object",
            "additionalProperties": false,
            "properties": {
                "path": {"type": ["string", "null"], "description": "Where."},
                "max": {"type": ["integer", "null"], "format": "uint32", "minimum": 1, "maximum": 9},
                "mode": {"$ref": "#/$defs/Mode", "description": "How."},
                "default": {"type": "string", "default": "x"},
                "steps": {"type": "array", "description": "The steps.", "items": {"$ref": "#/$defs/Step"}}
            },
            "required": ["steps"],
            "$defs": {
                "Mode": {"description": "A mode.", "oneOf": [
                    {"const": "fast", "type": "string", "description": "Quick."},
                    {"const": "slow", "type": "string", "description": "Careful."}
                ]},
                "Step": {"description": "One step.", "type": "object",
                         "properties": {"n": {"type": "integer"}}, "required": ["n"]}
            }
        });
        assert_eq!(
            offered_schema(&schema),
            json!({
                "type": "object",
                "properties": {
                    "path": {"type": "string", "description": "Where."},
                    "max": {"type": "integer"},
                    "mode": {"type": "string", "enum": ["fast", "slow"], "description": "How."},
                    "default": {"type": "string"},
                    "steps": {"type": "array", "description": "The steps.", "items": {
                        "type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]
                    }}
                },
                "required": ["steps"]
            })
        );
    }

    #[test]
    fn a_recursive_schema_is_offered_with_its_definitions() {
        let schema = json!({
            "type": "object",
            "properties": {"tree": {"$ref": "#/$defs/Node"}},
            "$defs": {"Node": {"type": "object", "properties": {
                "children": {"type": "array", "items": {"$ref": "#/$defs/Node"}}
            }}}
        });
        let offered = offered_schema(&schema);
        assert_eq!(offered["properties"]["tree"]["$ref"], "#/$defs/Node");
        assert!(offered["$defs"]["Node"].is_object());
        // Still a schema that accepts what the registered one accepts.
        validate_arguments(
            "t",
            &offered,
            &json!({"tree": {"children": [{"children": []}]}}),
        )
        .unwrap();
    }

    #[test]
    fn arguments_the_offered_schema_describes_pass_the_full_check() {
        let offered = offered_schema(&schema());
        let args = json!({"path": "a", "start_line": 3, "mode": "regex", "steps": [{"n": 1}]});
        validate_arguments("t", &offered, &args).unwrap();
        validate_arguments("t", &schema(), &args).unwrap();
        // What the offer leaves out is still checked: the minimum is named in the error.
        let err =
            validate_arguments("t", &schema(), &json!({"path": "a", "start_line": 0})).unwrap_err();
        assert!(err.message.contains("start_line"), "{}", err.message);
    }
}
