//! Path and query parameters read into typed structs, with failures as API errors (422 naming
//! the parameter) and the struct's JSON Schema as the parameters in the OpenAPI document.

use aide::OperationInput;
use aide::generate::GenContext;
use aide::openapi::{Operation, Response, StatusCode as DocStatus};
use aide::operation::{ParamLocation, add_parameters, parameters_from_schema};
use axum::extract::{FromRequestParts, Path};
use axum::http::request::Parts;
use schemars::JsonSchema;
use serde::Deserialize;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

use crate::error::{ApiFailure, error_doc, invalid_doc};

/// A route's path parameters, read into `T` (a struct with one field per `{name}`).
pub struct PathParams<T>(pub T);

impl<S: Send + Sync, T: DeserializeOwned + Send> FromRequestParts<S> for PathParams<T> {
    type Rejection = ApiFailure;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, Self::Rejection> {
        let raw = Path::<Vec<(String, String)>>::from_request_parts(parts, state)
            .await
            .map_err(|r| ApiFailure::unreadable(format!("bad path: {}", r.body_text())))?;
        let fields = Value::Object(
            raw.0
                .into_iter()
                .map(|(name, value)| (name, Value::String(value)))
                .collect::<Map<String, Value>>(),
        );
        // Read from a borrow, so the parameters stay at hand to quote in an error.
        serde_path_to_error::deserialize::<_, T>(&fields)
            .map(PathParams)
            .map_err(|e| {
                let name = e.path().to_string();
                let raw = fields
                    .get(&name)
                    .and_then(Value::as_str)
                    .unwrap_or_default();
                ApiFailure::invalid(
                    name.clone(),
                    format!("`{raw}` is not a valid `{name}`: {}", e.inner()),
                )
            })
    }
}

impl<T: JsonSchema> OperationInput for PathParams<T> {
    fn operation_input(ctx: &mut GenContext, operation: &mut Operation) {
        let schema = ctx.schema.subschema_for::<T>();
        let params = parameters_from_schema(ctx, schema, ParamLocation::Path);
        add_parameters(ctx, operation, params);
    }

    fn inferred_early_responses(
        ctx: &mut GenContext,
        _operation: &mut Operation,
    ) -> Vec<(Option<DocStatus>, Response)> {
        vec![
            invalid_doc(ctx),
            error_doc(ctx, 404, "Nothing has this id or name."),
        ]
    }
}

/// A route's query parameters, read into `T`. An empty value counts as absent and the last of
/// a repeated parameter wins; parameters `T` does not name are ignored.
pub struct QueryParams<T>(pub T);

impl<S: Send + Sync, T: DeserializeOwned + Send> FromRequestParts<S> for QueryParams<T> {
    type Rejection = ApiFailure;

    async fn from_request_parts(parts: &mut Parts, _state: &S) -> Result<Self, Self::Rejection> {
        let pairs = query_pairs(parts.uri.query().unwrap_or_default());
        let encoded = form_urlencoded::Serializer::new(String::new())
            .extend_pairs(&pairs)
            .finish();
        let reader =
            serde_urlencoded::Deserializer::new(form_urlencoded::parse(encoded.as_bytes()));
        serde_path_to_error::deserialize::<_, T>(reader)
            .map(QueryParams)
            .map_err(|e| {
                let name = e.path().to_string();
                let raw = pairs
                    .iter()
                    .find(|(k, _)| *k == name)
                    .map(|(_, v)| v.as_str())
                    .unwrap_or_default();
                ApiFailure::invalid(
                    format!("query.{name}"),
                    format!("`{raw}` is not valid for `{name}`: {}", e.inner()),
                )
            })
    }
}

/// The query's pairs, decoded: the last value of a repeated name wins, an empty value removes
/// the name.
fn query_pairs(query: &str) -> Vec<(String, String)> {
    let mut pairs: Vec<(String, String)> = Vec::new();
    for (name, value) in form_urlencoded::parse(query.as_bytes()) {
        pairs.retain(|(k, _)| *k != name);
        if !value.is_empty() {
            pairs.push((name.into_owned(), value.into_owned()));
        }
    }
    pairs
}

impl<T: JsonSchema> OperationInput for QueryParams<T> {
    fn operation_input(ctx: &mut GenContext, operation: &mut Operation) {
        let schema = ctx.schema.subschema_for::<T>();
        let params = parameters_from_schema(ctx, schema, ParamLocation::Query);
        add_parameters(ctx, operation, params);
    }

    fn inferred_early_responses(
        ctx: &mut GenContext,
        _operation: &mut Operation,
    ) -> Vec<(Option<DocStatus>, Response)> {
        vec![invalid_doc(ctx)]
    }
}

/// The `Last-Event-ID` header of an event stream's reconnection.
pub struct LastEventId(pub Option<u64>);

/// The header as the document describes it.
#[derive(Deserialize, JsonSchema)]
struct LastEventIdHeader {
    /// The `id:` of the last event received: the stream replays what came after it.
    #[serde(rename = "Last-Event-ID")]
    #[allow(dead_code)]
    last_event_id: Option<u64>,
}

impl<S: Send + Sync> FromRequestParts<S> for LastEventId {
    type Rejection = ApiFailure;

    async fn from_request_parts(parts: &mut Parts, _state: &S) -> Result<Self, Self::Rejection> {
        match parts.headers.get("last-event-id") {
            None => Ok(LastEventId(None)),
            Some(v) => v
                .to_str()
                .ok()
                .and_then(|s| s.trim().parse::<u64>().ok())
                .map(|n| LastEventId(Some(n)))
                .ok_or_else(|| {
                    ApiFailure::invalid(
                        "Last-Event-ID",
                        "Last-Event-ID must be an event sequence number",
                    )
                }),
        }
    }
}

impl OperationInput for LastEventId {
    fn operation_input(ctx: &mut GenContext, operation: &mut Operation) {
        let schema = ctx.schema.subschema_for::<LastEventIdHeader>();
        let params = parameters_from_schema(ctx, schema, ParamLocation::Header);
        add_parameters(ctx, operation, params);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_last_value_wins_and_an_empty_one_is_absent() {
        let pairs = query_pairs("limit=5&view=full&limit=7&kind=text&kind=");
        assert_eq!(
            pairs,
            vec![
                ("view".to_owned(), "full".to_owned()),
                ("limit".to_owned(), "7".to_owned())
            ]
        );
    }
}
