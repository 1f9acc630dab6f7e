//! The mock LLM HTTP server: answers each request with the script's next response and records
//! every request.

use std::collections::{BTreeMap, VecDeque};
use std::net::SocketAddr;
use std::sync::{Arc, Mutex, MutexGuard};

use axum::body::{Body, Bytes};
use axum::extract::State;
use axum::http::{HeaderMap, Method, StatusCode, Uri, header};
use axum::response::Response;
use axum::serve::ListenerExt as _;
use tokio::sync::{mpsc, oneshot};

use crate::script::{DiscoveryReply, Script, ScriptedResponse, StreamReply};
use crate::wire::{
    Api, DiscoveryEndpoint, Step, WholeAnswer, discovery_answer, stream_steps, whole_answer,
};

/// A request the mock received.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RecordedRequest {
    /// `POST`, usually.
    pub method: String,
    /// The path, e.g. `/v1/chat/completions`.
    pub path: String,
    /// Headers, names lower-cased (values that are not text are left out).
    pub headers: BTreeMap<String, String>,
    /// The body as received.
    pub body: String,
}

impl RecordedRequest {
    /// The body parsed as JSON, if it is JSON.
    pub fn json(&self) -> Option<serde_json::Value> {
        serde_json::from_str(&self.body).ok()
    }

    /// A header's value.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .get(&name.to_ascii_lowercase())
            .map(String::as_str)
    }
}

/// The mock could not start.
#[derive(Debug, thiserror::Error)]
pub enum MockError {
    /// The address could not be bound.
    #[error("cannot listen on {addr}: {source}")]
    Bind {
        /// The address.
        addr: SocketAddr,
        /// Why.
        source: std::io::Error,
    },
}

/// Chooses the answer to a request from the request itself, for tests whose requests arrive in
/// no fixed order (many conversations at once). Consulted when the script has no response left.
pub type Responder = Arc<dyn Fn(&RecordedRequest) -> ScriptedResponse + Send + Sync>;

#[derive(Default)]
struct Shared {
    responses: VecDeque<ScriptedResponse>,
    requests: Vec<RecordedRequest>,
    responder: Option<Responder>,
    discovery: Option<DiscoveryReply>,
    discovery_requests: Vec<RecordedRequest>,
}

/// The most discovery requests remembered; older ones are forgotten (a client asks once per
/// model, so only a runaway client reaches it).
pub const MAX_DISCOVERY_REQUESTS: usize = 1024;

type SharedState = Arc<Mutex<Shared>>;

fn lock(state: &SharedState) -> MutexGuard<'_, Shared> {
    // A test that panicked while holding the lock leaves consistent data: keep going.
    state
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// Connections the kernel completes for the mock before it accepts them. With the 128 that
/// tokio's `TcpListener::bind` asks for (the standard library's), a thousand streams opened at
/// once overflowed the queue: the kernel dropped the handshakes it had no room for, the clients
/// sent them again a second later, and `braid-load`'s direct streams (its baseline) ran at
/// about 20,000 chunks/s instead of 32,000.
const LISTEN_BACKLOG: u32 = 4096;

/// Listens on `addr` with [`LISTEN_BACKLOG`] (lowered by the kernel to `net.core.somaxconn`).
fn listen(addr: SocketAddr) -> std::io::Result<tokio::net::TcpListener> {
    let socket = if addr.is_ipv4() {
        tokio::net::TcpSocket::new_v4()?
    } else {
        tokio::net::TcpSocket::new_v6()?
    };
    // As `TcpListener::bind` does on Unix: a port given to `braid-mock-llm --port` can be
    // bound again as soon as the mock before it stops, its connections still in TIME_WAIT.
    #[cfg(unix)]
    socket.set_reuseaddr(true)?;
    socket.bind(addr)?;
    socket.listen(LISTEN_BACKLOG)
}

/// A running mock LLM. Stops when dropped.
pub struct MockLlm {
    addr: SocketAddr,
    state: SharedState,
    shutdown: Option<oneshot::Sender<()>>,
}

impl MockLlm {
    /// Starts the mock on a free loopback port.
    pub async fn start(script: Script) -> Result<Self, MockError> {
        Self::start_on(SocketAddr::from(([127, 0, 0, 1], 0)), script).await
    }

    /// Starts the mock on `addr` (port 0 picks a free one; see [`MockLlm::addr`]).
    pub async fn start_on(addr: SocketAddr, script: Script) -> Result<Self, MockError> {
        let listener = listen(addr).map_err(|source| MockError::Bind { addr, source })?;
        let addr = listener
            .local_addr()
            .map_err(|source| MockError::Bind { addr, source })?;
        let state: SharedState = Arc::new(Mutex::new(Shared {
            responses: script.responses.into(),
            requests: Vec::new(),
            responder: None,
            discovery: script.discovery,
            discovery_requests: Vec::new(),
        }));
        let app = axum::Router::new()
            .fallback(handle)
            .with_state(state.clone());
        let (shutdown, stopped) = oneshot::channel::<()>();
        // A stream's last frames are written back to back: with Nagle's algorithm the second
        // waited for the client's delayed ACK, and every streamed answer ended 40 ms late
        // (model servers and their proxies send at once).
        let listener = listener.tap_io(|tcp| {
            if let Err(error) = tcp.set_nodelay(true) {
                tracing::debug!(%error, "TCP_NODELAY not set on a mock connection");
            }
        });
        tokio::spawn(async move {
            let served = axum::serve(listener, app)
                .with_graceful_shutdown(async {
                    let _ = stopped.await;
                })
                .await;
            if let Err(error) = served {
                tracing::warn!(%addr, %error, "mock LLM server stopped with an error");
            }
        });
        tracing::debug!(%addr, "mock LLM listening");
        Ok(Self {
            addr,
            state,
            shutdown: Some(shutdown),
        })
    }

    /// The address it listens on.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// `http://127.0.0.1:PORT`: the base URL for Anthropic clients.
    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// `http://127.0.0.1:PORT/v1`: the base URL for OpenAI-compatible clients.
    pub fn openai_base_url(&self) -> String {
        format!("{}/v1", self.url())
    }

    /// Every request received so far, in order.
    pub fn requests(&self) -> Vec<RecordedRequest> {
        lock(&self.state).requests.clone()
    }

    /// Every request received since the last call, oldest first; the mock forgets them (a long
    /// run calls this now and then so the record stays small).
    pub fn take_requests(&self) -> Vec<RecordedRequest> {
        std::mem::take(&mut lock(&self.state).requests)
    }

    /// Answers every request the script has no response left for with `responder`'s choice.
    pub fn respond_with(
        &self,
        responder: impl Fn(&RecordedRequest) -> ScriptedResponse + Send + Sync + 'static,
    ) {
        lock(&self.state).responder = Some(Arc::new(responder));
    }

    /// The discovery requests received so far (`/props`, `/api/show`, `/v1/models`), in order;
    /// they are not among [`MockLlm::requests`] and use no scripted response.
    pub fn discovery_requests(&self) -> Vec<RecordedRequest> {
        lock(&self.state).discovery_requests.clone()
    }

    /// Changes what the discovery endpoints report (`None`: they answer 404).
    pub fn set_discovery(&self, reply: Option<DiscoveryReply>) {
        lock(&self.state).discovery = reply;
    }

    /// How many requests were received.
    pub fn request_count(&self) -> usize {
        lock(&self.state).requests.len()
    }

    /// Waits until at least `count` requests were received, or `within` has passed; says
    /// whether they were. For tests that must act while a request is out: a state can change
    /// before the request it announces reaches the mock.
    pub async fn wait_for_requests(&self, count: usize, within: std::time::Duration) -> bool {
        let deadline = tokio::time::Instant::now() + within;
        while self.request_count() < count {
            if tokio::time::Instant::now() >= deadline {
                return false;
            }
            tokio::time::sleep(std::time::Duration::from_millis(5)).await;
        }
        true
    }

    /// Appends a response to the script.
    pub fn push_response(&self, response: impl Into<ScriptedResponse>) {
        lock(&self.state).responses.push_back(response.into());
    }

    /// How many scripted responses are left.
    pub fn remaining_responses(&self) -> usize {
        lock(&self.state).responses.len()
    }

    /// Stops serving; requests in flight are dropped.
    pub fn stop(&mut self) {
        if let Some(shutdown) = self.shutdown.take() {
            let _ = shutdown.send(());
        }
    }
}

impl Drop for MockLlm {
    fn drop(&mut self) {
        self.stop();
    }
}

async fn handle(
    State(state): State<SharedState>,
    method: Method,
    uri: Uri,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let path = uri.path().to_owned();
    let recorded = RecordedRequest {
        method: method.to_string(),
        path: path.clone(),
        headers: headers
            .iter()
            .filter_map(|(name, value)| {
                value
                    .to_str()
                    .ok()
                    .map(|v| (name.as_str().to_owned(), v.to_owned()))
            })
            .collect(),
        body: String::from_utf8_lossy(&body).into_owned(),
    };
    if let Some(endpoint) = DiscoveryEndpoint::from_request(method.as_str(), &path) {
        let request_json = recorded.json();
        let answer = {
            let mut shared = lock(&state);
            if shared.discovery_requests.len() >= MAX_DISCOVERY_REQUESTS {
                shared.discovery_requests.remove(0);
            }
            shared.discovery_requests.push(recorded);
            shared
                .discovery
                .as_ref()
                .and_then(|reply| discovery_answer(reply, endpoint, request_json.as_ref()))
        };
        return match answer {
            Some(body) => json_response(StatusCode::OK, &body, None),
            None => json_response(
                StatusCode::NOT_FOUND,
                &serde_json::json!({ "error": { "message": format!("braid-mock-llm does not serve {method} {path} for this script"), "type": "not_found" } }),
                None,
            ),
        };
    }
    let Some(api) = Api::from_path(&path).filter(|_| method == Method::POST) else {
        lock(&state).requests.push(recorded);
        return json_response(
            StatusCode::NOT_FOUND,
            &serde_json::json!({ "error": { "message": format!("braid-mock-llm serves POST /v1/chat/completions and POST /v1/messages, not {method} {path}"), "type": "not_found" } }),
            None,
        );
    };
    let next = {
        let mut shared = lock(&state);
        let from_responder = match (&shared.responder, shared.responses.is_empty()) {
            (Some(responder), true) => Some(Arc::clone(responder)),
            _ => None,
        };
        shared.requests.push(recorded.clone());
        let count = shared.requests.len();
        match from_responder {
            Some(responder) => {
                // Outside the lock: the responder is the caller's code.
                drop(shared);
                Ok(responder(&recorded))
            }
            None => shared.responses.pop_front().ok_or(count),
        }
    };
    let response = match next {
        Ok(response) => response,
        Err(count) => {
            return json_response(
                StatusCode::INTERNAL_SERVER_ERROR,
                &serde_json::json!({ "error": { "message": format!("braid-mock-llm: the script has no response left for request {count}"), "type": "mock_script_exhausted" } }),
                None,
            );
        }
    };
    let head = serde_json::from_slice::<RequestHead>(&body).unwrap_or_default();
    let model = head
        .model
        .as_ref()
        .and_then(|m| m.as_str())
        .unwrap_or("mock-model")
        .to_owned();
    let streamed = head
        .stream
        .as_ref()
        .and_then(|s| s.as_bool())
        .unwrap_or(false);
    if let ScriptedResponse::Stream(reply) = &response
        && reply.head_delay_ms > 0
    {
        tokio::time::sleep(std::time::Duration::from_millis(reply.head_delay_ms)).await;
    }
    match response {
        ScriptedResponse::Hang => hang().await,
        ScriptedResponse::Error(error) => {
            let status =
                StatusCode::from_u16(error.status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
            match &error.body {
                serde_json::Value::String(text) => {
                    let mut response = Response::new(Body::from(text.clone()));
                    *response.status_mut() = status;
                    if let Some(retry_after) = &error.retry_after
                        && let Ok(value) = retry_after.parse()
                    {
                        response.headers_mut().insert(header::RETRY_AFTER, value);
                    }
                    response
                }
                body => json_response(status, body, error.retry_after.as_deref()),
            }
        }
        ScriptedResponse::Stream(reply) if streamed => stream_response(api, &reply, &model),
        ScriptedResponse::Stream(reply) => whole_response(whole_answer(api, &reply, &model)).await,
    }
}

/// What the mock reads of a model request: the model it names and whether it asks for a
/// stream. The rest of the body is checked as JSON but not built into a tree: a tree of every
/// request's history and tool schemas was 3.4% of the CPU of a thousand turns under braid-load,
/// whose figures are meant to be the server's. (Tests read the whole body from the recording.)
#[derive(Debug, Default, serde::Deserialize)]
struct RequestHead {
    model: Option<serde_json::Value>,
    stream: Option<serde_json::Value>,
}

async fn hang() -> Response {
    std::future::pending::<()>().await;
    Response::new(Body::empty())
}

fn json_response(
    status: StatusCode,
    body: &serde_json::Value,
    retry_after: Option<&str>,
) -> Response {
    let mut response = Response::new(Body::from(body.to_string()));
    *response.status_mut() = status;
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        header::HeaderValue::from_static("application/json"),
    );
    if let Some(value) = retry_after.and_then(|v| v.parse().ok()) {
        response.headers_mut().insert(header::RETRY_AFTER, value);
    }
    response
}

async fn whole_response(answer: WholeAnswer) -> Response {
    let mut answer = answer;
    loop {
        match answer {
            WholeAnswer::Json(body) => return json_response(StatusCode::OK, &body, None),
            WholeAnswer::Error(status, body) => {
                return json_response(
                    StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR),
                    &body,
                    None,
                );
            }
            WholeAnswer::Delayed(delay, inner) => {
                tokio::time::sleep(delay).await;
                answer = *inner;
            }
            WholeAnswer::Hang => return hang().await,
            WholeAnswer::Cut => {
                // Promise a body, then break it off.
                let body = Body::from_stream(futures::stream::iter([
                    Ok::<_, std::io::Error>(Bytes::from_static(b"{\"id\":")),
                    Err(std::io::Error::other("scripted cut")),
                ]));
                return Response::new(body);
            }
        }
    }
}

fn stream_response(api: Api, reply: &StreamReply, model: &str) -> Response {
    let steps = stream_steps(api, reply, model);
    let (tx, rx) = mpsc::channel::<Result<Bytes, std::io::Error>>(16);
    tokio::spawn(async move {
        for step in steps {
            match step {
                Step::Send(text) => {
                    if tx.send(Ok(Bytes::from(text))).await.is_err() {
                        return;
                    }
                }
                Step::Pause(delay) => tokio::time::sleep(delay).await,
                Step::Cut => {
                    // Let what was sent reach the client first: an error in the body makes the
                    // server abort the connection, dropping anything still buffered.
                    tokio::time::sleep(std::time::Duration::from_millis(50)).await;
                    let _ = tx.send(Err(std::io::Error::other("scripted cut"))).await;
                    return;
                }
                Step::Hang => {
                    // Hold the stream open until the client goes away.
                    tx.closed().await;
                    return;
                }
            }
        }
    });
    let body = Body::from_stream(futures::stream::unfold(rx, |mut rx| async move {
        rx.recv().await.map(|item| (item, rx))
    }));
    let mut response = Response::new(body);
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        header::HeaderValue::from_static("text/event-stream"),
    );
    response.headers_mut().insert(
        header::CACHE_CONTROL,
        header::HeaderValue::from_static("no-cache"),
    );
    response
}
