//! Request extractors whose failures are API errors: a JSON body (400 when it is not JSON, 422
//! naming the field when it breaks the schema, 413 above the limit), each documenting itself
//! in the OpenAPI document.

use aide::OperationInput;
use aide::generate::GenContext;
use aide::openapi::{
    MediaType, Operation, RequestBody, Response, SchemaObject, StatusCode as DocStatus,
};
use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::extract::{FromRequest, Request};
use axum::http::StatusCode;
use braid_protocol::body::parse_body;
use braid_protocol::{ErrorCode, SendMessageRequest};
use indexmap::IndexMap;
use schemars::JsonSchema;
use serde::de::DeserializeOwned;

use crate::error::{ApiFailure, error_doc, invalid_doc};

/// The body limit in force, stored in the request extensions by the app so the 413 message can
/// name it.
#[derive(Clone, Copy, Debug)]
pub struct BodyLimit(pub usize);

/// The limit on the text of one send in force (`--max-message-text`), stored in the request
/// extensions by the app.
#[derive(Clone, Copy, Debug)]
pub struct MessageTextLimit(pub usize);

/// A JSON body parsed into `T`.
pub struct JsonBody<T>(pub T);

/// A body read as UTF-8 text, for bodies with their own parser (`SendMessageRequest`).
pub struct TextBody(pub String);

impl<S: Send + Sync> FromRequest<S> for TextBody {
    type Rejection = ApiFailure;

    async fn from_request(req: Request, state: &S) -> Result<Self, Self::Rejection> {
        let limit = req
            .extensions()
            .get::<BodyLimit>()
            .map(|l| l.0)
            .unwrap_or_default();
        let bytes = Bytes::from_request(req, state)
            .await
            .map_err(|r| rejection(r, limit))?;
        String::from_utf8(bytes.to_vec())
            .map(TextBody)
            .map_err(|e| ApiFailure::unreadable(format!("the body is not UTF-8: {e}")))
    }
}

impl<S: Send + Sync, T: DeserializeOwned> FromRequest<S> for JsonBody<T> {
    type Rejection = ApiFailure;

    async fn from_request(req: Request, state: &S) -> Result<Self, Self::Rejection> {
        let TextBody(text) = TextBody::from_request(req, state).await?;
        parse_body::<T>(&text)
            .map(JsonBody)
            .map_err(|e| ApiFailure::from(&e))
    }
}

impl<T: JsonSchema> OperationInput for JsonBody<T> {
    fn operation_input(ctx: &mut GenContext, operation: &mut Operation) {
        json_body::<T>(ctx, operation);
    }

    fn inferred_early_responses(
        ctx: &mut GenContext,
        _operation: &mut Operation,
    ) -> Vec<(Option<DocStatus>, Response)> {
        body_refusals(ctx)
    }
}

/// The body of `POST .../messages`, read by the protocol's own parser (which names the field
/// at fault in every kind's payload).
pub struct SendBody(pub SendMessageRequest);

impl<S: Send + Sync> FromRequest<S> for SendBody {
    type Rejection = ApiFailure;

    async fn from_request(req: Request, state: &S) -> Result<Self, Self::Rejection> {
        let limit = req.extensions().get::<MessageTextLimit>().map(|l| l.0);
        let TextBody(text) = TextBody::from_request(req, state).await?;
        let request = SendMessageRequest::from_json(&text).map_err(|e| ApiFailure::from(&e))?;
        let (bytes, field) = request.payload.text_bytes();
        if let Some(limit) = limit.filter(|limit| bytes > *limit) {
            return Err(ApiFailure::new(
                ErrorCode::PayloadTooLarge,
                format!(
                    "the message's text is {bytes} bytes, more than the limit of {limit} (see --max-message-text)"
                ),
                Some(field.to_owned()),
            ));
        }
        Ok(SendBody(request))
    }
}

impl OperationInput for SendBody {
    fn operation_input(ctx: &mut GenContext, operation: &mut Operation) {
        json_body::<SendMessageRequest>(ctx, operation);
    }

    fn inferred_early_responses(
        ctx: &mut GenContext,
        _operation: &mut Operation,
    ) -> Vec<(Option<DocStatus>, Response)> {
        let mut refusals = body_refusals(ctx);
        for (status, response) in &mut refusals {
            if *status == Some(DocStatus::Code(413)) {
                *response = error_doc(
                    ctx,
                    413,
                    "The body is larger than the limit (10 MiB by default, `--max-body`), or the message's text is (1 MiB by default, `--max-message-text`; `field` names it).",
                )
                .1;
            }
        }
        refusals
    }
}

/// Documents a required JSON request body of `T`.
fn json_body<T: JsonSchema>(ctx: &mut GenContext, operation: &mut Operation) {
    let schema = ctx.schema.subschema_for::<T>();
    aide::operation::set_body(
        ctx,
        operation,
        RequestBody {
            description: None,
            content: IndexMap::from_iter([(
                "application/json".to_owned(),
                MediaType {
                    schema: Some(SchemaObject {
                        json_schema: schema,
                        example: None,
                        external_docs: None,
                    }),
                    ..Default::default()
                },
            )]),
            required: true,
            extensions: IndexMap::default(),
        },
    );
}

/// What reading a JSON body can refuse.
fn body_refusals(ctx: &mut GenContext) -> Vec<(Option<DocStatus>, Response)> {
    vec![
        error_doc(ctx, 400, "The body is not JSON (or not UTF-8)."),
        error_doc(
            ctx,
            413,
            "The body is larger than the limit (10 MiB by default, `--max-body`).",
        ),
        invalid_doc(ctx),
    ]
}

fn rejection(r: BytesRejection, limit: usize) -> ApiFailure {
    if r.status() == StatusCode::PAYLOAD_TOO_LARGE {
        ApiFailure::too_large(limit)
    } else {
        ApiFailure::unreadable(format!("the body could not be read: {}", r.body_text()))
    }
}
