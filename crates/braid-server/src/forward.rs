//! Forwarding between replicas (PostgreSQL): a request for a context that another live replica
//! owns is sent on to the owner's advertised address over HTTP, with the caller's headers (the
//! same bearer token works on every replica), and the owner's answer is returned as is.
//!
//! The context's event stream is the exception: any replica serves it from the shared event
//! log (see [`crate::events`]). When the owner cannot be reached, the request waits for its
//! lease to lapse (at most the lease time) and then runs here: this replica takes the context
//! over and recovers it as after a crash.

use std::sync::Arc;
use std::time::{Duration, Instant};

use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{HeaderName, HeaderValue, Method, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use braid_protocol::api::ApiError;
use braid_protocol::{ContextId, ErrorCode};
use braid_store::{Backend, Lease};
use futures::StreamExt as _;

use crate::app::App;
use crate::error::ApiFailure;

/// Marks a forwarded request (its value is the forwarding replica's id), so it is never
/// forwarded again: a replica that no longer owns the context answers it itself.
pub const FORWARDED_HEADER: &str = "x-braid-forwarded-by";

/// How long a forwarded request may take.
const FORWARD_TIMEOUT: Duration = Duration::from_secs(60);
/// How long to wait for the owner's TCP connection before treating it as gone.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(1);
/// How often a request waiting for an unreachable owner's lease to lapse looks again.
const LAPSE_POLL: Duration = Duration::from_millis(200);
/// The largest answer of an owner that is passed on (it is read whole before it is): a message
/// list with images can be large, but not this large.
pub const MAX_FORWARDED_ANSWER: usize = 64 * 1024 * 1024;

/// The forwarding client could not be set up (the server does not start without it).
#[derive(Debug, thiserror::Error)]
#[error("the HTTP client that forwards requests to other replicas cannot be built: {0}")]
pub struct ForwarderError(#[source] reqwest::Error);

/// Sends requests on to the replica that owns their context: one HTTP client with its
/// timeouts, built once at startup, and the bound on the owner's answer.
pub struct Forwarder {
    client: reqwest::Client,
    timeout: Duration,
    answer_limit: usize,
}

/// Why a request could not be forwarded.
#[derive(Debug)]
enum Failure {
    /// The owner could not be reached: the request never left, so it may run elsewhere.
    NotDelivered(reqwest::Error),
    /// The request was sent but no full answer came back in time: the owner may have carried
    /// it out.
    NoAnswer(reqwest::Error),
    /// The owner's answer is larger than the limit.
    TooLarge,
}

impl Forwarder {
    /// The forwarder with the standard timeouts and answer limit.
    pub fn new() -> Result<Self, ForwarderError> {
        Self::with_limits(CONNECT_TIMEOUT, FORWARD_TIMEOUT, MAX_FORWARDED_ANSWER)
    }

    /// A forwarder with other limits (tests use short ones).
    pub fn with_limits(
        connect: Duration,
        timeout: Duration,
        answer_limit: usize,
    ) -> Result<Self, ForwarderError> {
        let client = reqwest::Client::builder()
            .connect_timeout(connect)
            .timeout(timeout)
            .build()
            .map_err(ForwarderError)?;
        Ok(Self {
            client,
            timeout,
            answer_limit,
        })
    }

    /// Sends the request to `base` (the owner's advertised address) and reads its answer, at
    /// most the answer limit.
    async fn send(
        &self,
        me: &str,
        base: &str,
        parts: &axum::http::request::Parts,
        body: axum::body::Bytes,
    ) -> Result<Response, Failure> {
        let target = parts
            .uri
            .path_and_query()
            .map(|p| p.as_str())
            .unwrap_or("/");
        let mut request = self.client.request(
            parts.method.clone(),
            format!("{}{target}", base.trim_end_matches('/')),
        );
        for (name, value) in &parts.headers {
            if name == axum::http::header::HOST
                || name == axum::http::header::CONTENT_LENGTH
                || name == axum::http::header::CONNECTION
                || name == axum::http::header::ORIGIN
            {
                continue;
            }
            request = request.header(name, value);
        }
        if let Ok(me) = HeaderValue::from_str(me) {
            request = request.header(HeaderName::from_static(FORWARDED_HEADER), me);
        }
        let answer = request.body(body).send().await.map_err(|error| {
            if error.is_connect() {
                Failure::NotDelivered(error)
            } else {
                Failure::NoAnswer(error)
            }
        })?;
        let status = answer.status();
        let headers = answer.headers().clone();
        if answer
            .content_length()
            .is_some_and(|length| length > self.answer_limit as u64)
        {
            return Err(Failure::TooLarge);
        }
        let mut bytes = Vec::new();
        let mut stream = answer.bytes_stream();
        while let Some(chunk) = stream.next().await {
            let chunk = chunk.map_err(Failure::NoAnswer)?;
            if bytes.len() + chunk.len() > self.answer_limit {
                return Err(Failure::TooLarge);
            }
            bytes.extend_from_slice(&chunk);
        }
        let mut response = Response::new(Body::from(bytes));
        *response.status_mut() = status;
        for (name, value) in &headers {
            if name == axum::http::header::CONTENT_TYPE || name.as_str().starts_with("x-") {
                response.headers_mut().insert(name.clone(), value.clone());
            }
        }
        Ok(response)
    }

    /// What the client is told when the owner took the request but gave no (full) answer. A
    /// request that changes something may have been carried out, so it is neither run here nor
    /// reported as refused: the client is told to look before it sends it again.
    fn no_answer(
        &self,
        method: &Method,
        owner: &Lease,
        context: ContextId,
        error: &reqwest::Error,
    ) -> ApiFailure {
        let owner_at = format!(
            "replica {} at {}",
            owner.owner,
            owner.address.as_deref().unwrap_or("?")
        );
        let message = if is_read(method) {
            format!(
                "context {context} is owned by {owner_at}, which received the request but gave no full answer within {} s ({error}); retry",
                self.timeout.as_secs()
            )
        } else {
            format!(
                "context {context} is owned by {owner_at}, which received this {method} but gave no full answer within {} s ({error}): it may have been carried out; read the context (its messages or events) before sending it again",
                self.timeout.as_secs()
            )
        };
        ApiFailure::new(ErrorCode::Timeout, message, None)
    }

    fn too_large(&self, owner: &Lease, context: ContextId) -> ApiFailure {
        ApiFailure {
            status: StatusCode::BAD_GATEWAY,
            body: ApiError::new(
                ErrorCode::PayloadTooLarge,
                format!(
                    "the answer of replica {} (owner of context {context}) is larger than the forwarding limit of {} bytes (MAX_FORWARDED_ANSWER); ask the owner directly at {}",
                    owner.owner,
                    self.answer_limit,
                    owner.address.as_deref().unwrap_or("?")
                ),
                None,
            ),
        }
    }
}

/// Whether the request only reads (running it twice changes nothing).
fn is_read(method: &Method) -> bool {
    method == Method::GET || method == Method::HEAD || method == Method::OPTIONS
}

/// The context a path is about, unless it is the event stream (served by every replica).
fn forwardable_context(path: &str) -> Option<ContextId> {
    let rest = path.strip_prefix("/v1/contexts/")?;
    let (id, tail) = rest.split_once('/').unwrap_or((rest, ""));
    if tail == "events" {
        return None;
    }
    id.parse().ok()
}

/// The middleware: forwards requests for contexts owned elsewhere.
pub async fn forward(State(app): State<Arc<App>>, req: Request, next: Next) -> Response {
    let store = app.registry.services().store.clone();
    if store.backend() != Backend::Postgres || req.headers().contains_key(FORWARDED_HEADER) {
        return next.run(req).await;
    }
    let Some(context) = forwardable_context(req.uri().path()) else {
        return next.run(req).await;
    };
    if app.registry.is_live(context).await {
        return next.run(req).await;
    }
    let Some(owner) = remote_owner(&app, context).await else {
        return next.run(req).await;
    };
    let (parts, body) = req.into_parts();
    let body = match axum::body::to_bytes(body, app.config.max_body).await {
        Ok(body) => body,
        Err(_) => return ApiFailure::too_large(app.config.max_body).into_response(),
    };
    let me = store.replica().id.clone();
    let base = owner.address.clone().unwrap_or_default();
    let error = match app.forwarder.send(&me, &base, &parts, body.clone()).await {
        Ok(response) => return response,
        Err(Failure::TooLarge) => return app.forwarder.too_large(&owner, context).into_response(),
        Err(Failure::NoAnswer(error)) if !is_read(&parts.method) => {
            tracing::warn!(%context, owner = %owner.owner, %error, method = %parts.method, "the owner took a forwarded request but did not answer");
            return app
                .forwarder
                .no_answer(&parts.method, &owner, context, &error)
                .into_response();
        }
        Err(Failure::NotDelivered(error) | Failure::NoAnswer(error)) => error,
    };
    tracing::warn!(%context, owner = %owner.owner, %error, "owner unreachable; waiting for its lease to lapse");
    let deadline = Instant::now() + store.replica().lease_ttl + Duration::from_secs(1);
    while Instant::now() < deadline {
        if remote_owner(&app, context).await.is_none() {
            return next.run(Request::from_parts(parts, Body::from(body))).await;
        }
        tokio::time::sleep(LAPSE_POLL).await;
    }
    ApiFailure::new(
        ErrorCode::Conflict,
        format!(
            "context {context} is owned by replica {} at {}, which does not answer; retry in a few seconds",
            owner.owner,
            owner.address.as_deref().unwrap_or("?")
        ),
        None,
    )
    .into_response()
}

/// The context's owner when it is another live replica with an address.
async fn remote_owner(app: &App, context: ContextId) -> Option<Lease> {
    match app.registry.services().store.lease(context).await {
        Ok(Some(lease)) if lease.live && !lease.mine && lease.address.is_some() => Some(lease),
        Ok(_) => None,
        Err(error) => {
            tracing::warn!(%context, %error, "lease not read; the request runs here");
            None
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;

    /// An owner replica on loopback that answers every request with `answer` after `delay`.
    async fn owner(
        delay: Duration,
        answer: impl Fn() -> Response + Clone + Send + Sync + 'static,
    ) -> String {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let address = listener.local_addr().unwrap();
        let router = axum::Router::new().fallback(move || {
            let answer = answer.clone();
            async move {
                tokio::time::sleep(delay).await;
                answer()
            }
        });
        tokio::spawn(async move { axum::serve(listener, router).await });
        format!("http://{address}")
    }

    fn lease(address: &str) -> Lease {
        Lease {
            owner: "replica-a".into(),
            address: Some(address.into()),
            token: 3,
            live: true,
            mine: false,
        }
    }

    fn post() -> axum::http::request::Parts {
        let (parts, ()) = Request::builder()
            .method(Method::POST)
            .uri("/v1/contexts/x/messages")
            .header("content-type", "application/json")
            .body(())
            .unwrap()
            .into_parts();
        parts
    }

    async fn body_json(response: Response) -> serde_json::Value {
        let bytes = axum::body::to_bytes(response.into_body(), usize::MAX)
            .await
            .unwrap();
        serde_json::from_slice(&bytes).unwrap()
    }

    #[test]
    fn the_forwarder_builds_with_the_standard_limits() {
        let forwarder = Forwarder::new().unwrap();
        assert_eq!(forwarder.timeout, FORWARD_TIMEOUT);
        assert_eq!(forwarder.answer_limit, MAX_FORWARDED_ANSWER);
    }

    #[tokio::test]
    async fn the_owners_answer_is_passed_on_with_its_status_and_type() {
        let base = owner(Duration::ZERO, || {
            (
                StatusCode::ACCEPTED,
                [("content-type", "application/json")],
                "{\"message_id\":\"m\"}",
            )
                .into_response()
        })
        .await;
        let forwarder = Forwarder::with_limits(CONNECT_TIMEOUT, FORWARD_TIMEOUT, 1024).unwrap();
        let response = forwarder
            .send("replica-b", &base, &post(), "{}".into())
            .await
            .unwrap();
        assert_eq!(response.status(), StatusCode::ACCEPTED);
        assert_eq!(body_json(response).await["message_id"], "m");
    }

    #[tokio::test]
    async fn an_owners_answer_above_the_limit_is_a_502_naming_the_limit() {
        // With a length, and streamed without one: both are refused.
        let sized = owner(Duration::ZERO, || "x".repeat(2048).into_response()).await;
        let streamed = owner(Duration::ZERO, || {
            let chunks = (0..8).map(|_| Ok::<_, std::io::Error>(vec![b'x'; 512]));
            Body::from_stream(futures::stream::iter(chunks)).into_response()
        })
        .await;
        let forwarder = Forwarder::with_limits(CONNECT_TIMEOUT, FORWARD_TIMEOUT, 1024).unwrap();
        for base in [sized, streamed] {
            let failure = forwarder
                .send("replica-b", &base, &post(), "{}".into())
                .await
                .unwrap_err();
            assert!(matches!(failure, Failure::TooLarge), "{failure:?}");
            let context = ContextId::new();
            let answer = forwarder.too_large(&lease(&base), context).into_response();
            assert_eq!(answer.status(), StatusCode::BAD_GATEWAY);
            let body = body_json(answer).await;
            assert_eq!(body["error"]["code"], "payload_too_large");
            let message = body["error"]["message"].as_str().unwrap();
            assert!(message.contains("1024 bytes"), "{message}");
            assert!(message.contains("replica-a"), "{message}");
            assert!(message.contains(&base), "{message}");
        }
    }

    #[tokio::test]
    async fn a_post_the_owner_answers_too_late_is_reported_as_maybe_done_not_refused() {
        let base = owner(Duration::from_secs(3), || {
            StatusCode::ACCEPTED.into_response()
        })
        .await;
        let forwarder =
            Forwarder::with_limits(CONNECT_TIMEOUT, Duration::from_millis(300), 1024).unwrap();
        let failure = forwarder
            .send("replica-b", &base, &post(), "{}".into())
            .await
            .unwrap_err();
        let Failure::NoAnswer(error) = failure else {
            panic!("a request the owner took is not one that never left: {failure:?}");
        };
        let context = ContextId::new();
        let answer = forwarder
            .no_answer(&Method::POST, &lease(&base), context, &error)
            .into_response();
        // Not 409 ("refused, retry"): the owner may have stored it.
        assert_eq!(answer.status(), StatusCode::GATEWAY_TIMEOUT);
        let body = body_json(answer).await;
        assert_eq!(body["error"]["code"], "timeout");
        let message = body["error"]["message"].as_str().unwrap();
        assert!(message.contains("may have been carried out"), "{message}");
        assert!(message.contains("before sending it again"), "{message}");
    }

    #[tokio::test]
    async fn an_owner_that_cannot_be_reached_never_got_the_request() {
        // A port nobody listens on: bound, then closed.
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let address = listener.local_addr().unwrap();
        drop(listener);
        let forwarder = Forwarder::new().unwrap();
        let failure = forwarder
            .send(
                "replica-b",
                &format!("http://{address}"),
                &post(),
                "{}".into(),
            )
            .await
            .unwrap_err();
        assert!(matches!(failure, Failure::NotDelivered(_)), "{failure:?}");
    }

    #[test]
    fn context_routes_are_forwarded_except_the_event_stream() {
        let id = ContextId::new();
        assert_eq!(forwardable_context(&format!("/v1/contexts/{id}")), Some(id));
        assert_eq!(
            forwardable_context(&format!("/v1/contexts/{id}/messages")),
            Some(id)
        );
        assert_eq!(
            forwardable_context(&format!("/v1/contexts/{id}/events")),
            None
        );
        assert_eq!(forwardable_context("/v1/contexts"), None);
        assert_eq!(forwardable_context("/v1/tools"), None);
    }
}
