//! Reading request bodies with errors that name the field at fault, so an HTTP layer can answer
//! 400 (not JSON) or 422 (JSON that breaks the schema) with a `field`.

use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::validate::ValidationErrors;

/// Why a request body was refused.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum RequestError {
    /// The body is not JSON.
    #[error("the body is not valid JSON: {0}")]
    Syntax(String),
    /// The JSON does not fit the schema at `field`.
    #[error("{field}: {message}")]
    Schema {
        /// The JSON path at fault, e.g. `payload.range.start_line`.
        field: String,
        /// What is wrong.
        message: String,
    },
    /// The JSON fits the schema but breaks a rule (empty text, `..` in a path...).
    #[error("{0}")]
    Invalid(ValidationErrors),
}

impl RequestError {
    /// A schema error at `field`.
    pub fn schema(field: impl Into<String>, message: impl Into<String>) -> Self {
        Self::Schema {
            field: field.into(),
            message: message.into(),
        }
    }

    /// The field at fault (the first one, when several are).
    pub fn field(&self) -> Option<&str> {
        match self {
            RequestError::Syntax(_) => None,
            RequestError::Schema { field, .. } => Some(field),
            RequestError::Invalid(errors) => errors.problems().first().map(|p| p.path.as_str()),
        }
    }
}

/// Parses a JSON body into `T`, naming the failing field. Every body is a JSON object: serde
/// would also read a struct from an array of its fields in order, whose errors could then only
/// name positions (`[0]`), not fields.
pub fn parse_body<T: DeserializeOwned>(body: &str) -> Result<T, RequestError> {
    let value: Value =
        serde_json::from_str(body).map_err(|e| RequestError::Syntax(e.to_string()))?;
    if !value.is_object() {
        return Err(RequestError::schema(
            "(root)",
            "the body must be a JSON object",
        ));
    }
    parse_value_at(value, "")
}

/// Parses a JSON value found at `prefix` into `T`, naming the failing field below `prefix`.
/// A field `T` does not have is refused too (a misspelled `worksapce` would otherwise be
/// dropped without a word); this is for request bodies only: stored and imported data are read
/// leniently elsewhere.
pub fn parse_value_at<T: DeserializeOwned>(value: Value, prefix: &str) -> Result<T, RequestError> {
    let mut unknown: Option<(String, String)> = None;
    let parsed = serde_path_to_error::deserialize(serde_ignored::Deserializer::new(
        value,
        &mut |path: serde_ignored::Path<'_>| {
            unknown.get_or_insert_with(|| (path_text(&path), last_key(&path)));
        },
    ));
    let parsed = parsed.map_err(|e| {
        let inner = e.inner().to_string();
        let mut field = join_path(prefix, &e.path().to_string());
        // serde reports a missing field at the struct that lacks it; name the field itself.
        if let Some(name) = missing_field_name(&inner) {
            field = join_path(&field, name);
        }
        RequestError::Schema {
            field: if field.is_empty() {
                "(root)".to_owned()
            } else {
                field
            },
            message: inner,
        }
    })?;
    match unknown {
        None => Ok(parsed),
        Some((path, name)) => {
            let field = join_path(prefix, &path);
            Err(RequestError::schema(
                field,
                format!("unknown field `{name}`: the request has no such field"),
            ))
        }
    }
}

/// The name of the field a path ends at (a key may hold dots, so it is not read back from the
/// path's text).
fn last_key(path: &serde_ignored::Path<'_>) -> String {
    use serde_ignored::Path;
    match path {
        Path::Map { key, .. } => key.clone(),
        Path::Root => String::new(),
        Path::Seq { parent, .. }
        | Path::Some { parent }
        | Path::NewtypeStruct { parent }
        | Path::NewtypeVariant { parent } => last_key(parent),
    }
}

/// A path serde_ignored reports, written as the API names fields (`config.optimization.x`,
/// `decisions[0].reson`).
fn path_text(path: &serde_ignored::Path<'_>) -> String {
    use serde_ignored::Path;
    match path {
        Path::Root => String::new(),
        Path::Seq { parent, index } => format!("{}[{index}]", path_text(parent)),
        Path::Map { parent, key } => join_path(&path_text(parent), key),
        Path::Some { parent }
        | Path::NewtypeStruct { parent }
        | Path::NewtypeVariant { parent } => path_text(parent),
    }
}

fn join_path(prefix: &str, path: &str) -> String {
    let path = if path == "." { "" } else { path };
    match (prefix.is_empty(), path.is_empty()) {
        (true, _) => path.to_owned(),
        (false, true) => prefix.to_owned(),
        (false, false) if path.starts_with('[') => format!("{prefix}{path}"),
        (false, false) => format!("{prefix}.{path}"),
    }
}

fn missing_field_name(message: &str) -> Option<&str> {
    let rest = message.strip_prefix("missing field `")?;
    rest.split('`').next()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, serde::Deserialize)]
    #[allow(dead_code)]
    struct Outer {
        inner: Inner,
    }

    #[derive(Debug, serde::Deserialize)]
    #[allow(dead_code)]
    struct Inner {
        count: u32,
        name: String,
    }

    #[test]
    fn missing_nested_field_is_named() {
        let err = parse_body::<Outer>(r#"{"inner":{"count":1}}"#).unwrap_err();
        assert_eq!(err.field(), Some("inner.name"));
    }

    #[test]
    fn wrong_type_is_named() {
        let err = parse_body::<Outer>(r#"{"inner":{"count":"x","name":"a"}}"#).unwrap_err();
        assert_eq!(err.field(), Some("inner.count"));
    }

    #[test]
    fn a_body_that_is_not_an_object_is_refused_at_the_root() {
        // Found by the fuzz targets: `[null]` was read as a struct's fields in order, and the
        // error named `[0]`.
        for body in [
            "[null]",
            "[{\"count\":1,\"name\":\"a\"}]",
            "3",
            "\"x\"",
            "null",
        ] {
            let err = parse_body::<Outer>(body).unwrap_err();
            assert_eq!(err.field(), Some("(root)"), "{body}");
        }
    }

    #[test]
    fn an_unknown_field_is_refused_by_its_path() {
        let err =
            parse_body::<Outer>(r#"{"inner":{"count":1,"name":"a","nmae":"b"}}"#).unwrap_err();
        assert_eq!(err.field(), Some("inner.nmae"));
        assert!(err.to_string().contains("unknown field `nmae`"), "{err}");
        let err =
            parse_body::<Outer>(r#"{"inner":{"count":1,"name":"a"},"branch":"alt"}"#).unwrap_err();
        assert_eq!(err.field(), Some("branch"));
    }

    #[test]
    fn an_unknown_field_with_dots_in_its_name_is_named_whole() {
        let err = parse_body::<Outer>(r#"{"inner":{"count":1,"name":"a"},"a.b":1}"#).unwrap_err();
        assert_eq!(err.field(), Some("a.b"));
        assert!(err.to_string().contains("unknown field `a.b`"), "{err}");
    }

    #[test]
    fn a_wrong_type_is_named_before_an_unknown_field() {
        let err =
            parse_body::<Outer>(r#"{"inner":{"count":"x","name":"a"},"extra":1}"#).unwrap_err();
        assert_eq!(err.field(), Some("inner.count"));
    }

    #[test]
    fn not_json_is_a_syntax_error() {
        assert!(matches!(
            parse_body::<Outer>("{"),
            Err(RequestError::Syntax(_))
        ));
    }
}
