//! `Idempotency-Key` (IETF httpapi draft "The Idempotency-Key HTTP Header Field") on every
//! `POST`: a client that retries a request whose answer it lost sends the same key again and
//! gets the first answer (same status, same body) while the work (a context made, a turn run)
//! is done once. The keys and answers live in the store, so this holds across a restart and
//! between replicas; the same key with another body is refused (422), and a key whose first
//! request still runs answers 409.

use std::sync::Arc;
use std::time::Duration;

use axum::body::{Body, Bytes};
use axum::extract::{Request, State};
use axum::http::{HeaderName, HeaderValue, Method, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use braid_protocol::ErrorCode;
use braid_store::{IdempotencyClaim, IdempotencyWindow, IdempotentRequest, Store, StoredAnswer};
use sha2::{Digest, Sha256};
use tokio_util::sync::CancellationToken;

use crate::app::App;
use crate::error::ApiFailure;

/// The header's name.
pub const HEADER: HeaderName = HeaderName::from_static("idempotency-key");

/// The longest key accepted, in bytes (a UUID is 36).
pub const MAX_KEY_LENGTH: usize = 255;

/// The largest answer kept to give again, in bytes; a larger one is sent once and its key
/// released (no answer of this API comes near it).
const MAX_KEPT_ANSWER: usize = 4 * 1024 * 1024;

/// How many keys the table keeps at most; the oldest go first.
pub const KEYS_KEPT: u64 = 100_000;

/// How often expired keys are removed.
const EXPIRY_EVERY: Duration = Duration::from_secs(60);

/// Runs a `POST` that carries an `Idempotency-Key` once per key and body, answering repeats
/// with the stored answer. Requests without the header, and other methods, pass untouched.
pub async fn idempotent(State(app): State<Arc<App>>, req: Request, next: Next) -> Response {
    if req.method() != Method::POST {
        return next.run(req).await;
    }
    let key = match req.headers().get(&HEADER).map(parse_key) {
        None => return next.run(req).await,
        Some(Ok(key)) => key,
        Some(Err(failure)) => return failure.into_response(),
    };
    let scope = format!("{} {}", req.method(), req.uri().path());
    let (parts, body) = req.into_parts();
    let bytes = match axum::body::to_bytes(body, app.config.max_body).await {
        Ok(bytes) => bytes,
        Err(_) => return ApiFailure::too_large(app.config.max_body).into_response(),
    };
    let fingerprint = fingerprint(&bytes);
    let store = app.registry.services().store.clone();
    let request = IdempotentRequest {
        scope: &scope,
        key: &key,
        fingerprint: &fingerprint,
    };
    let claim = match store
        .claim_idempotency_key(request, IdempotencyWindow::default())
        .await
    {
        Ok(claim) => claim,
        Err(error) => {
            tracing::error!(%error, scope, "idempotency key not claimed");
            return ApiFailure::new(
                ErrorCode::StorageFailed,
                format!("the Idempotency-Key could not be checked: {error}"),
                Some("Idempotency-Key".into()),
            )
            .into_response();
        }
    };
    match claim {
        IdempotencyClaim::Answered(answer) => replay(answer),
        IdempotencyClaim::InProgress => ApiFailure::new(
            ErrorCode::Conflict,
            "the first request with this Idempotency-Key is still running; retry when it has answered",
            Some("Idempotency-Key".into()),
        )
        .into_response(),
        IdempotencyClaim::OtherBody => ApiFailure::invalid(
            "Idempotency-Key",
            "this Idempotency-Key was first sent with another request body; use a new key for a new request",
        )
        .into_response(),
        IdempotencyClaim::Claimed => {
            let held = Claim {
                store,
                scope,
                key,
                settled: false,
            };
            let response = next
                .run(Request::from_parts(parts, Body::from(bytes)))
                .await;
            held.settle(response).await
        }
    }
}

/// A claimed key while its request runs: released when the request ends without an answer
/// to keep (its client went away and the handler was dropped).
struct Claim {
    store: Arc<dyn Store>,
    scope: String,
    key: String,
    settled: bool,
}

impl Claim {
    /// Keeps the answer for the key's next use, or releases the key when the answer is a
    /// server failure (the retry should run again) or too large to keep; answers the response.
    async fn settle(mut self, response: Response) -> Response {
        self.settled = true;
        let status = response.status();
        if status.is_server_error() {
            self.release().await;
            return response;
        }
        let (parts, body) = response.into_parts();
        let bytes = match axum::body::to_bytes(body, MAX_KEPT_ANSWER).await {
            Ok(bytes) => bytes,
            Err(error) => {
                tracing::warn!(%error, scope = self.scope, "answer not kept for its Idempotency-Key");
                self.release().await;
                return ApiFailure::new(
                    ErrorCode::Internal,
                    format!("the answer could not be read: {error}"),
                    None,
                )
                .into_response();
            }
        };
        let answer = StoredAnswer {
            status: status.as_u16(),
            content_type: parts
                .headers
                .get(header::CONTENT_TYPE)
                .and_then(|v| v.to_str().ok())
                .map(str::to_owned),
            body: bytes.to_vec(),
        };
        if let Err(error) = self
            .store
            .record_idempotent_answer(&self.scope, &self.key, &answer)
            .await
        {
            tracing::error!(%error, scope = self.scope, "answer not kept for its Idempotency-Key");
            self.release().await;
        }
        Response::from_parts(parts, Body::from(bytes))
    }

    async fn release(&self) {
        if let Err(error) = self
            .store
            .release_idempotency_key(&self.scope, &self.key)
            .await
        {
            tracing::warn!(%error, scope = self.scope, "idempotency key not released; it frees itself within a minute");
        }
    }
}

impl Drop for Claim {
    fn drop(&mut self) {
        if self.settled {
            return;
        }
        let store = self.store.clone();
        let scope = std::mem::take(&mut self.scope);
        let key = std::mem::take(&mut self.key);
        if let Ok(runtime) = tokio::runtime::Handle::try_current() {
            runtime.spawn(async move {
                if let Err(error) = store.release_idempotency_key(&scope, &key).await {
                    tracing::warn!(%error, scope, "idempotency key not released; it frees itself within a minute");
                }
            });
        }
    }
}

/// The stored answer, sent again.
fn replay(answer: StoredAnswer) -> Response {
    let status = StatusCode::from_u16(answer.status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    let mut response = (status, Bytes::from(answer.body)).into_response();
    if let Some(value) = answer
        .content_type
        .and_then(|t| HeaderValue::from_str(&t).ok())
    {
        response.headers_mut().insert(header::CONTENT_TYPE, value);
    }
    response
}

/// The key of the header: the draft's structured-field string (`"..."`), or the bare text
/// that clients commonly send; 1 to [`MAX_KEY_LENGTH`] visible ASCII characters.
fn parse_key(value: &HeaderValue) -> Result<String, ApiFailure> {
    let invalid = |why: &str| ApiFailure::invalid("Idempotency-Key", why.to_owned());
    let text = value
        .to_str()
        .map_err(|_| invalid("the Idempotency-Key must be visible ASCII"))?
        .trim();
    let key = text
        .strip_prefix('"')
        .and_then(|t| t.strip_suffix('"'))
        .unwrap_or(text);
    if key.is_empty() || key.len() > MAX_KEY_LENGTH {
        return Err(invalid(
            "the Idempotency-Key must be 1 to 255 characters long",
        ));
    }
    if !key.bytes().all(|b| b.is_ascii_graphic() || b == b' ') {
        return Err(invalid("the Idempotency-Key must be visible ASCII"));
    }
    Ok(key.to_owned())
}

/// The body's digest: SHA-256, in hex.
fn fingerprint(body: &[u8]) -> String {
    Sha256::digest(body)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// Removes expired keys every minute until `shutdown`, so the table stays bounded.
pub fn spawn_expiry(store: Arc<dyn Store>, shutdown: CancellationToken) {
    tokio::spawn(async move {
        let mut every = tokio::time::interval(EXPIRY_EVERY);
        every.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            tokio::select! {
                () = shutdown.cancelled() => return,
                _ = every.tick() => {}
            }
            match store
                .expire_idempotency_keys(IdempotencyWindow::default(), KEYS_KEPT)
                .await
            {
                Ok(0) => {}
                Ok(removed) => tracing::debug!(removed, "idempotency keys expired"),
                Err(error) => tracing::warn!(%error, "idempotency keys not expired"),
            }
        }
    });
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
    use super::*;

    #[test]
    fn a_key_is_read_quoted_or_bare_and_refused_when_empty_long_or_not_ascii() {
        assert_eq!(
            parse_key(&HeaderValue::from_static("\"abc-1\"")).unwrap(),
            "abc-1"
        );
        assert_eq!(
            parse_key(&HeaderValue::from_static("abc-1")).unwrap(),
            "abc-1"
        );
        assert!(parse_key(&HeaderValue::from_static("\"\"")).is_err());
        let long = "k".repeat(MAX_KEY_LENGTH + 1);
        assert!(parse_key(&HeaderValue::from_str(&long).unwrap()).is_err());
        let failure = parse_key(&HeaderValue::from_bytes(b"caf\xc3\xa9").unwrap()).unwrap_err();
        assert_eq!(failure.status, StatusCode::UNPROCESSABLE_ENTITY);
        assert_eq!(failure.body.error.field.as_deref(), Some("Idempotency-Key"));
    }

    #[test]
    fn the_fingerprint_tells_bodies_apart() {
        assert_eq!(fingerprint(b"{}"), fingerprint(b"{}"));
        assert_ne!(fingerprint(b"{\"a\":1}"), fingerprint(b"{\"a\":2}"));
        assert_eq!(fingerprint(b"").len(), 64);
    }
}
