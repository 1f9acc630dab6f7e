//! Why a model call failed, and whether trying again can help.

use std::time::Duration;

use braid_protocol::ToolCallId;

/// Whether an error may go away by itself.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ErrorSeverity {
    /// Trying again later can succeed (connection trouble, rate limits, overload, a cut stream).
    Transient,
    /// Trying again will fail the same way (bad key, bad request, unknown model).
    Fatal,
}

/// A tool call that had begun when the stream failed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnfinishedToolCall {
    /// The id the model gave the call.
    pub id: ToolCallId,
    /// The tool's name.
    pub name: String,
    /// The argument text received so far.
    pub arguments: String,
}

/// What a stream had delivered before it failed.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PartialOutput {
    /// The visible text received.
    pub text: String,
    /// How many tool calls had completed.
    pub completed_tool_calls: usize,
    /// Calls that had begun but not completed.
    pub unfinished_tool_calls: Vec<UnfinishedToolCall>,
}

/// A failed model call.
#[derive(Clone, Debug, thiserror::Error)]
pub enum LlmError {
    /// The provider could not be reached (DNS, refused, TLS, reset before any response).
    #[error("could not reach the model at {url}: {message}")]
    Connect {
        /// The endpoint.
        url: String,
        /// What the HTTP client said.
        message: String,
    },
    /// The provider answered with an HTTP error status.
    #[error("the model provider answered HTTP {status}: {message}")]
    Http {
        /// The status code.
        status: u16,
        /// The provider's error message (or the start of the body when it had none).
        message: String,
        /// The provider's error type or code (`rate_limit_exceeded`, `overloaded_error`...).
        error_type: Option<String>,
        /// How long the provider asked us to wait (`Retry-After`).
        retry_after: Option<Duration>,
    },
    /// The provider reported an error inside an otherwise successful stream.
    #[error("the model provider reported an error mid-stream: {message}")]
    Provider {
        /// The provider's error type (`overloaded_error`, `server_error`...).
        error_type: Option<String>,
        /// The provider's message.
        message: String,
    },
    /// The stream ended (or broke) before the model said it was done.
    #[error("the model's stream ended before the answer was finished: {detail}")]
    StreamCut {
        /// What was observed.
        detail: String,
    },
    /// Nothing arrived for too long.
    #[error("no data from the model for {after:?}")]
    Timeout {
        /// How long was waited.
        after: Duration,
    },
    /// The provider sent something this adapter cannot understand.
    #[error("the model provider sent a malformed response: {detail}")]
    Malformed {
        /// What was wrong, with the offending text.
        detail: String,
    },
    /// The provider sent more in one piece than Braid keeps: an SSE line or event over
    /// [`crate::sse::MAX_EVENT_BYTES`], or a response body over
    /// [`crate::MAX_RESPONSE_BYTES`].
    #[error(
        "the model provider sent an SSE {what} or body larger than the limit of {limit} bytes; the stream was stopped"
    )]
    TooLarge {
        /// What was too large: `line`, `event` or `body`.
        what: &'static str,
        /// The limit, in bytes.
        limit: usize,
    },
    /// The request could not be built or sent as configured (bad URL, bad header value...).
    #[error("invalid model request: {detail}")]
    InvalidRequest {
        /// What was wrong.
        detail: String,
    },
    /// A failure after part of the answer had already been delivered; never retried.
    #[error("{source} (after part of the answer had arrived: {} characters of text, {} tool calls complete, {} unfinished)", .received.text.chars().count(), .received.completed_tool_calls, .received.unfinished_tool_calls.len())]
    Interrupted {
        /// The failure.
        source: Box<LlmError>,
        /// What had arrived before it.
        received: PartialOutput,
    },
}

impl LlmError {
    /// Whether trying again can help.
    pub fn severity(&self) -> ErrorSeverity {
        match self {
            LlmError::Connect { .. } | LlmError::StreamCut { .. } | LlmError::Timeout { .. } => {
                ErrorSeverity::Transient
            }
            LlmError::Http { status, .. } => {
                if matches!(status, 408 | 409 | 425 | 429) || *status >= 500 {
                    ErrorSeverity::Transient
                } else {
                    ErrorSeverity::Fatal
                }
            }
            LlmError::Provider { error_type, .. } => match error_type.as_deref() {
                Some(
                    "overloaded_error"
                    | "rate_limit_error"
                    | "api_error"
                    | "server_error"
                    | "rate_limit_exceeded"
                    | "timeout",
                ) => ErrorSeverity::Transient,
                _ => ErrorSeverity::Fatal,
            },
            LlmError::Malformed { .. }
            | LlmError::InvalidRequest { .. }
            | LlmError::TooLarge { .. } => ErrorSeverity::Fatal,
            LlmError::Interrupted { source, .. } => source.severity(),
        }
    }

    /// Whether trying again can help.
    pub fn is_transient(&self) -> bool {
        self.severity() == ErrorSeverity::Transient
    }

    /// The HTTP status, when the provider answered with one.
    pub fn status(&self) -> Option<u16> {
        match self {
            LlmError::Http { status, .. } => Some(*status),
            LlmError::Interrupted { source, .. } => source.status(),
            _ => None,
        }
    }

    /// The provider's own message, when it sent one.
    pub fn provider_message(&self) -> Option<&str> {
        match self {
            LlmError::Http { message, .. } | LlmError::Provider { message, .. } => Some(message),
            LlmError::Interrupted { source, .. } => source.provider_message(),
            _ => None,
        }
    }

    /// How long the provider asked to wait before trying again.
    pub fn retry_after(&self) -> Option<Duration> {
        match self {
            LlmError::Http { retry_after, .. } => *retry_after,
            _ => None,
        }
    }
}

/// Reads the provider's message and error type out of an error body. Both OpenAI
/// (`{"error": {"message", "type", "code"}}`) and Anthropic (`{"type": "error", "error": {"type",
/// "message"}}`) shapes are understood; anything else gives the start of the body.
pub(crate) fn describe_error_body(body: &str) -> (String, Option<String>) {
    let parsed: Option<serde_json::Value> = serde_json::from_str(body).ok();
    if let Some(value) = parsed {
        let error = value.get("error").unwrap_or(&value);
        let message = error
            .get("message")
            .and_then(|m| m.as_str())
            .or_else(|| error.as_str());
        let error_type = error
            .get("type")
            .or_else(|| error.get("code"))
            .and_then(|t| t.as_str())
            .map(str::to_owned);
        if let Some(message) = message {
            return (message.to_owned(), error_type);
        }
    }
    let trimmed = body.trim();
    let message = if trimmed.is_empty() {
        "(empty body)".to_owned()
    } else {
        trimmed.chars().take(500).collect()
    };
    (message, None)
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;

    #[test]
    fn rate_limits_and_server_errors_are_transient_client_errors_fatal() {
        let http = |status| LlmError::Http {
            status,
            message: String::new(),
            error_type: None,
            retry_after: None,
        };
        assert!(http(429).is_transient());
        assert!(http(503).is_transient());
        assert!(!http(401).is_transient());
        assert!(!http(400).is_transient());
    }

    #[test]
    fn error_bodies_of_both_providers_give_their_message() {
        let (m, t) = describe_error_body(
            r#"{"error":{"message":"Rate limit reached","type":"requests","code":"rate_limit_exceeded"}}"#,
        );
        assert_eq!(m, "Rate limit reached");
        assert_eq!(t.as_deref(), Some("requests"));
        let (m, t) = describe_error_body(
            r#"{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}"#,
        );
        assert_eq!(m, "Overloaded");
        assert_eq!(t.as_deref(), Some("overloaded_error"));
        let (m, _) = describe_error_body("upstream connect error");
        assert_eq!(m, "upstream connect error");
    }

    #[test]
    fn interrupted_error_keeps_the_cause_status_and_severity() {
        let e = LlmError::Interrupted {
            source: Box::new(LlmError::StreamCut {
                detail: "eof".into(),
            }),
            received: PartialOutput {
                text: "Hel".into(),
                ..Default::default()
            },
        };
        assert!(e.is_transient());
        assert!(e.to_string().contains("3 characters"));
    }
}
