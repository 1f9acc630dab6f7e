//! The application: what every handler shares ([`App`]) and the router with its layers (the
//! request guard, bearer token, metrics, body limit, CORS, the web UI as the fallback).

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::extract::{DefaultBodyLimit, MatchedPath, Request, State};
use axum::http::{HeaderValue, Method, header};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use braid_context::ContextRegistry;
use tokio_util::sync::CancellationToken;
use tower_http::cors::{AllowOrigin, CorsLayer};

use crate::body::{BodyLimit, MessageTextLimit};
use crate::error::ApiFailure;
use crate::forward::Forwarder;
use crate::guard::{RequestGuard, guard};
use crate::log_feed::LogFeeds;
use crate::mcp::McpDirectory;
use crate::metrics::Metrics;
use crate::web::WebUi;

/// The default body limit: 10 MiB.
pub const DEFAULT_MAX_BODY: usize = 10 * 1024 * 1024;

/// The default limit on the text of one send: 1 MiB.
pub const DEFAULT_MAX_MESSAGE_TEXT: usize = 1024 * 1024;

/// How the server behaves.
#[derive(Clone, Debug)]
pub struct AppConfig {
    /// The largest request body accepted, in bytes.
    pub max_body: usize,
    /// The most text one send may carry, in bytes (`--max-message-text`).
    pub max_message_text: usize,
    /// How often an idle event stream gets a heartbeat.
    pub heartbeat: Duration,
    /// When set, every API route requires `Authorization: Bearer <token>`.
    pub api_token: Option<String>,
    /// Origins allowed by CORS; none (the default) disables CORS. The request guard lets
    /// requests from these origins through besides the server's own.
    pub cors_origins: Vec<HeaderValue>,
    /// Host names (`name` or `name:port`) accepted in the `Host` header besides the bound
    /// address and the loopback names (`--allowed-host`).
    pub allowed_hosts: Vec<String>,
    /// The web UI's built files.
    pub web_dir: PathBuf,
    /// Whether the API may add, replace and remove servers in the MCP configuration file.
    pub mcp_edits: McpEdits,
    /// The sandbox commands run in: the default mode (`--sandbox`), whether unsandboxed
    /// commands are allowed (`--allow-unsandboxed`), and the paths no command may touch.
    pub sandbox: braid_tools::SandboxSettings,
}

/// `--mcp-config-readonly`: whether the API may edit the MCP configuration file. Adding a
/// stdio server runs its command on this machine, so an operator may keep that to the file.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum McpEdits {
    /// The default: the MCP panel adds, replaces and removes servers.
    #[default]
    Allowed,
    /// The file is only changed on the server; the API answers 403.
    Refused,
}

impl Default for AppConfig {
    fn default() -> Self {
        Self {
            max_body: DEFAULT_MAX_BODY,
            max_message_text: DEFAULT_MAX_MESSAGE_TEXT,
            heartbeat: Duration::from_secs(15),
            api_token: None,
            cors_origins: Vec::new(),
            allowed_hosts: Vec::new(),
            web_dir: PathBuf::from("web/dist"),
            mcp_edits: McpEdits::Allowed,
            sandbox: braid_tools::SandboxSettings::default(),
        }
    }
}

/// What every handler shares.
pub struct App {
    /// The live contexts.
    pub registry: Arc<ContextRegistry>,
    /// The counters `/metrics` shows.
    pub metrics: Arc<Metrics>,
    /// MCP servers' status and resources.
    pub mcp: Arc<dyn McpDirectory>,
    /// Settings.
    pub config: AppConfig,
    /// Cancelled when the server shuts down; event streams end with a notice.
    pub shutdown: CancellationToken,
    /// The OpenAPI document, built once.
    pub openapi: Arc<serde_json::Value>,
    /// Refuses requests with a foreign `Host` or `Origin`, or a body that is not JSON.
    pub guard: Arc<RequestGuard>,
    /// The event logs this replica follows for contexts other replicas run.
    pub log_feeds: Arc<LogFeeds>,
    /// Sends requests on to the replica that owns their context.
    pub forwarder: Forwarder,
    web: WebUi,
}

impl App {
    /// The application over a registry. `metrics` must be the one the model client reports to
    /// (see [`crate::metrics::MeteredLlm`]); `guard` is built for the address the server is
    /// bound to.
    pub fn new(
        registry: Arc<ContextRegistry>,
        metrics: Arc<Metrics>,
        mcp: Arc<dyn McpDirectory>,
        config: AppConfig,
        guard: RequestGuard,
        forwarder: Forwarder,
    ) -> Arc<Self> {
        let openapi = Arc::new(crate::openapi::document());
        let web = WebUi::new(&config.web_dir);
        let shutdown = CancellationToken::new();
        let log_feeds = LogFeeds::new(registry.services().store.clone(), shutdown.clone());
        crate::idempotency::spawn_expiry(registry.services().store.clone(), shutdown.clone());
        Arc::new(Self {
            registry,
            metrics,
            mcp,
            guard: Arc::new(guard),
            config,
            shutdown,
            log_feeds,
            forwarder,
            openapi,
            web,
        })
    }
}

/// The router of every route, the web UI and the layers.
pub fn router(app: Arc<App>) -> Router {
    // The document was built in `App::new`; this one is only for the routes.
    let router: Router<Arc<App>> =
        crate::routes::api().finish_api(&mut aide::openapi::OpenApi::default());
    let mut router = router
        .route_layer(middleware::from_fn_with_state(
            app.clone(),
            crate::forward::forward,
        ))
        .route_layer(middleware::from_fn_with_state(
            app.clone(),
            crate::idempotency::idempotent,
        ))
        .route_layer(middleware::from_fn_with_state(app.clone(), authenticate))
        .route_layer(middleware::from_fn_with_state(app.clone(), count))
        .fallback(fallback)
        .layer(DefaultBodyLimit::max(app.config.max_body))
        .layer(axum::Extension(BodyLimit(app.config.max_body)))
        .layer(axum::Extension(MessageTextLimit(
            app.config.max_message_text,
        )));
    if !app.config.cors_origins.is_empty() {
        router = router.layer(
            CorsLayer::new()
                .allow_origin(AllowOrigin::list(app.config.cors_origins.clone()))
                .allow_methods([
                    Method::GET,
                    Method::POST,
                    Method::PUT,
                    Method::PATCH,
                    Method::DELETE,
                ])
                .allow_headers([
                    header::AUTHORIZATION,
                    header::CONTENT_TYPE,
                    header::HeaderName::from_static("last-event-id"),
                    crate::idempotency::HEADER,
                ]),
        );
    }
    // Outermost, so nothing (CORS, the web UI, the body limit) sees a refused request.
    router
        .layer(middleware::map_response(json_error_body))
        .layer(middleware::from_fn_with_state(app.guard.clone(), guard))
        .with_state(app)
}

/// Whether a path is part of the API (as opposed to the web UI).
fn is_api(path: &str) -> bool {
    path == "/v1"
        || path.starts_with("/v1/")
        || path == "/metrics"
        || path == "/openapi.json"
        || path == "/health"
}

async fn authenticate(State(app): State<Arc<App>>, req: Request, next: Next) -> Response {
    let Some(token) = app.config.api_token.as_deref() else {
        return next.run(req).await;
    };
    if crate::routes::unauthenticated(req.uri().path()) {
        return next.run(req).await;
    }
    let given = req
        .headers()
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "))
        .map(str::trim);
    match given {
        Some(given) if same_secret(given.as_bytes(), token.as_bytes()) => next.run(req).await,
        _ => ApiFailure::unauthorized().into_response(),
    }
}

/// Compares without stopping at the first difference, so timing does not reveal the token.
fn same_secret(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// Gives an error answer without a body one like every other error's
/// (`{ "error": { "code", "message" } }`): axum answers a method a route lacks with an empty
/// 405.
async fn json_error_body(response: Response) -> Response {
    let status = response.status();
    let is_error = status.is_client_error() || status.is_server_error();
    if !is_error || response.headers().contains_key(header::CONTENT_TYPE) {
        return response;
    }
    let (parts, _) = response.into_parts();
    let mut answer = ApiFailure::bare(status).into_response();
    for name in [header::ALLOW, header::RETRY_AFTER] {
        if let Some(value) = parts.headers.get(&name) {
            answer.headers_mut().insert(name, value.clone());
        }
    }
    answer
}

async fn count(State(app): State<Arc<App>>, req: Request, next: Next) -> Response {
    let method = req.method().to_string();
    let route = req
        .extensions()
        .get::<MatchedPath>()
        .map(|p| p.as_str().to_owned())
        .unwrap_or_else(|| "unmatched".to_owned());
    let response = next.run(req).await;
    app.metrics
        .record_request(&method, &route, response.status().as_u16());
    response
}

async fn fallback(State(app): State<Arc<App>>, req: Request) -> Response {
    let path = req.uri().path().to_owned();
    if is_api(&path) || !(req.method() == Method::GET || req.method() == Method::HEAD) {
        app.metrics
            .record_request(req.method().as_str(), "unmatched", 404);
        return ApiFailure::no_route(req.method().as_str(), &path).into_response();
    }
    app.web.serve(req).await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secrets_compare_by_content() {
        assert!(same_secret(b"abc", b"abc"));
        assert!(!same_secret(b"abc", b"abd"));
        assert!(!same_secret(b"abc", b"abcd"));
    }

    #[test]
    fn api_paths_are_not_ui_routes() {
        assert!(is_api("/v1/contexts"));
        assert!(is_api("/metrics"));
        assert!(!is_api("/contexts/abc"));
        assert!(!is_api("/v1x"));
    }
}
