//! The HTTP side shared by both adapters: posting a request, retrying transient failures while
//! nothing has been delivered, and turning the response bytes into events through a decoder.

use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use braid_protocol::ToolCallId;
use bytes::Bytes;
use futures::{Stream, StreamExt};
use tokio::sync::mpsc;

use crate::client::LlmStream;
use crate::error::{LlmError, describe_error_body};
use crate::event::{CompletionBuilder, LlmEvent, ToolArgumentsError};
use crate::retry::{RetryPolicy, parse_retry_after};
use crate::sse::{EventDecoder, SseParser};

/// The most bytes of a whole (non-streaming) answer Braid reads; a larger one is
/// [`LlmError::TooLarge`].
pub const MAX_RESPONSE_BYTES: usize = 16 * 1024 * 1024;

/// The most bytes of an error answer's body Braid reads to explain the error; the rest is
/// dropped.
pub const MAX_ERROR_BODY_BYTES: usize = 64 * 1024;

/// What was read of a response body.
enum Body {
    /// All of it.
    Whole(Vec<u8>),
    /// The first `limit` bytes; the body was longer.
    Cut(Vec<u8>),
}

/// Reads `response`'s body up to `limit` bytes, waiting at most `idle` for each piece.
async fn read_body(
    mut response: reqwest::Response,
    limit: usize,
    idle: Duration,
) -> Result<Body, LlmError> {
    let mut body = Vec::new();
    loop {
        let chunk = match tokio::time::timeout(idle, response.chunk()).await {
            Err(_) => return Err(LlmError::Timeout { after: idle }),
            Ok(Err(e)) => {
                return Err(LlmError::StreamCut {
                    detail: error_chain(&e),
                });
            }
            Ok(Ok(None)) => return Ok(Body::Whole(body)),
            Ok(Ok(Some(chunk))) => chunk,
        };
        let room = limit - body.len();
        if chunk.len() > room {
            body.extend_from_slice(&chunk[..room]);
            return Ok(Body::Cut(body));
        }
        body.extend_from_slice(&chunk);
    }
}

/// Where and how to post: the URL and the provider's headers (keys, versions).
#[derive(Clone, Debug)]
pub(crate) struct Endpoint {
    pub(crate) url: String,
    pub(crate) headers: Vec<(&'static str, String)>,
}

/// An HTTP client with the retry and timeout settings of one provider configuration.
#[derive(Clone, Debug)]
pub(crate) struct Transport {
    http: reqwest::Client,
    retry: RetryPolicy,
    idle_timeout: Duration,
}

/// Builds a fresh decoder for each attempt.
pub(crate) type DecoderFactory = fn() -> Box<dyn EventDecoder>;

enum Attempt {
    Done,
    ReceiverGone,
    Failed(LlmError),
}

impl Transport {
    pub(crate) fn new(
        retry: RetryPolicy,
        connect_timeout: Duration,
        idle_timeout: Duration,
    ) -> Result<Self, LlmError> {
        let http = reqwest::Client::builder()
            .connect_timeout(connect_timeout)
            .build()
            .map_err(|e| LlmError::InvalidRequest {
                detail: format!("cannot create the HTTP client: {}", error_chain(&e)),
            })?;
        Ok(Self {
            http,
            retry,
            idle_timeout,
        })
    }

    /// Posts `body` and streams the decoded answer, retrying as the policy allows.
    pub(crate) fn stream(
        &self,
        endpoint: Endpoint,
        body: Bytes,
        decoder: DecoderFactory,
    ) -> LlmStream {
        let (tx, rx) = mpsc::channel(64);
        let transport = self.clone();
        let task = tokio::spawn(async move {
            transport.run_stream(endpoint, body, decoder, tx).await;
        });
        Box::pin(ChannelStream {
            rx,
            task: AbortOnDrop(task),
        })
    }

    async fn run_stream(
        &self,
        endpoint: Endpoint,
        body: Bytes,
        decoder: DecoderFactory,
        tx: mpsc::Sender<Result<LlmEvent, LlmError>>,
    ) {
        let mut delivered = CompletionBuilder::new();
        let mut retries = 0;
        loop {
            let outcome = self
                .attempt_stream(&endpoint, &body, decoder(), &tx, &mut delivered)
                .await;
            let error = match outcome {
                Attempt::Done | Attempt::ReceiverGone => return,
                Attempt::Failed(error) => error,
            };
            let nothing_delivered = delivered.event_count() == 0;
            if nothing_delivered && error.is_transient() && retries < self.retry.max_retries {
                retries += 1;
                let wait = self.retry.backoff(retries, error.retry_after());
                tracing::warn!(url = %endpoint.url, retry = retries, wait_ms = wait.as_millis() as u64, error = %error, "model call failed, retrying");
                let notice = LlmEvent::Retrying {
                    attempt: retries + 1,
                    reason: error.to_string(),
                    wait_ms: u64::try_from(wait.as_millis()).unwrap_or(u64::MAX),
                };
                if tx.send(Ok(notice)).await.is_err() {
                    return;
                }
                tokio::time::sleep(wait).await;
                continue;
            }
            let error = if nothing_delivered {
                error
            } else {
                LlmError::Interrupted {
                    source: Box::new(error),
                    received: delivered.partial(),
                }
            };
            tracing::warn!(url = %endpoint.url, retries, error = %error, "model call failed");
            let _ = tx.send(Err(error)).await;
            return;
        }
    }

    async fn attempt_stream(
        &self,
        endpoint: &Endpoint,
        body: &Bytes,
        mut decoder: Box<dyn EventDecoder>,
        tx: &mpsc::Sender<Result<LlmEvent, LlmError>>,
        delivered: &mut CompletionBuilder,
    ) -> Attempt {
        let response = match self.send(endpoint, body).await {
            Ok(response) => response,
            Err(error) => return Attempt::Failed(error),
        };
        // The answer has begun: what follows is the wait for its first chunk.
        if tx.send(Ok(LlmEvent::Connected)).await.is_err() {
            return Attempt::ReceiverGone;
        }
        let mut bytes = response.bytes_stream();
        let mut parser = SseParser::new();
        let mut sse = Vec::new();
        let mut out = Vec::new();
        loop {
            let next = match tokio::time::timeout(self.idle_timeout, bytes.next()).await {
                Ok(next) => next,
                Err(_) => {
                    return Attempt::Failed(LlmError::Timeout {
                        after: self.idle_timeout,
                    });
                }
            };
            let (finished, failure) = match next {
                None => {
                    parser.finish();
                    match decoder.on_end(&mut out) {
                        Ok(()) => (true, None),
                        Err(e) => (false, Some(e)),
                    }
                }
                Some(Err(e)) => (
                    false,
                    Some(LlmError::StreamCut {
                        detail: error_chain(&e),
                    }),
                ),
                Some(Ok(chunk)) => {
                    let pushed = parser.push(&chunk, &mut sse);
                    let mut finished = false;
                    let mut failure = None;
                    for event in sse.drain(..) {
                        match decoder.on_event(&event, &mut out) {
                            Ok(false) => {}
                            Ok(true) => {
                                finished = true;
                                break;
                            }
                            Err(e) => {
                                failure = Some(e);
                                break;
                            }
                        }
                    }
                    // The events completed before an oversized line still count.
                    if !finished && failure.is_none() {
                        failure = pushed.err();
                    }
                    (finished, failure)
                }
            };
            for event in out.drain(..) {
                delivered.push(&event);
                if tx.send(Ok(event)).await.is_err() {
                    return Attempt::ReceiverGone;
                }
            }
            if let Some(error) = failure {
                return Attempt::Failed(error);
            }
            if finished {
                return Attempt::Done;
            }
        }
    }

    /// Posts `body` and returns the successful response, or the error the provider gave.
    async fn send(&self, endpoint: &Endpoint, body: &Bytes) -> Result<reqwest::Response, LlmError> {
        let mut request = self
            .http
            .post(&endpoint.url)
            .header("content-type", "application/json")
            // A clone of `Bytes` shares the buffer: a retry sends the same bytes again.
            .body(body.clone());
        for (name, value) in &endpoint.headers {
            request = request.header(*name, value);
        }
        let response = match tokio::time::timeout(self.idle_timeout, request.send()).await {
            Err(_) => {
                return Err(LlmError::Timeout {
                    after: self.idle_timeout,
                });
            }
            Ok(Err(e)) if e.is_builder() => {
                return Err(LlmError::InvalidRequest {
                    detail: format!("cannot post to {}: {}", endpoint.url, error_chain(&e)),
                });
            }
            Ok(Err(e)) => {
                return Err(LlmError::Connect {
                    url: endpoint.url.clone(),
                    message: error_chain(&e),
                });
            }
            Ok(Ok(response)) => response,
        };
        let status = response.status();
        if status.is_success() {
            return Ok(response);
        }
        let header = |name: &str| {
            response
                .headers()
                .get(name)
                .and_then(|v| v.to_str().ok())
                .map(str::to_owned)
        };
        let retry_after = header("retry-after-ms")
            .and_then(|ms| ms.trim().parse::<u64>().ok())
            .map(Duration::from_millis)
            .or_else(|| header("retry-after").and_then(|v| parse_retry_after(&v)));
        let text = match read_body(response, MAX_ERROR_BODY_BYTES, self.idle_timeout).await {
            Ok(Body::Whole(bytes) | Body::Cut(bytes)) => {
                String::from_utf8_lossy(&bytes).into_owned()
            }
            Err(LlmError::Timeout { .. }) => "(the error body did not arrive in time)".to_owned(),
            Err(e) => format!("(the error body could not be read: {e})"),
        };
        let (message, error_type) = describe_error_body(&text);
        Err(LlmError::Http {
            status: status.as_u16(),
            message,
            error_type,
            retry_after,
        })
    }

    /// Posts a non-streaming request and returns the JSON answer, retrying as the policy allows.
    pub(crate) async fn post_json(
        &self,
        endpoint: &Endpoint,
        body: Bytes,
    ) -> Result<serde_json::Value, LlmError> {
        let mut retries = 0;
        loop {
            let result = match self.send(endpoint, &body).await {
                Ok(response) => {
                    match read_body(response, MAX_RESPONSE_BYTES, self.idle_timeout).await {
                        Err(e) => Err(e),
                        Ok(Body::Cut(_)) => Err(LlmError::TooLarge {
                            what: "body",
                            limit: MAX_RESPONSE_BYTES,
                        }),
                        Ok(Body::Whole(bytes)) => {
                            serde_json::from_slice(&bytes).map_err(|e| LlmError::Malformed {
                                detail: format!(
                                    "the answer is not JSON ({e}): {}",
                                    crate::openai::stream::excerpt(&String::from_utf8_lossy(
                                        &bytes
                                    ))
                                ),
                            })
                        }
                    }
                }
                Err(e) => Err(e),
            };
            match result {
                Ok(value) => return Ok(value),
                Err(error) if error.is_transient() && retries < self.retry.max_retries => {
                    retries += 1;
                    let wait = self.retry.backoff(retries, error.retry_after());
                    tracing::warn!(url = %endpoint.url, retry = retries, wait_ms = wait.as_millis() as u64, error = %error, "model call failed, retrying");
                    tokio::time::sleep(wait).await;
                }
                Err(error) => return Err(error),
            }
        }
    }
}

/// Parses a tool call's accumulated argument text. Empty text means no arguments (`{}`); text that
/// is not JSON, or JSON that is not an object, is an error for this call only.
pub(crate) fn parse_arguments(
    id: &ToolCallId,
    name: &str,
    raw: &str,
) -> Result<serde_json::Value, ToolArgumentsError> {
    let error = |reason: String| ToolArgumentsError {
        call_id: id.clone(),
        tool: name.to_owned(),
        reason,
        raw: raw.to_owned(),
    };
    if raw.trim().is_empty() {
        return Ok(serde_json::Value::Object(serde_json::Map::new()));
    }
    match serde_json::from_str::<serde_json::Value>(raw) {
        Ok(value @ serde_json::Value::Object(_)) => Ok(value),
        Ok(other) => Err(error(format!(
            "the arguments are not a JSON object (they are {})",
            match other {
                serde_json::Value::Array(_) => "an array",
                serde_json::Value::String(_) => "a string",
                serde_json::Value::Number(_) => "a number",
                serde_json::Value::Bool(_) => "a boolean",
                _ => "null",
            }
        ))),
        Err(e) => Err(error(format!(
            "the arguments are not a JSON object (invalid JSON: {e})"
        ))),
    }
}

/// An error and its sources, joined: reqwest's own message rarely says what actually failed.
fn error_chain(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(s) = source {
        text.push_str(": ");
        text.push_str(&s.to_string());
        source = s.source();
    }
    text
}

struct AbortOnDrop(tokio::task::JoinHandle<()>);

impl Drop for AbortOnDrop {
    fn drop(&mut self) {
        self.0.abort();
    }
}

/// The receiving end of a streaming task; dropping it stops the task and its HTTP request.
struct ChannelStream {
    rx: mpsc::Receiver<Result<LlmEvent, LlmError>>,
    #[allow(dead_code)]
    task: AbortOnDrop,
}

impl Stream for ChannelStream {
    type Item = Result<LlmEvent, LlmError>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        self.rx.poll_recv(cx)
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;

    #[test]
    fn empty_arguments_mean_no_arguments() {
        let id = ToolCallId::from("c");
        assert_eq!(
            parse_arguments(&id, "t", "  ").ok(),
            Some(serde_json::json!({}))
        );
    }

    #[test]
    fn malformed_or_non_object_arguments_are_an_error_naming_the_call() {
        let id = ToolCallId::from("call_7");
        let err = parse_arguments(&id, "read_file", "{\"path\": ").unwrap_err();
        assert_eq!(err.call_id, id);
        assert_eq!(err.raw, "{\"path\": ");
        assert!(err.to_string().contains("call_7"));
        let err = parse_arguments(&id, "read_file", "[1]").unwrap_err();
        assert!(err.reason.contains("an array"));
    }
}
