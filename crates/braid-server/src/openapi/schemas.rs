//! How the protocol's JSON Schemas are written into the OpenAPI document so that client
//! generators (openapi-python-client, openapi-typescript, datamodel-code-generator) read them as
//! the server means them:
//!
//! - a unit enum is a plain `enum` of strings (schemars writes a `oneOf` of `const`s, which
//!   generators turn into a union of one-value types that then refuses every other value);
//! - a tagged union's variants are each a named schema holding the tag, and the union says
//!   which tag value means which schema (`discriminator` with its `mapping`); fields beside
//!   the union (the message envelope's `id`, `role`, `status`... around `kind`/`data`) are
//!   written into every variant, where generators see them;
//! - a `$ref` carries no `default` (generators cannot build a model's default from JSON and
//!   leave the operation out).
//!
//! - an answer's schema says what the server writes (schemars' serialize contract: a field
//!   with a default is always there, so it is required), apart from the lenient schema of
//!   what it reads (the deserialize contract: such a field may be left out). Where the two
//!   differ, the answer keeps the type's name and the input is `<Name>Input`
//!   ([`add_answers`]).
//!
//! These are rules of the schema generators ([`generator`]) and of the named schemas they
//! collect ([`add_answers`], [`name_variants`]), applied to every type alike; no schema is
//! written by hand here.

use std::cell::RefCell;
use std::collections::BTreeSet;

use aide::generate::GenContext;
use schemars::generate::{Contract, SchemaGenerator, SchemaSettings};
use schemars::transform::{RecursiveTransform, Transform};
use schemars::{JsonSchema, Schema};
use serde_json::{Map, Value, json};

/// Where aide puts the named schemas.
const COMPONENTS: &str = "#/components/schemas/";

thread_local! {
    /// The generator of answers' schemas while the document is being made
    /// ([`collect_answers`]); aide's own generator (the deserialize contract) writes the rest.
    static ANSWERS: RefCell<Option<SchemaGenerator>> = const { RefCell::new(None) };
}

/// The schema of an answer of `T`: as the server writes it while the document is being made,
/// else from aide's generator (the router is also built outside the document).
pub fn answer_schema_for<T: JsonSchema>(ctx: &mut GenContext) -> Schema {
    ANSWERS.with_borrow_mut(|answers| match answers {
        Some(generator) => generator.subschema_for::<T>(),
        None => ctx.schema.subschema_for::<T>(),
    })
}

/// Runs `make` (which documents the routes) with answers' schemas written by a generator of
/// their own; answers `make`'s result and the named schemas of the answers.
pub fn collect_answers<R>(make: impl FnOnce() -> R) -> (R, Map<String, Value>) {
    ANSWERS.set(Some(generator(Contract::Serialize)));
    let made = make();
    let definitions = ANSWERS
        .take()
        .map(|mut generator| generator.take_definitions(true))
        .unwrap_or_default();
    (made, definitions)
}

/// Adds the answers' named schemas to the document's (the inputs'). A schema that is the same
/// both ways (itself and every schema it refers to) is kept once; where they differ, the
/// answer's keeps the name and the input's becomes `<Name>Input`, with every reference from an
/// input schema, a request body or a parameter renamed to it.
pub fn add_answers(doc: &mut Value, answers: Map<String, Value>) {
    let Some(inputs) = doc
        .pointer_mut("/components/schemas")
        .and_then(Value::as_object_mut)
    else {
        return;
    };
    let mut differ: BTreeSet<String> = answers
        .iter()
        .filter(|(name, answer)| inputs.get(*name).is_some_and(|input| input != *answer))
        .map(|(name, _)| name.clone())
        .collect();
    // A schema referring to one that differs differs too (its input refers to the input).
    loop {
        let more: Vec<String> = inputs
            .iter()
            .filter(|(name, input)| {
                answers.contains_key(*name)
                    && !differ.contains(*name)
                    && differ.iter().any(|d| refers_to(input, d))
            })
            .map(|(name, _)| name.clone())
            .collect();
        if more.is_empty() {
            break;
        }
        differ.extend(more);
    }
    let mut renamed = Map::new();
    for name in &differ {
        let mut input_name = format!("{name}Input");
        while inputs.contains_key(&input_name) || answers.contains_key(&input_name) {
            input_name.push_str("Input");
        }
        renamed.insert(name.clone(), Value::String(input_name));
    }
    for name in &differ {
        if let (Some(schema), Some(Value::String(input_name))) =
            (inputs.remove(name), renamed.get(name))
        {
            inputs.insert(input_name.clone(), schema);
        }
    }
    for schema in inputs.values_mut() {
        rename_refs(schema, &renamed);
    }
    for (name, answer) in answers {
        inputs.insert(name, answer);
    }
    let Some(paths) = doc.get_mut("paths").and_then(Value::as_object_mut) else {
        return;
    };
    for operation in paths.values_mut().filter_map(Value::as_object_mut) {
        for operation in operation.values_mut() {
            for part in ["requestBody", "parameters"] {
                if let Some(input) = operation.get_mut(part) {
                    rename_refs(input, &renamed);
                }
            }
        }
    }
}

/// Whether `schema` holds a reference to the named schema `name`.
fn refers_to(schema: &Value, name: &str) -> bool {
    match schema {
        Value::Object(object) => object.iter().any(|(key, value)| {
            (key == "$ref" && value.as_str() == Some(&format!("{COMPONENTS}{name}")))
                || refers_to(value, name)
        }),
        Value::Array(items) => items.iter().any(|item| refers_to(item, name)),
        _ => false,
    }
}

/// Points every reference to a schema `renamed` names at its new name.
fn rename_refs(schema: &mut Value, renamed: &Map<String, Value>) {
    match schema {
        Value::Object(object) => {
            for (key, value) in object.iter_mut() {
                let new_name = (key == "$ref")
                    .then(|| value.as_str()?.strip_prefix(COMPONENTS))
                    .flatten()
                    .and_then(|name| renamed.get(name)?.as_str());
                match new_name {
                    Some(new_name) => *value = Value::String(format!("{COMPONENTS}{new_name}")),
                    None => rename_refs(value, renamed),
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(|item| rename_refs(item, renamed)),
        _ => {}
    }
}

/// The schema generator the document is made with, for inputs (`Contract::Deserialize`) or
/// answers (`Contract::Serialize`): aide's (JSON Schema draft 7 keywords, named schemas under
/// `#/components/schemas/`) with the rules of this module's transforms.
pub fn generator(contract: Contract) -> SchemaGenerator {
    let settings = SchemaSettings::draft07();
    let settings = match contract {
        Contract::Serialize => settings.for_serialize(),
        _ => settings.for_deserialize(),
    };
    settings
        .with(|s| {
            s.inline_subschemas = false;
            s.definitions_path = COMPONENTS.into();
            // Draft 7 ignores a `$ref`'s siblings, so schemars wraps every described reference
            // in `allOf`; OpenAPI 3.1 reads them, and openapi-typescript takes an `allOf` of a
            // discriminated union for inheritance (`Omit<ContextState, "type">`).
            s.transforms
                .retain(|t| !format!("{t:?}").contains("RemoveRefSiblings"));
        })
        .with_transform(RecursiveTransform(RefBesideFields))
        .with_transform(RecursiveTransform(UnitEnum))
        .with_transform(RecursiveTransform(NoDefaultBesideRef))
        .into_generator()
}

/// Writes a `oneOf` of string `const`s (a Rust enum of unit variants) as `{type: string, enum}`,
/// with each value's description kept as a line of the enum's description.
#[derive(Clone, Copy, Debug)]
pub struct UnitEnum;

impl Transform for UnitEnum {
    fn transform(&mut self, schema: &mut Schema) {
        let Some(object) = schema.as_object_mut() else {
            return;
        };
        let Some(Value::Array(variants)) = object.get("oneOf") else {
            return;
        };
        let values: Option<Vec<(String, Option<String>)>> = variants
            .iter()
            .map(|v| {
                let value = v.get("const")?.as_str()?.to_owned();
                let description = v.get("description").and_then(Value::as_str);
                Some((value, description.map(str::to_owned)))
            })
            .collect();
        let Some(values) = values.filter(|v| !v.is_empty()) else {
            return;
        };
        object.remove("oneOf");
        let mut description = object
            .get("description")
            .and_then(Value::as_str)
            .map(str::to_owned)
            .unwrap_or_default();
        for (value, meaning) in &values {
            if let Some(meaning) = meaning {
                if !description.is_empty() {
                    description.push('\n');
                }
                description.push_str(&format!("- `{value}`: {}", meaning.replace('\n', " ")));
            }
        }
        if !description.is_empty() {
            object.insert("description".into(), Value::String(description));
        }
        object.insert("type".into(), json!("string"));
        object.insert(
            "enum".into(),
            Value::Array(values.into_iter().map(|(v, _)| Value::String(v)).collect()),
        );
    }
}

/// Wraps a `$ref` in `allOf` only when fields or other constraints stand beside it (an
/// internally tagged variant's tag beside the struct it wraps); a description or a title stays
/// beside the `$ref`, as OpenAPI 3.1 allows.
#[derive(Clone, Copy, Debug)]
pub struct RefBesideFields;

impl Transform for RefBesideFields {
    fn transform(&mut self, schema: &mut Schema) {
        let Some(object) = schema.as_object_mut() else {
            return;
        };
        let annotations = [
            "$ref",
            "description",
            "title",
            "default",
            "deprecated",
            "readOnly",
            "writeOnly",
            "examples",
        ];
        if !object.contains_key("$ref") || object.keys().all(|k| annotations.contains(&k.as_str()))
        {
            return;
        }
        if let Some(reference) = object.remove("$ref") {
            let all_of = object.entry("allOf").or_insert_with(|| json!([]));
            if let Value::Array(all_of) = all_of {
                all_of.push(json!({ "$ref": reference }));
            }
        }
    }
}

/// Leaves out a `default` beside a reference (`$ref`, or the `allOf: [{$ref}]` a draft 7
/// reference with a description becomes): the field stays optional, and its description says
/// what an absent field means.
#[derive(Clone, Copy, Debug)]
pub struct NoDefaultBesideRef;

impl Transform for NoDefaultBesideRef {
    fn transform(&mut self, schema: &mut Schema) {
        let Some(object) = schema.as_object_mut() else {
            return;
        };
        let references = object.contains_key("$ref")
            || object
                .get("allOf")
                .and_then(Value::as_array)
                .is_some_and(|all| all.iter().any(|s| s.get("$ref").is_some()));
        if references {
            object.remove("default");
        }
    }
}

/// Gives every variant of every tagged union among the document's schemas its own named
/// schema holding the tag and the fields written beside the union, and makes the union a
/// `oneOf` of references with a `discriminator`.
///
/// A variant that wraps a struct used nowhere else (`allOf: [{$ref: TextPayload}]` beside the
/// tag) gets the tag in that struct's own schema; any other variant becomes a new schema named
/// `<Union><Tag value>` (e.g. `ContextStateIdle`). A union is a schema whose `oneOf` variants
/// are all objects that give one same property a string `const` (serde's internally and
/// adjacently tagged enums); anything else is left as it is.
pub fn name_variants(doc: &mut Value) {
    let text = doc.to_string();
    let uses = |name: &str| text.matches(&format!("\"{COMPONENTS}{name}\"")).count();
    let Some(definitions) = doc
        .pointer_mut("/components/schemas")
        .and_then(Value::as_object_mut)
    else {
        return;
    };
    let unions: Vec<String> = definitions
        .iter()
        .filter(|(_, schema)| tag_of(schema).is_some())
        .map(|(name, _)| name.clone())
        .collect();
    let taken: Vec<String> = definitions.keys().cloned().collect();
    for union in unions {
        let Some(schema) = definitions.get_mut(&union) else {
            continue;
        };
        let Some(tag) = tag_of(schema) else {
            continue;
        };
        let Some(object) = schema.as_object_mut() else {
            continue;
        };
        let Some(Value::Array(variants)) = object.remove("oneOf") else {
            continue;
        };
        // Fields beside the union (a flattened enum's envelope) belong to every variant.
        let shared_properties = object.remove("properties");
        let shared_required = object.remove("required");
        let mut mapping = Map::new();
        let mut references = Vec::with_capacity(variants.len());
        let mut named = Vec::with_capacity(variants.len());
        let mut tagged_in_place = Vec::new();
        for mut variant in variants {
            let Some(value) = variant
                .pointer(&format!("/properties/{tag}/const"))
                .and_then(Value::as_str)
                .map(str::to_owned)
            else {
                continue;
            };
            if let Some(wrapped) = wrapped_struct(&variant, &tag)
                .filter(|w| shared_properties.is_none() && uses(w) == 1)
            {
                let reference = format!("{COMPONENTS}{wrapped}");
                mapping.insert(value, Value::String(reference.clone()));
                references.push(json!({ "$ref": reference }));
                let tag_schema = variant.pointer(&format!("/properties/{tag}")).cloned();
                tagged_in_place.push((wrapped, tag_schema));
                continue;
            }
            if let Some(fields) = variant.as_object_mut() {
                merge_fields(fields, shared_properties.as_ref(), shared_required.as_ref());
            }
            let mut name = variant_name(&union, &value);
            if definitions_has(&taken, &name) {
                name.push_str("Variant");
            }
            let reference = format!("{COMPONENTS}{name}");
            mapping.insert(value, Value::String(reference.clone()));
            references.push(json!({ "$ref": reference }));
            named.push((name, variant));
        }
        object.remove("type");
        object.insert("oneOf".into(), Value::Array(references));
        object.insert(
            "discriminator".into(),
            json!({ "propertyName": tag, "mapping": mapping }),
        );
        for (name, variant) in named {
            definitions.insert(name, variant);
        }
        for (wrapped, tag_schema) in tagged_in_place {
            let Some(Value::Object(target)) = definitions.get_mut(&wrapped) else {
                continue;
            };
            let tag_property = Map::from_iter([(tag.clone(), tag_schema.unwrap_or(Value::Null))]);
            merge_fields(
                target,
                Some(&Value::Object(tag_property)),
                Some(&json!([tag])),
            );
        }
    }
}

/// The struct a variant wraps when it is `allOf: [{$ref}]` beside the tag and nothing else.
fn wrapped_struct(variant: &Value, tag: &str) -> Option<String> {
    let all_of = variant.get("allOf")?.as_array()?;
    let [only] = all_of.as_slice() else {
        return None;
    };
    let name = only.get("$ref")?.as_str()?.strip_prefix(COMPONENTS)?;
    let properties = variant.get("properties")?.as_object()?;
    (properties.len() == 1 && properties.contains_key(tag)).then(|| name.to_owned())
}

/// Adds `properties` and `required` to a schema's own, keeping its own on a clash.
fn merge_fields(
    object: &mut Map<String, Value>,
    properties: Option<&Value>,
    required: Option<&Value>,
) {
    if let Some(Value::Object(shared)) = properties
        && let Value::Object(own) = object.entry("properties").or_insert_with(|| json!({}))
    {
        for (field, field_schema) in shared {
            own.entry(field.clone())
                .or_insert_with(|| field_schema.clone());
        }
    }
    if let Some(Value::Array(shared)) = required
        && let Value::Array(own) = object.entry("required").or_insert_with(|| json!([]))
    {
        for field in shared {
            if !own.contains(field) {
                own.push(field.clone());
            }
        }
    }
}

/// Whether a name is already one of the collected schemas'.
fn definitions_has(taken: &[String], name: &str) -> bool {
    taken.iter().any(|t| t == name)
}

/// The tag of a tagged union: the property every `oneOf` variant gives a string `const`.
fn tag_of(schema: &Value) -> Option<String> {
    let variants = schema.get("oneOf")?.as_array()?;
    let first = variants.first()?.get("properties")?.as_object()?;
    let tag = first
        .iter()
        .find(|(_, p)| p.get("const").is_some_and(Value::is_string))?
        .0;
    variants
        .iter()
        .all(|v| {
            v.pointer(&format!("/properties/{tag}/const"))
                .is_some_and(Value::is_string)
        })
        .then(|| tag.clone())
}

/// `ContextState` + `streaming_llm_response` = `ContextStateStreamingLlmResponse`.
fn variant_name(union: &str, value: &str) -> String {
    let mut name = union.to_owned();
    for word in value.split(['_', '-', '.']) {
        let mut chars = word.chars();
        if let Some(first) = chars.next() {
            name.extend(first.to_uppercase());
            name.push_str(chars.as_str());
        }
    }
    name
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
    use super::*;

    #[test]
    fn a_oneof_of_consts_becomes_an_enum_with_the_meanings_in_its_description() {
        let mut schema = Schema::try_from(json!({
            "description": "Who.",
            "oneOf": [
                {"const": "user", "type": "string", "description": "A person."},
                {"const": "tool", "type": "string"}
            ]
        }))
        .unwrap();
        RecursiveTransform(UnitEnum).transform(&mut schema);
        assert_eq!(
            schema.to_value(),
            json!({"description": "Who.\n- `user`: A person.", "type": "string", "enum": ["user", "tool"]})
        );
    }

    #[test]
    fn a_reference_loses_its_default_and_a_plain_field_keeps_it() {
        let mut schema = Schema::try_from(json!({
            "properties": {
                "config": {"allOf": [{"$ref": "#/components/schemas/C"}], "default": {"a": 1}},
                "count": {"type": "integer", "default": 3}
            }
        }))
        .unwrap();
        let mut transform = RecursiveTransform(NoDefaultBesideRef);
        for property in ["config", "count"] {
            let value = schema.get_mut("properties").unwrap();
            let sub: &mut Schema = value.get_mut(property).unwrap().try_into().unwrap();
            transform.transform(sub);
        }
        assert!(
            schema.get("properties").unwrap()["config"]
                .get("default")
                .is_none()
        );
        assert_eq!(schema.get("properties").unwrap()["count"]["default"], 3);
    }

    /// A document holding these schemas.
    fn document(schemas: Map<String, Value>) -> Value {
        json!({"paths": {}, "components": {"schemas": schemas}})
    }

    #[test]
    fn variants_get_names_the_tag_and_the_fields_beside_the_union() {
        let mut definitions = Map::new();
        definitions.insert(
            "Message".into(),
            json!({
                "type": "object",
                "properties": {"id": {"type": "string"}},
                "required": ["id"],
                "oneOf": [
                    {"type": "object", "properties": {"kind": {"const": "text"}, "data": {"type": "string"}}, "required": ["kind", "data"]},
                    {"type": "object", "properties": {"kind": {"const": "tool_request"}}, "required": ["kind"]}
                ]
            }),
        );
        let mut doc = document(definitions);
        name_variants(&mut doc);
        let definitions = &doc["components"]["schemas"];
        let union = &definitions["Message"];
        assert_eq!(union["discriminator"]["propertyName"], "kind");
        assert_eq!(
            union["discriminator"]["mapping"]["tool_request"],
            "#/components/schemas/MessageToolRequest"
        );
        assert_eq!(
            union["oneOf"][0]["$ref"],
            "#/components/schemas/MessageText"
        );
        assert!(union.get("properties").is_none());
        let text = &definitions["MessageText"];
        assert_eq!(text["properties"]["id"]["type"], "string");
        assert_eq!(text["properties"]["kind"]["const"], "text");
        assert_eq!(text["required"], json!(["kind", "data", "id"]));
    }

    #[test]
    fn a_oneof_without_a_common_tag_is_left_alone() {
        let mut definitions = Map::new();
        let untagged = json!({"oneOf": [{"type": "string"}, {"type": "object", "properties": {"a": {"const": "x"}}}]});
        definitions.insert("Either".into(), untagged.clone());
        let mut doc = document(definitions);
        name_variants(&mut doc);
        assert_eq!(doc["components"]["schemas"]["Either"], untagged);
        assert_eq!(doc["components"]["schemas"].as_object().unwrap().len(), 1);
    }

    #[test]
    fn a_struct_only_its_variant_uses_gets_the_tag_itself() {
        let mut definitions = Map::new();
        let wrap = |name: &str, tag: &str| json!({"type": "object", "allOf": [{"$ref": format!("{COMPONENTS}{name}")}], "properties": {"type": {"const": tag, "type": "string"}}, "required": ["type"]});
        definitions.insert(
            "Payload".into(),
            json!({"oneOf": [wrap("TextPayload", "text"), wrap("FilePayload", "file")]}),
        );
        definitions.insert("TextPayload".into(), json!({"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}));
        definitions.insert(
            "FilePayload".into(),
            json!({"type": "object", "properties": {"path": {"type": "string"}}}),
        );
        // FilePayload is also a field of another schema: it keeps no tag.
        definitions.insert(
            "Other".into(),
            json!({"properties": {"file": {"$ref": format!("{COMPONENTS}FilePayload")}}}),
        );
        let mut doc = document(definitions);
        name_variants(&mut doc);
        let schemas = &doc["components"]["schemas"];
        assert_eq!(
            schemas["Payload"]["discriminator"]["mapping"]["text"],
            "#/components/schemas/TextPayload"
        );
        assert_eq!(
            schemas["TextPayload"]["properties"]["type"]["const"],
            "text"
        );
        assert_eq!(schemas["TextPayload"]["required"], json!(["text", "type"]));
        assert_eq!(
            schemas["Payload"]["discriminator"]["mapping"]["file"],
            "#/components/schemas/PayloadFile"
        );
        assert!(schemas["FilePayload"]["properties"].get("type").is_none());
        assert_eq!(
            schemas["PayloadFile"]["allOf"][0]["$ref"],
            "#/components/schemas/FilePayload"
        );
    }
}
