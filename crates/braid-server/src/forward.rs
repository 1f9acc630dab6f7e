//! Forwarding between replicas (PostgreSQL): a request for a context that another live replica
//! owns is sent on to the owner's advertised address over HTTP, with the caller's headers (the
//! same bearer token works on every replica), and the owner's answer is returned as is.
//!
//! The context's event stream is the exception: any replica serves it from the shared event
//! log (see [`crate::events`]). When the owner cannot be reached, the request waits for its
//! lease to lapse (at most the lease time) and then runs here: this replica takes the context
//! over and recovers it as after a crash.

use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{HeaderName, HeaderValue};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use braid_protocol::{ContextId, ErrorCode};
use braid_store::{Backend, Lease};

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

fn client() -> &'static reqwest::Client {
    static CLIENT: OnceLock<reqwest::Client> = OnceLock::new();
    CLIENT.get_or_init(|| {
        reqwest::Client::builder()
            .connect_timeout(CONNECT_TIMEOUT)
            .timeout(FORWARD_TIMEOUT)
            .build()
            .unwrap_or_default()
    })
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
    match send(&app, &owner, &parts, body.clone()).await {
        Ok(response) => response,
        Err(error) => {
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
    }
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

async fn send(
    app: &App,
    owner: &Lease,
    parts: &axum::http::request::Parts,
    body: axum::body::Bytes,
) -> Result<Response, reqwest::Error> {
    let base = owner
        .address
        .as_deref()
        .unwrap_or_default()
        .trim_end_matches('/');
    let target = parts
        .uri
        .path_and_query()
        .map(|p| p.as_str())
        .unwrap_or("/");
    let mut request = client().request(parts.method.clone(), format!("{base}{target}"));
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
    let me = app.registry.services().store.replica().id.clone();
    if let Ok(me) = HeaderValue::from_str(&me) {
        request = request.header(HeaderName::from_static(FORWARDED_HEADER), me);
    }
    let answer = request.body(body).send().await?;
    let status = answer.status();
    let headers = answer.headers().clone();
    let bytes = answer.bytes().await?;
    let mut response = Response::new(Body::from(bytes));
    *response.status_mut() = status;
    for (name, value) in &headers {
        if name == axum::http::header::CONTENT_TYPE || name.as_str().starts_with("x-") {
            response.headers_mut().insert(name.clone(), value.clone());
        }
    }
    Ok(response)
}

#[cfg(test)]
mod tests {
    use super::*;

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
