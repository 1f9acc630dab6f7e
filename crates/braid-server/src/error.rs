//! API errors as HTTP answers: `{ "error": { "code", "message", "field"? } }` with the status
//! DESIGN.md gives each category.

use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use braid_context::EngineError;
use braid_protocol::ErrorCode;
use braid_protocol::api::ApiError;
use braid_protocol::body::RequestError;

/// A failed request: the status and the JSON body that explains it.
#[derive(Debug, Clone)]
pub struct ApiFailure {
    /// The HTTP status.
    pub status: StatusCode,
    /// The body.
    pub body: ApiError,
}

impl ApiFailure {
    /// A failure with the status that belongs to `code`.
    pub fn new(code: ErrorCode, message: impl Into<String>, field: Option<String>) -> Self {
        Self {
            status: status_of(code),
            body: ApiError::new(code, message, field),
        }
    }

    /// A request field that breaks the rules (422).
    pub fn invalid(field: impl Into<String>, message: impl Into<String>) -> Self {
        Self::new(ErrorCode::InvalidInput, message, Some(field.into()))
    }

    /// A body that is not JSON (400).
    pub fn unreadable(message: impl Into<String>) -> Self {
        Self {
            status: StatusCode::BAD_REQUEST,
            body: ApiError::new(ErrorCode::InvalidInput, message, None),
        }
    }

    /// A body above the limit (413).
    pub fn too_large(limit: usize) -> Self {
        Self::new(
            ErrorCode::PayloadTooLarge,
            format!("the body is larger than the limit of {limit} bytes (see --max-body)"),
            None,
        )
    }

    /// Missing or wrong bearer token (401).
    pub fn unauthorized() -> Self {
        Self::new(
            ErrorCode::Unauthorized,
            "this server requires `Authorization: Bearer <BRAID_API_TOKEN>`",
            None,
        )
    }

    /// An error answer that came without a body (axum's 405 for a method a route lacks), with
    /// the code of its status.
    pub fn bare(status: StatusCode) -> Self {
        let code = match status {
            StatusCode::METHOD_NOT_ALLOWED => ErrorCode::MethodNotAllowed,
            StatusCode::NOT_FOUND => ErrorCode::NotFound,
            StatusCode::UNAUTHORIZED => ErrorCode::Unauthorized,
            StatusCode::FORBIDDEN => ErrorCode::Forbidden,
            StatusCode::CONFLICT => ErrorCode::Conflict,
            StatusCode::PAYLOAD_TOO_LARGE => ErrorCode::PayloadTooLarge,
            StatusCode::UNSUPPORTED_MEDIA_TYPE => ErrorCode::UnsupportedMediaType,
            s if s.is_client_error() => ErrorCode::InvalidInput,
            _ => ErrorCode::Internal,
        };
        let message = match code {
            ErrorCode::MethodNotAllowed => {
                "this route has no such method; the `Allow` header lists the ones it has".to_owned()
            }
            _ => status
                .canonical_reason()
                .unwrap_or("the request failed")
                .to_owned(),
        };
        Self {
            status,
            body: ApiError::new(code, message, None),
        }
    }

    /// Nothing at this path (404).
    pub fn no_route(method: &str, path: &str) -> Self {
        Self::new(
            ErrorCode::NotFound,
            format!("no route {method} {path}; GET /openapi.json lists them"),
            None,
        )
    }
}

/// The status of an error category.
pub fn status_of(code: ErrorCode) -> StatusCode {
    match code {
        ErrorCode::NotFound => StatusCode::NOT_FOUND,
        ErrorCode::Conflict | ErrorCode::ResumePointUnknown | ErrorCode::Interrupted => {
            StatusCode::CONFLICT
        }
        ErrorCode::InvalidInput | ErrorCode::FileReference | ErrorCode::ImageRecognition => {
            StatusCode::UNPROCESSABLE_ENTITY
        }
        ErrorCode::Unauthorized => StatusCode::UNAUTHORIZED,
        ErrorCode::Forbidden => StatusCode::FORBIDDEN,
        ErrorCode::UnsupportedMediaType => StatusCode::UNSUPPORTED_MEDIA_TYPE,
        ErrorCode::PayloadTooLarge => StatusCode::PAYLOAD_TOO_LARGE,
        ErrorCode::MethodNotAllowed => StatusCode::METHOD_NOT_ALLOWED,
        ErrorCode::LlmNotConfigured => StatusCode::SERVICE_UNAVAILABLE,
        ErrorCode::LlmUnavailable | ErrorCode::LlmRejected | ErrorCode::StreamInterrupted => {
            StatusCode::BAD_GATEWAY
        }
        ErrorCode::Timeout => StatusCode::GATEWAY_TIMEOUT,
        ErrorCode::ToolFailed | ErrorCode::StorageFailed | ErrorCode::Internal => {
            StatusCode::INTERNAL_SERVER_ERROR
        }
    }
}

impl From<&RequestError> for ApiFailure {
    fn from(e: &RequestError) -> Self {
        let body = ApiError::from(e);
        let status = match e {
            RequestError::Syntax(_) => StatusCode::BAD_REQUEST,
            RequestError::Schema { .. } | RequestError::Invalid(_) => {
                StatusCode::UNPROCESSABLE_ENTITY
            }
        };
        Self { status, body }
    }
}

impl From<EngineError> for ApiFailure {
    fn from(e: EngineError) -> Self {
        if let EngineError::Request(request) = &e {
            return Self::from(request);
        }
        let failure = Self::new(e.code(), e.to_string(), e.field());
        if failure.status.is_server_error() {
            tracing::error!(error = %e, "request failed");
        }
        failure
    }
}

impl aide::OperationOutput for ApiFailure {
    type Inner = ApiError;

    fn operation_response(
        ctx: &mut aide::generate::GenContext,
        _operation: &mut aide::openapi::Operation,
    ) -> Option<aide::openapi::Response> {
        Some(crate::answer::json_doc::<ApiError>(
            ctx,
            "An error: `{ \"error\": { \"code\", \"message\", \"field\"? } }` with the status of its code's category (404 not found, 409 conflict, 422 invalid input, 5xx server or model failures).",
        ))
    }

    fn inferred_responses(
        ctx: &mut aide::generate::GenContext,
        operation: &mut aide::openapi::Operation,
    ) -> Vec<(Option<aide::openapi::StatusCode>, aide::openapi::Response)> {
        Self::operation_response(ctx, operation)
            .map(|doc| (None, doc))
            .into_iter()
            .collect()
    }
}

/// The documentation of an error answer with a known status, for what an extractor refuses.
pub fn error_doc(
    ctx: &mut aide::generate::GenContext,
    status: u16,
    description: &str,
) -> (Option<aide::openapi::StatusCode>, aide::openapi::Response) {
    (
        Some(aide::openapi::StatusCode::Code(status)),
        crate::answer::json_doc::<ApiError>(ctx, description),
    )
}

/// The documentation of a 422: every extractor that reads input documents the same one, so a
/// route with a path, a query and a body lists it once.
pub fn invalid_doc(
    ctx: &mut aide::generate::GenContext,
) -> (Option<aide::openapi::StatusCode>, aide::openapi::Response) {
    error_doc(
        ctx,
        422,
        "The request breaks the schema or a rule; `field` names where (`id`, `query.limit`, `payload.text`...).",
    )
}

impl IntoResponse for ApiFailure {
    fn into_response(self) -> Response {
        json_response(self.status, &self.body)
    }
}

/// A JSON answer with a status.
pub fn json_response<T: serde::Serialize>(status: StatusCode, body: &T) -> Response {
    match serde_json::to_vec(body) {
        Ok(bytes) => {
            let mut response = (status, bytes).into_response();
            response.headers_mut().insert(
                header::CONTENT_TYPE,
                HeaderValue::from_static("application/json"),
            );
            response
        }
        Err(error) => {
            tracing::error!(%error, "answer not serializable");
            StatusCode::INTERNAL_SERVER_ERROR.into_response()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn syntax_errors_are_400_and_schema_errors_422() {
        let syntax = ApiFailure::from(&RequestError::Syntax("eof".into()));
        assert_eq!(syntax.status, StatusCode::BAD_REQUEST);
        let schema = ApiFailure::from(&RequestError::schema("payload.text", "missing"));
        assert_eq!(schema.status, StatusCode::UNPROCESSABLE_ENTITY);
        assert_eq!(schema.body.error.field.as_deref(), Some("payload.text"));
    }

    #[test]
    fn engine_not_found_is_404_and_conflict_409() {
        let id = braid_protocol::ContextId::new();
        assert_eq!(
            ApiFailure::from(EngineError::ContextNotFound(id)).status,
            StatusCode::NOT_FOUND
        );
        assert_eq!(
            ApiFailure::from(EngineError::Conflict("not pending".into())).status,
            StatusCode::CONFLICT
        );
    }
}
