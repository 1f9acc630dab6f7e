//! OAuth against a local authorization server, through to tool calls: a protected MCP endpoint
//! (server-everything behind a bearer-token check) answers 401, Braid discovers the
//! authorization server, registers, and waits for a person; the test plays the person (opens
//! the authorization URL, hands the redirect to the callback), then calls a tool, lets the
//! short-lived token expire and calls again, which refreshes it. The same endpoint in DPoP mode
//! binds its tokens to Braid's key and asks for nonces at the token endpoint and at the server.

use crate::support;

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::Router;
use axum::body::Body;
use axum::extract::{Form, Query, State};
use axum::http::{HeaderMap, HeaderName, Method, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{any, get, post};
use braid_mcp::oauth::{Headless, PersonAuthorizer, TokenStore};
use braid_mcp::{ManagerOptions, McpConfig, McpManager, ServerConfig};
use braid_protocol::AgentRole;
use braid_protocol::api::McpServerStatus;
use braid_tools::{ToolContext, ToolRegistry};
use serde_json::{Value, json};
use support::*;

/// Credentials kept in memory, standing in for the store across two managers.
#[derive(Default)]
struct MemoryTokens(Mutex<HashMap<String, String>>);

#[async_trait::async_trait]
impl TokenStore for MemoryTokens {
    async fn load(&self, server: &str) -> Result<Option<String>, String> {
        Ok(self.0.lock().unwrap().get(server).cloned())
    }
    async fn save(&self, server: &str, credentials: &str) -> Result<(), String> {
        self.0
            .lock()
            .unwrap()
            .insert(server.to_string(), credentials.to_string());
        Ok(())
    }
    async fn clear(&self, server: &str) -> Result<(), String> {
        self.0.lock().unwrap().remove(server);
        Ok(())
    }
}

/// What the authorization server saw.
#[derive(Default)]
struct Seen {
    registrations: usize,
    grants: Vec<String>,
    valid_tokens: Vec<String>,
    /// DPoP mode: the claims of every proof that was accepted, token endpoint's and server's.
    accepted_proofs: Vec<Value>,
    /// DPoP mode: how often a nonce was asked for (token endpoint, server).
    nonce_challenges: (usize, usize),
}

/// The nonces the DPoP authorization server and resource server ask for.
const AS_NONCE: &str = "as-nonce-1";
const RS_NONCE: &str = "rs-nonce-1";

/// The claims of a DPoP proof (its signature is checked by the unit tests of `dpop`).
fn proof_claims(headers: &HeaderMap) -> Option<Value> {
    use base64::Engine;
    let proof = headers.get("dpop")?.to_str().ok()?;
    let header = proof.split('.').next()?;
    let header: Value = serde_json::from_slice(
        &base64::engine::general_purpose::URL_SAFE_NO_PAD
            .decode(header)
            .ok()?,
    )
    .ok()?;
    if header["typ"] != "dpop+jwt" || header["jwk"]["kty"] != "EC" {
        return None;
    }
    let claims = proof.split('.').nth(1)?;
    serde_json::from_slice(
        &base64::engine::general_purpose::URL_SAFE_NO_PAD
            .decode(claims)
            .ok()?,
    )
    .ok()
}

#[derive(Clone)]
struct Auth {
    base: String,
    upstream: String,
    seen: Arc<Mutex<Seen>>,
    http: reqwest::Client,
    /// Whether tokens are DPoP-bound (RFC 9449) rather than bearer tokens.
    dpop: bool,
}

async fn protected_resource(State(auth): State<Auth>) -> Response {
    axum::Json(json!({
        "resource": format!("{}/mcp", auth.base),
        "authorization_servers": [auth.base],
    }))
    .into_response()
}

async fn metadata(State(auth): State<Auth>) -> Response {
    let base = &auth.base;
    axum::Json(json!({
        "issuer": base,
        "authorization_endpoint": format!("{base}/authorize"),
        "token_endpoint": format!("{base}/token"),
        "registration_endpoint": format!("{base}/register"),
        "response_types_supported": ["code"],
        "grant_types_supported": ["authorization_code", "refresh_token"],
        "code_challenge_methods_supported": ["S256"],
        "token_endpoint_auth_methods_supported": ["none"],
    }))
    .into_response()
}

async fn register(State(auth): State<Auth>, body: axum::Json<Value>) -> Response {
    auth.seen.lock().unwrap().registrations += 1;
    let mut client = body.0;
    client["client_id"] = json!("braid-test-client");
    (StatusCode::CREATED, axum::Json(client)).into_response()
}

async fn authorize(Query(query): Query<HashMap<String, String>>) -> Response {
    assert_eq!(
        query.get("code_challenge_method").map(String::as_str),
        Some("S256")
    );
    let redirect = format!(
        "{}?code=the-code&state={}",
        query["redirect_uri"],
        urlencode(&query["state"])
    );
    (StatusCode::FOUND, [(header::LOCATION, redirect)]).into_response()
}

fn urlencode(text: &str) -> String {
    text.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                (b as char).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect()
}

async fn token(
    State(auth): State<Auth>,
    headers: HeaderMap,
    Form(form): Form<HashMap<String, String>>,
) -> Response {
    let grant = form["grant_type"].clone();
    let mut seen = auth.seen.lock().unwrap();
    if auth.dpop {
        let claims = proof_claims(&headers).expect("a DPoP proof on the token request");
        assert_eq!(claims["htm"], "POST");
        assert_eq!(claims["htu"], format!("{}/token", auth.base));
        if claims["nonce"] != AS_NONCE {
            seen.nonce_challenges.0 += 1;
            return (
                StatusCode::BAD_REQUEST,
                [("dpop-nonce", AS_NONCE)],
                axum::Json(json!({"error": "use_dpop_nonce"})),
            )
                .into_response();
        }
        seen.accepted_proofs.push(claims);
    }
    seen.grants.push(grant.clone());
    let (access, refresh, expires_in) = match grant.as_str() {
        "authorization_code" => {
            assert_eq!(form["code"], "the-code");
            assert!(form.contains_key("code_verifier"), "PKCE verifier sent");
            ("token-1".to_string(), Some("refresh-1"), 2)
        }
        "refresh_token" => {
            assert_eq!(form["refresh_token"], "refresh-1");
            // Each refresh gives a new token: token-2, token-3...
            (format!("token-{}", seen.grants.len()), None, 3600)
        }
        other => panic!("unexpected grant {other}"),
    };
    // A refreshed token replaces the old one, which stops working.
    seen.valid_tokens = vec![access.clone()];
    let token_type = if auth.dpop { "DPoP" } else { "Bearer" };
    let mut body =
        json!({"access_token": access, "token_type": token_type, "expires_in": expires_in});
    if let Some(refresh) = refresh {
        body["refresh_token"] = json!(refresh);
    }
    axum::Json(body).into_response()
}

/// The MCP endpoint: a valid bearer token or 401 with the resource metadata; then the request
/// goes to server-everything as it is, and its answer (JSON or an SSE stream) comes back.
async fn mcp(
    State(auth): State<Auth>,
    method: Method,
    headers: HeaderMap,
    body: axum::body::Bytes,
) -> Response {
    let scheme = if auth.dpop { "DPoP " } else { "Bearer " };
    let bearer = headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix(scheme))
        .map(str::to_string);
    let valid = bearer
        .as_ref()
        .is_some_and(|t| auth.seen.lock().unwrap().valid_tokens.contains(t));
    if valid && auth.dpop {
        let token = bearer.as_deref().unwrap_or_default();
        let claims = proof_claims(&headers).expect("a DPoP proof on the MCP request");
        use base64::Engine;
        let digest = aws_lc_rs::digest::digest(&aws_lc_rs::digest::SHA256, token.as_bytes());
        assert_eq!(
            claims["ath"],
            base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(digest.as_ref())
        );
        assert_eq!(claims["htm"], method.as_str());
        let mut seen = auth.seen.lock().unwrap();
        if claims["nonce"] != RS_NONCE {
            seen.nonce_challenges.1 += 1;
            let challenge = "DPoP error=\"use_dpop_nonce\"";
            return (
                StatusCode::UNAUTHORIZED,
                [
                    (header::WWW_AUTHENTICATE, challenge),
                    (HeaderName::from_static("dpop-nonce"), RS_NONCE),
                ],
            )
                .into_response();
        }
        seen.accepted_proofs.push(claims);
    }
    if !valid {
        let challenge = format!(
            "{}error=\"invalid_token\", resource_metadata=\"{}/.well-known/oauth-protected-resource/mcp\"",
            scheme, auth.base
        );
        return (
            StatusCode::UNAUTHORIZED,
            [(header::WWW_AUTHENTICATE, challenge)],
        )
            .into_response();
    }
    let mut request = auth.http.request(method, &auth.upstream).body(body);
    for name in [
        "content-type",
        "accept",
        "mcp-session-id",
        "mcp-protocol-version",
        "last-event-id",
    ] {
        if let Some(value) = headers.get(name) {
            request = request.header(name, value);
        }
    }
    let upstream = request.send().await.unwrap();
    let mut response = Response::builder().status(upstream.status().as_u16());
    for name in ["content-type", "mcp-session-id"] {
        if let Some(value) = upstream.headers().get(name) {
            response = response.header(name, value.as_bytes());
        }
    }
    response
        .body(Body::from_stream(upstream.bytes_stream()))
        .unwrap()
}

async fn protected_everything(
    seen: Arc<Mutex<Seen>>,
    upstream: &HttpEverything,
    dpop: bool,
) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let auth = Auth {
        base: base.clone(),
        upstream: upstream.url.clone(),
        seen,
        http: reqwest::Client::new(),
        dpop,
    };
    let app = Router::new()
        .route(
            "/.well-known/oauth-protected-resource/mcp",
            get(protected_resource),
        )
        .route("/.well-known/oauth-authorization-server", get(metadata))
        .route("/register", post(register))
        .route("/authorize", get(authorize))
        .route("/token", post(token))
        .route("/mcp", any(mcp))
        .with_state(auth);
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    format!("{base}/mcp")
}

#[tokio::test]
async fn a_person_authorizes_a_server_its_token_refreshes_and_is_kept_across_restarts() {
    let upstream = HttpEverything::start().await;
    let seen = Arc::new(Mutex::new(Seen::default()));
    let url = protected_everything(seen.clone(), &upstream, false).await;
    let authorizer = Arc::new(PersonAuthorizer::new(
        "http://127.0.0.1:9/v1/mcp/oauth/callback",
    ));
    let tokens = Arc::new(MemoryTokens::default());
    let manager = McpManager::new(
        Arc::new(ToolRegistry::new()),
        ManagerOptions {
            authorizer: Some(authorizer.clone()),
            tokens: Some(tokens.clone()),
            ..fast_options()
        },
    );
    manager
        .start(McpConfig {
            servers: [("protected".to_string(), ServerConfig::http(&url))].into(),
        })
        .await;

    // The server waits for a person, showing where to authorize.
    wait(&manager, "protected", McpServerStatus::NeedsAuthorization).await;
    let authorization_url = manager
        .server("protected")
        .unwrap()
        .authorization_url
        .expect("the URL to open");
    assert!(
        authorization_url.contains("code_challenge="),
        "{authorization_url}"
    );
    assert_eq!(
        seen.lock().unwrap().registrations,
        1,
        "dynamic registration"
    );

    // The person opens it; the authorization server sends the browser back to Braid.
    let browser = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap();
    let redirect = browser.get(&authorization_url).send().await.unwrap();
    let callback = redirect.headers()[header::LOCATION]
        .to_str()
        .unwrap()
        .to_string();
    assert_eq!(authorizer.complete(&callback).unwrap(), "protected");

    wait(&manager, "protected", McpServerStatus::Ready).await;
    let echo = manager.registry().get("mcp__protected__echo").unwrap();
    let ctx = ToolContext::new(None, AgentRole::Actor);
    let first = echo.call(json!({"message": "one"}), &ctx).await.unwrap();
    assert!(
        first.content.to_string().contains("one"),
        "{}",
        first.content
    );

    // The first token lives two seconds; the next call refreshes it instead of failing.
    tokio::time::sleep(Duration::from_millis(2500)).await;
    let second = echo.call(json!({"message": "two"}), &ctx).await.unwrap();
    assert!(
        second.content.to_string().contains("two"),
        "{}",
        second.content
    );
    assert_eq!(
        seen.lock().unwrap().grants,
        ["authorization_code", "refresh_token"],
        "one authorization, then one refresh"
    );
    assert_eq!(
        manager.server("protected").unwrap().status,
        McpServerStatus::Ready
    );
    manager.shutdown().await;
    assert!(
        tokens.0.lock().unwrap()["protected"].contains("token-2"),
        "the refreshed token is kept"
    );

    // As after a restart of Braid: the kept credentials connect without asking anyone.
    let restarted = McpManager::new(
        Arc::new(ToolRegistry::new()),
        ManagerOptions {
            authorizer: Some(Arc::new(PersonAuthorizer::new("http://127.0.0.1:9/cb"))),
            tokens: Some(tokens.clone()),
            ..fast_options()
        },
    );
    restarted
        .start(McpConfig {
            servers: [("protected".to_string(), ServerConfig::http(&url))].into(),
        })
        .await;
    wait(&restarted, "protected", McpServerStatus::Ready).await;
    let echo = restarted.registry().get("mcp__protected__echo").unwrap();
    let third = echo.call(json!({"message": "three"}), &ctx).await.unwrap();
    assert!(
        third.content.to_string().contains("three"),
        "{}",
        third.content
    );
    assert_eq!(seen.lock().unwrap().grants.len(), 2, "no new authorization");

    // The server revokes the token before it expires: the next call gets a 401, which
    // refreshes the token and retries once, and the server's tools stay.
    seen.lock().unwrap().valid_tokens.clear();
    let fourth = echo.call(json!({"message": "four"}), &ctx).await.unwrap();
    assert!(
        fourth.content.to_string().contains("four"),
        "{}",
        fourth.content
    );
    assert_eq!(
        seen.lock().unwrap().grants,
        ["authorization_code", "refresh_token", "refresh_token"]
    );
    let info = restarted.server("protected").unwrap();
    assert_eq!(info.status, McpServerStatus::Ready);
    assert!(info.tools.iter().any(|t| t.ends_with("__echo")), "{info:?}");
    restarted.shutdown().await;
    upstream.stop().await;
}

#[tokio::test]
async fn without_a_person_a_server_that_needs_one_fails_with_the_reason() {
    let upstream = HttpEverything::start().await;
    let url = protected_everything(Arc::default(), &upstream, false).await;
    let manager = manager();
    manager
        .start(McpConfig {
            servers: [("protected".to_string(), ServerConfig::http(&url))].into(),
        })
        .await;
    wait(&manager, "protected", McpServerStatus::Failed).await;
    let error = manager
        .server("protected")
        .unwrap()
        .error
        .unwrap_or_default();
    assert!(error.contains("authorization by a person"), "{error}");
    manager.shutdown().await;
    upstream.stop().await;
}

#[tokio::test]
async fn a_dpop_server_gets_key_bound_tokens_and_its_nonces_are_used() {
    let upstream = HttpEverything::start().await;
    let seen = Arc::new(Mutex::new(Seen::default()));
    let url = protected_everything(seen.clone(), &upstream, true).await;
    let manager = McpManager::new(
        Arc::new(ToolRegistry::new()),
        ManagerOptions {
            authorizer: Some(Arc::new(Headless::new().unwrap())),
            ..fast_options()
        },
    );
    // No `dpop` in the entry: the server's `DPoP` challenge is enough.
    manager
        .start(McpConfig {
            servers: [("bound".to_string(), ServerConfig::http(&url))].into(),
        })
        .await;
    wait(&manager, "bound", McpServerStatus::Ready).await;
    let echo = manager.registry().get("mcp__bound__echo").unwrap();
    let output = echo
        .call(
            json!({"message": "bound"}),
            &ToolContext::new(None, AgentRole::Actor),
        )
        .await
        .unwrap();
    assert!(
        output.content.to_string().contains("bound"),
        "{}",
        output.content
    );
    {
        let seen = seen.lock().unwrap();
        // The token endpoint asks once for its nonce; the server twice, since Braid sends the
        // refused request again to read the nonce rmcp's transport drops (see `dpop::TokenHttp`).
        // After that every proof carries the nonce, and every accepted proof is a fresh one.
        assert_eq!(seen.nonce_challenges, (1, 2));
        assert!(
            seen.accepted_proofs.len() >= 3,
            "{:?}",
            seen.accepted_proofs
        );
        let mut ids: Vec<&str> = seen
            .accepted_proofs
            .iter()
            .filter_map(|c| c["jti"].as_str())
            .collect();
        let all = ids.len();
        ids.sort_unstable();
        ids.dedup();
        assert_eq!(ids.len(), all, "no proof is used twice");
    }
    manager.shutdown().await;
    upstream.stop().await;
}
