//! What handlers answer, as types that say their status and body: the OpenAPI document reads
//! each route's answers from its handler's return type ([`aide::OperationOutput`]), so a
//! handler cannot answer something the document does not say.

use aide::OperationOutput;
use aide::generate::GenContext;
use aide::openapi::{MediaType, Operation, Response as ResponseDoc, SchemaObject, StatusCode};
use axum::http::StatusCode as HttpStatus;
use axum::response::{IntoResponse, Response};
use braid_protocol::ContextEvent;
use indexmap::IndexMap;
use schemars::{JsonSchema, Schema};
use serde::Serialize;

use crate::error::json_response;

/// A JSON answer of `T` with status `STATUS`.
pub struct Reply<T, const STATUS: u16 = 200>(pub T);

/// A `201 Created` JSON answer.
pub type Created<T> = Reply<T, 201>;

/// A `202 Accepted` JSON answer: the input is stored, progress arrives as events.
pub type Accepted<T> = Reply<T, 202>;

impl<T: Serialize, const STATUS: u16> IntoResponse for Reply<T, STATUS> {
    fn into_response(self) -> Response {
        let status = HttpStatus::from_u16(STATUS).unwrap_or(HttpStatus::INTERNAL_SERVER_ERROR);
        json_response(status, &self.0)
    }
}

impl<T: JsonSchema, const STATUS: u16> OperationOutput for Reply<T, STATUS> {
    type Inner = T;

    fn operation_response(ctx: &mut GenContext, _operation: &mut Operation) -> Option<ResponseDoc> {
        Some(json_doc::<T>(ctx, success_text(STATUS)))
    }

    fn inferred_responses(
        ctx: &mut GenContext,
        operation: &mut Operation,
    ) -> Vec<(Option<StatusCode>, ResponseDoc)> {
        Self::operation_response(ctx, operation)
            .map(|doc| (Some(StatusCode::Code(STATUS)), doc))
            .into_iter()
            .collect()
    }
}

fn success_text(status: u16) -> &'static str {
    match status {
        201 => "Created.",
        202 => "Accepted: stored; progress arrives as events.",
        _ => "Success.",
    }
}

/// The documentation of a JSON answer of `T` (its schema as the server writes it).
pub fn json_doc<T: JsonSchema>(ctx: &mut GenContext, description: &str) -> ResponseDoc {
    let schema = crate::openapi::answer_schema_for::<T>(ctx);
    content_doc("application/json", schema, description)
}

/// The documentation of an answer with one media type.
pub fn content_doc(media: &str, schema: Schema, description: &str) -> ResponseDoc {
    ResponseDoc {
        description: description.to_owned(),
        content: IndexMap::from_iter([(
            media.to_owned(),
            MediaType {
                schema: Some(SchemaObject {
                    json_schema: schema,
                    example: None,
                    external_docs: None,
                }),
                ..Default::default()
            },
        )]),
        ..Default::default()
    }
}

/// Declares a route's non-JSON answer: a wrapper of a built [`Response`] with its status, media
/// type and body schema.
macro_rules! raw_answer {
    ($(#[$doc:meta])* $name:ident, $status:expr, $media:expr, $description:expr, |$ctx:ident| $schema:expr) => {
        $(#[$doc])*
        pub struct $name(pub Response);

        impl IntoResponse for $name {
            fn into_response(self) -> Response {
                self.0
            }
        }

        impl OperationOutput for $name {
            type Inner = ();

            fn operation_response(
                $ctx: &mut GenContext,
                _operation: &mut Operation,
            ) -> Option<ResponseDoc> {
                Some(content_doc($media, $schema, $description))
            }

            fn inferred_responses(
                ctx: &mut GenContext,
                operation: &mut Operation,
            ) -> Vec<(Option<StatusCode>, ResponseDoc)> {
                Self::operation_response(ctx, operation)
                    .map(|doc| (Some(StatusCode::Code($status)), doc))
                    .into_iter()
                    .collect()
            }
        }
    };
}

/// A context's events as Server-Sent Events.
pub struct EventStream(pub Response);

impl IntoResponse for EventStream {
    fn into_response(self) -> Response {
        self.0
    }
}

impl OperationOutput for EventStream {
    type Inner = ();

    /// The body is a stream of text that does not end while the context lives: generators read
    /// a `string` (and none can wait for all of it); each event's schema is in
    /// `x-event-schema` (OpenAPI 3.2 calls it `itemSchema`) and the description.
    fn operation_response(ctx: &mut GenContext, _operation: &mut Operation) -> Option<ResponseDoc> {
        let event = crate::openapi::answer_schema_for::<ContextEvent>(ctx);
        let mut doc = content_doc(
            "text/event-stream",
            schemars::json_schema!({"type": "string", "description": "Server-Sent Events (a stream that ends only with the server or the connection)."}),
            "Server-Sent Events: `event:` is the event's name (`context_update`, `content_delta`, `content_final`, `error`, `heartbeat`), `data:` its payload (a `ContextEvent` variant's fields without `type`), `id:` its sequence in the context's event log (absent on heartbeats and the shutdown notice). Read it with an SSE client; reconnect with `Last-Event-ID`.",
        );
        if let Some(media) = doc.content.get_mut("text/event-stream") {
            media
                .extensions
                .insert("x-event-schema".to_owned(), event.to_value());
        }
        Some(doc)
    }

    fn inferred_responses(
        ctx: &mut GenContext,
        operation: &mut Operation,
    ) -> Vec<(Option<StatusCode>, ResponseDoc)> {
        Self::operation_response(ctx, operation)
            .map(|doc| (Some(StatusCode::Code(200)), doc))
            .into_iter()
            .collect()
    }
}

raw_answer!(
    /// The OpenAPI document.
    OpenApiJson,
    200,
    "application/json",
    "An OpenAPI 3.1 document.",
    |_ctx| schemars::json_schema!({"type": "object", "additionalProperties": true, "description": "An OpenAPI 3.1 document (https://spec.openapis.org/oas/v3.1)."})
);

raw_answer!(
    /// Prometheus text metrics.
    PrometheusText,
    200,
    "text/plain",
    "Prometheus / OpenMetrics text exposition format.",
    |_ctx| schemars::json_schema!({"type": "string"})
);

raw_answer!(
    /// An HTML page for a person's browser.
    HtmlPage,
    200,
    "text/html",
    "An HTML page for the person's browser (also on failure, with status 400).",
    |_ctx| schemars::json_schema!({"type": "string"})
);
