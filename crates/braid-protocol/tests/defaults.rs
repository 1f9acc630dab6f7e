//! Reading messages written elsewhere (issue 24): every field a writer may leave out gets its
//! default, plain shapes are read and written back in the canonical form, and the generated JSON
//! Schema says what the reader accepts (values generated from the schema are read, and every
//! field the schema calls optional may be left out).

use crate::strategies;

use std::collections::BTreeSet;

use braid_protocol::migrate::read_message;
use braid_protocol::*;
use proptest::prelude::*;
use serde_json::{Map, Value, json};

fn read_valid(value: Value) -> Message {
    let m = read_message(&value.to_string()).unwrap_or_else(|e| panic!("{value}: {e}"));
    m.validate_for_storage()
        .unwrap_or_else(|e| panic!("{value}: {e}"));
    m
}

fn written(m: &Message) -> Value {
    serde_json::from_str(&m.to_json()).unwrap()
}

#[test]
fn mcp_resource_with_plain_string_content_reads_as_text() {
    let m = read_valid(json!({
        "role": "user", "kind": "mcp_resource",
        "data": {"server_name": "docs", "resource_uri": "file:///README.md",
                 "content": "# Readme", "mime_type": "text/markdown"}
    }));
    let MessageKind::McpResource(r) = &m.kind else {
        panic!("{:?}", m.kind)
    };
    assert_eq!(
        r.content,
        ResourceContent::Text {
            text: "# Readme".into()
        }
    );
    assert_eq!(r.mime_type.as_deref(), Some("text/markdown"));
    assert_eq!(
        r.retrieved_at, m.created_at,
        "an absent time is the message's"
    );
    assert_eq!(
        written(&m)["data"]["content"],
        json!({"type": "text", "text": "# Readme"})
    );
}

#[test]
fn mcp_tool_request_without_called_as_was_called_by_its_tool_name() {
    let m = read_valid(json!({
        "role": "assistant", "kind": "mcp_tool_request",
        "data": {"server_name": "everything", "tool_name": "echo",
                 "arguments": {"message": "hi"}, "request_id": "call_1"}
    }));
    let MessageKind::McpToolRequest(r) = &m.kind else {
        panic!("{:?}", m.kind)
    };
    assert_eq!(r.called_as, "echo");
    assert_eq!(r.approval_status, ApprovalStatus::Pending);
    assert_eq!(written(&m)["data"]["called_as"], "echo");
}

#[test]
fn processing_without_activity_gets_the_default_activity() {
    let m = read_valid(json!({"role": "assistant", "kind": "processing", "data": {}}));
    let MessageKind::Processing(p) = &m.kind else {
        panic!("{:?}", m.kind)
    };
    assert_eq!(p.activity, DEFAULT_ACTIVITY);
}

#[test]
fn calls_without_arguments_have_empty_arguments() {
    let m = read_valid(json!({
        "role": "assistant", "kind": "tool_request",
        "data": {"calls": [{"id": "c1", "name": "list_directory"}]}
    }));
    let MessageKind::ToolRequest(r) = &m.kind else {
        panic!()
    };
    assert_eq!(r.calls[0].arguments, json!({}));
}

#[test]
fn plan_step_with_a_single_tool_is_written_back_as_a_list() {
    let m = read_valid(json!({
        "role": "assistant", "kind": "plan",
        "data": {"goal": "g", "steps": [{"step_number": 1, "action": "a", "reason": "r",
                                          "tools_needed": "read_file", "risks": "none"}]}
    }));
    let data = &written(&m)["data"]["steps"][0];
    assert_eq!(data["tools_needed"], json!(["read_file"]));
    assert_eq!(data["risks"], json!(["none"]));
}

/// A JSON Schema and its `$defs`, for walking.
struct Schema {
    root: Value,
}

impl Schema {
    fn of_message() -> Self {
        Self {
            root: serde_json::to_value(schemars::schema_for!(Message)).unwrap(),
        }
    }

    /// Follows a `$ref` to its definition.
    fn resolve<'a>(&'a self, schema: &'a Value) -> &'a Value {
        match schema.get("$ref").and_then(Value::as_str) {
            Some(r) => {
                let name = r.trim_start_matches("#/$defs/");
                self.resolve(&self.root["$defs"][name])
            }
            None => schema,
        }
    }

    /// The schema and every branch it combines (`allOf`, `oneOf`, `anyOf`), resolved.
    fn branches<'a>(&'a self, schema: &'a Value) -> Vec<&'a Value> {
        let schema = self.resolve(schema);
        let mut out = vec![schema];
        for key in ["allOf", "oneOf", "anyOf"] {
            if let Some(Value::Array(items)) = schema.get(key) {
                for item in items {
                    out.extend(self.branches(item));
                }
            }
        }
        out
    }

    /// The branches `value` can be an instance of: those whose tag (a `const` property) it has.
    fn branches_for<'a>(&'a self, schema: &'a Value, value: &Value) -> Vec<&'a Value> {
        self.branches(schema)
            .into_iter()
            .filter(|b| {
                let Some(Value::Object(props)) = b.get("properties") else {
                    return true;
                };
                props.iter().all(|(k, s)| match s.get("const") {
                    Some(c) => value.get(k).is_none_or(|v| v == c),
                    None => true,
                })
            })
            .collect()
    }

    /// Every field some branch requires.
    fn required(&self, schema: &Value) -> BTreeSet<String> {
        self.required_for(schema, &Value::Null)
    }

    /// Every field some branch `value` can be an instance of requires.
    fn required_for(&self, schema: &Value, value: &Value) -> BTreeSet<String> {
        self.branches_for(schema, value)
            .into_iter()
            .filter_map(|b| b.get("required").and_then(Value::as_array))
            .flatten()
            .filter_map(|v| v.as_str().map(str::to_owned))
            .collect()
    }

    /// The schema of field `name` in a branch `value` can be an instance of.
    fn property<'a>(&'a self, schema: &'a Value, value: &Value, name: &str) -> Option<&'a Value> {
        self.branches_for(schema, value)
            .into_iter()
            .find_map(|b| b.get("properties").and_then(|p| p.get(name)))
    }

    /// The data schema of kind `kind`.
    fn data_of(&self, kind: &str) -> &Value {
        self.root["oneOf"]
            .as_array()
            .unwrap()
            .iter()
            .find(|v| v["properties"]["kind"]["const"] == kind)
            .map(|v| &v["properties"]["data"])
            .unwrap_or_else(|| panic!("no schema for kind {kind}"))
    }

    /// Paths (as JSON pointers) of every field in `value` its schema does not require.
    fn optional_fields(&self, value: &Value, schema: &Value, at: &str, out: &mut Vec<String>) {
        match value {
            Value::Object(map) => {
                let required = self.required_for(schema, value);
                for (k, v) in map {
                    let path = format!("{at}/{}", k.replace('~', "~0").replace('/', "~1"));
                    if !required.contains(k) {
                        out.push(path.clone());
                    }
                    if let Some(s) = self.property(schema, value, k) {
                        self.optional_fields(v, s, &path, out);
                    }
                }
            }
            Value::Array(items) => {
                let item_schema = self
                    .branches(schema)
                    .into_iter()
                    .find_map(|b| b.get("items"));
                if let Some(s) = item_schema {
                    for (i, v) in items.iter().enumerate() {
                        self.optional_fields(v, s, &format!("{at}/{i}"), out);
                    }
                }
            }
            _ => {}
        }
    }

    /// A value of `schema`: with only the required fields, or with every field; `choice` picks
    /// the branch of each `oneOf`/`anyOf` and the member of each `enum`.
    fn instance(&self, schema: &Value, full: bool, choice: usize, depth: usize) -> Value {
        let schema = self.resolve(schema);
        if let Some(c) = schema.get("const") {
            return c.clone();
        }
        if let Some(Value::Array(values)) = schema.get("enum") {
            return values[choice % values.len()].clone();
        }
        for key in ["oneOf", "anyOf"] {
            if let Some(Value::Array(items)) = schema.get(key) {
                let branch = &items[choice % items.len()];
                let mut base = self.instance_of_type(schema, full, choice, depth);
                let picked = self.instance(branch, full, choice, depth + 1);
                // Fields of the enclosing object and of the branch together (flattened enums).
                if let (Some(b), Some(p)) = (base.as_object_mut(), picked.as_object()) {
                    b.extend(p.clone());
                    return base;
                }
                return picked;
            }
        }
        self.instance_of_type(schema, full, choice, depth)
    }

    fn instance_of_type(&self, schema: &Value, full: bool, choice: usize, depth: usize) -> Value {
        let ty = match schema.get("type") {
            Some(Value::String(t)) => t.clone(),
            Some(Value::Array(ts)) => ts
                .iter()
                .filter_map(Value::as_str)
                .find(|t| *t != "null")
                .unwrap_or("null")
                .to_owned(),
            _ if schema.get("properties").is_some() => "object".into(),
            _ => return json!({}),
        };
        match ty.as_str() {
            "object" => {
                let required = self.required(schema);
                let mut map = Map::new();
                if let Some(Value::Object(props)) = schema.get("properties") {
                    for (k, s) in props {
                        if (full && depth < 6) || required.contains(k) {
                            map.insert(k.clone(), self.instance(s, full, choice, depth + 1));
                        }
                    }
                }
                Value::Object(map)
            }
            "array" => match schema.get("items") {
                Some(items) if depth < 6 => {
                    json!([self.instance(items, full, choice, depth + 1)])
                }
                _ => json!([]),
            },
            "string" => match schema.get("format").and_then(Value::as_str) {
                Some("date-time") => json!("2026-01-01T00:00:00Z"),
                Some("uuid") => json!("0192f0c4-1111-7000-8000-000000000003"),
                _ => json!("x"),
            },
            "integer" => json!(schema.get("minimum").and_then(Value::as_u64).unwrap_or(1)),
            "number" => json!(1.5),
            "boolean" => json!(true),
            _ => Value::Null,
        }
    }
}

#[test]
fn values_generated_from_the_schema_are_read() {
    let schema = Schema::of_message();
    for kind in KindName::ALL {
        if kind == KindName::Unknown {
            continue;
        }
        let data_schema = schema.data_of(kind.as_str());
        for full in [false, true] {
            for choice in 0..6 {
                let data = schema.instance(data_schema, full, choice, 0);
                let role = kind.allowed_roles()[choice % kind.allowed_roles().len()];
                let message = json!({"role": role, "kind": kind.as_str(), "data": data});
                let m = read_message(&message.to_string())
                    .unwrap_or_else(|e| panic!("schema and reader disagree: {message}: {e}"));
                assert_eq!(m.kind_name(), kind);
                let again = read_message(&m.to_json()).unwrap();
                assert_eq!(again, m, "{message}");
            }
        }
    }
}

#[test]
fn the_schema_requires_only_what_the_reader_needs() {
    // Every field the schema requires, left out, makes the reader refuse the message: the
    // schema does not demand more than the reader does.
    let schema = Schema::of_message();
    for kind in KindName::ALL {
        if kind == KindName::Unknown {
            continue;
        }
        let data_schema = schema.data_of(kind.as_str());
        let data = schema.instance(data_schema, false, 0, 0);
        let top_required = schema.required(data_schema);
        let Value::Object(map) = &data else { panic!() };
        for field in map.keys().filter(|k| top_required.contains(*k)) {
            if schema.branches(data_schema)[1..]
                .iter()
                .any(|b| b.get("properties").and_then(|p| p.get(field)).is_some())
            {
                // A field of one branch (a tag): only that branch needs it.
                continue;
            }
            let mut without = data.clone();
            without.as_object_mut().unwrap().remove(field);
            let role = kind.allowed_roles()[0];
            let message = json!({"role": role, "kind": kind.as_str(), "data": without});
            assert!(
                read_message(&message.to_string()).is_err(),
                "the schema requires {kind}.{field}, but the reader does without it"
            );
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// For every kind: any subset of the fields the schema calls optional (envelope and data,
    /// at any depth) may be left out; what is read is written back and read again unchanged.
    #[test]
    fn any_optional_fields_left_out_still_read_and_stay_stable(
        m in strategies::message(),
        mask in any::<u64>(),
        salt in any::<u64>(),
    ) {
        let schema = Schema::of_message();
        let full = written(&m);
        let mut optional = Vec::new();
        let envelope_required = schema.required(&schema.root);
        for k in full.as_object().unwrap().keys() {
            if !envelope_required.contains(k) && k != "kind" && k != "data" {
                optional.push(format!("/{k}"));
            }
        }
        let data_schema = schema.data_of(m.kind.name_str());
        schema.optional_fields(&full["data"], data_schema, "/data", &mut optional);
        // Remove the chosen ones, deepest first so a pointer never outlives its parent.
        optional.sort_by_key(|p| std::cmp::Reverse(p.len()));
        let mut reduced = full.clone();
        for (i, path) in optional.iter().enumerate() {
            let bit = (i as u64).wrapping_mul(0x9E37_79B9).wrapping_add(salt) % 64;
            if mask & (1 << bit) == 0 {
                continue;
            }
            let (parent, key) = path.rsplit_once('/').unwrap();
            let key = key.replace("~1", "/").replace("~0", "~");
            if let Some(Value::Object(obj)) = reduced.pointer_mut(parent) {
                obj.remove(&key);
            }
        }
        let read = read_message(&reduced.to_string());
        prop_assert!(read.is_ok(), "{} (from {}) does not read: {:?}", reduced, full, read);
        let read = read.unwrap();
        prop_assert_eq!(read.kind_name(), m.kind_name());
        let text = read.to_json();
        let again = read_message(&text).unwrap();
        prop_assert_eq!(&again, &read);
        prop_assert_eq!(again.to_json(), text);
    }
}
