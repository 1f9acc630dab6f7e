//! Test harness: a real server on a free port over a real SQLite file, the mock LLM over real
//! HTTP, and an SSE reader.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::PathBuf;
use std::time::Duration;

use braid_context::EngineSettings;
use braid_context::title::TitleSetting;
use braid_llm::{Provider, ProviderConfig, RetryPolicy};
use braid_server::AppConfig;
use braid_server::serve::{ServeOptions, Server, StoreLocation, start};
use braid_testkit::{MockLlm, Script, StreamReply};
use braid_tools::WorkspaceRoots;
use futures::StreamExt;
use serde_json::{Value, json};

pub struct TestServer {
    pub server: Option<Server>,
    pub url: String,
    pub mock: MockLlm,
    pub dir: tempfile::TempDir,
    pub workspace: PathBuf,
    pub http: reqwest::Client,
    pub token: Option<String>,
    /// What the server was started with, to start it again over the same data.
    pub options: ServeOptions,
}

pub struct Setup {
    pub script: Script,
    pub app: AppConfig,
    pub with_model: bool,
    /// An MCP servers file to start with.
    pub mcp_config: Option<PathBuf>,
    /// Whether contexts ask the model for a title (off: most tests script every request).
    pub titles: TitleSetting,
}

impl Setup {
    pub fn new(script: Script) -> Self {
        Self {
            script,
            app: AppConfig {
                heartbeat: Duration::from_millis(300),
                web_dir: PathBuf::from("/nonexistent/web/dist"),
                ..AppConfig::default()
            },
            with_model: true,
            mcp_config: None,
            titles: TitleSetting::Off,
        }
    }
}

pub fn provider(mock: &MockLlm) -> ProviderConfig {
    let mut config = ProviderConfig::new(Provider::OpenAi);
    config.base_url = mock.openai_base_url();
    config.model = "mock-model".into();
    config.retry = RetryPolicy::none();
    // The tests' conversations are sized for a 32k window; the 8,192-token default of a model
    // nobody knows leaves less than the built-in tools take beside the answer's reserve.
    config.capability_overrides.insert(
        "mock-model".into(),
        braid_llm::CapabilityOverride {
            context_window: Some(32_768),
            ..braid_llm::CapabilityOverride::default()
        },
    );
    config.idle_timeout = Duration::from_secs(5);
    config
}

impl TestServer {
    pub async fn start(script: Script) -> Self {
        Self::with(Setup::new(script)).await
    }

    pub async fn with(setup: Setup) -> Self {
        let dir = tempfile::tempdir().unwrap();
        let workspace = dir.path().join("workspace");
        std::fs::create_dir_all(&workspace).unwrap();
        std::fs::write(workspace.join("notes.txt"), "first line\nsecond line\n").unwrap();
        std::fs::create_dir_all(dir.path().join("data")).unwrap();
        // Workspaces may lie anywhere in the test's directory but its data directory.
        let workspace_roots =
            WorkspaceRoots::new([dir.path().to_path_buf()], [dir.path().join("data")]).unwrap();
        let mock = MockLlm::start(setup.script).await.unwrap();
        let token = setup.app.api_token.clone();
        let options = ServeOptions {
            bind: "127.0.0.1:0".parse().unwrap(),
            store: StoreLocation::Sqlite(dir.path().join("data/braid.db")),
            llm: setup.with_model.then(|| provider(&mock)),
            app: setup.app,
            engine: EngineSettings {
                default_model: "mock-model".into(),
                workspace_roots,
                titles: setup.titles,
                ..EngineSettings::default()
            },
            unload_every: Duration::from_secs(60),
            mcp_config: setup.mcp_config,
            advertise_url: None,
        };
        let server = start(options.clone()).await.unwrap();
        Self {
            url: server.url(),
            server: Some(server),
            mock,
            dir,
            workspace,
            http: reqwest::Client::new(),
            token,
            options,
        }
    }

    /// Stops the server and starts a new one over the same database and mock (on a new port).
    pub async fn restart(&mut self) {
        self.stop().await;
        let server = start(self.options.clone()).await.unwrap();
        self.url = server.url();
        self.server = Some(server);
    }

    /// A request to `path` on this server, with the token when one is set.
    pub fn req(&self, method: reqwest::Method, path: &str) -> reqwest::RequestBuilder {
        let r = self.http.request(method, format!("{}{}", self.url, path));
        match &self.token {
            Some(t) => r.bearer_auth(t),
            None => r,
        }
    }

    /// Sends a request; answers the status and the body as JSON (Null when empty or not JSON).
    pub async fn call(&self, method: &str, path: &str, body: Option<Value>) -> (u16, Value) {
        let mut r = self.req(method.parse().unwrap(), path);
        if let Some(b) = body {
            r = r
                .header("content-type", "application/json")
                .body(b.to_string());
        }
        let res = r.send().await.unwrap();
        let status = res.status().as_u16();
        let text = res.text().await.unwrap();
        (status, serde_json::from_str(&text).unwrap_or(Value::Null))
    }

    pub async fn raw(
        &self,
        method: &str,
        path: &str,
        body: impl Into<reqwest::Body>,
    ) -> (u16, Value) {
        let res = self
            .req(method.parse().unwrap(), path)
            .header("content-type", "application/json")
            .body(body)
            .send()
            .await
            .unwrap();
        let status = res.status().as_u16();
        let text = res.text().await.unwrap();
        (status, serde_json::from_str(&text).unwrap_or(Value::Null))
    }

    /// A context working in the test workspace; answers its id.
    pub async fn context(&self, config: Value) -> String {
        let mut config = config;
        config["workspace"] = json!(self.workspace.display().to_string());
        let (status, body) = self
            .call(
                "POST",
                "/v1/contexts",
                Some(json!({"title": "test", "config": config})),
            )
            .await;
        assert_eq!(status, 201, "{body}");
        body["id"].as_str().unwrap().to_owned()
    }

    /// A context whose workspace was cleared (a new one starts in the default workspace).
    pub async fn context_without_workspace(&self) -> String {
        let (status, body) = self.call("POST", "/v1/contexts", Some(json!({}))).await;
        assert_eq!(status, 201, "{body}");
        let id = body["id"].as_str().unwrap().to_owned();
        let (status, body) = self
            .call(
                "PATCH",
                &format!("/v1/contexts/{id}"),
                Some(json!({"config": {"workspace": null}})),
            )
            .await;
        assert_eq!(status, 200, "{body}");
        assert!(body["config"].get("workspace").is_none(), "{body}");
        id
    }

    pub async fn send_text(&self, id: &str, text: &str) -> Value {
        let (status, body) = self
            .call(
                "POST",
                &format!("/v1/contexts/{id}/messages"),
                Some(json!({"payload": {"type": "text", "text": text}})),
            )
            .await;
        assert_eq!(status, 202, "{body}");
        body
    }

    pub async fn events(&self, id: &str, query: &str, last_event_id: Option<u64>) -> SseReader {
        let mut r = self.req(
            reqwest::Method::GET,
            &format!("/v1/contexts/{id}/events{query}"),
        );
        if let Some(n) = last_event_id {
            r = r.header("Last-Event-ID", n.to_string());
        }
        let res = r.send().await.unwrap();
        assert_eq!(res.status().as_u16(), 200);
        assert!(
            res.headers()["content-type"]
                .to_str()
                .unwrap()
                .starts_with("text/event-stream")
        );
        SseReader {
            stream: Box::pin(res.bytes_stream()),
            buf: String::new(),
        }
    }

    /// Waits until the context rests; answers its state.
    pub async fn settle(&self, id: &str) -> Value {
        let deadline = tokio::time::Instant::now() + Duration::from_secs(20);
        loop {
            let (_, body) = self
                .call("GET", &format!("/v1/contexts/{id}/state"), None)
                .await;
            let t = body["state"]["type"].as_str().unwrap_or("").to_owned();
            if [
                "idle",
                "awaiting_tool_approval",
                "awaiting_user_answer",
                "paused",
                "failed",
            ]
            .contains(&t.as_str())
            {
                return body["state"].clone();
            }
            assert!(tokio::time::Instant::now() < deadline, "no rest: {body}");
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    }

    pub async fn messages(&self, id: &str) -> Vec<Value> {
        let (status, body) = self
            .call(
                "GET",
                &format!("/v1/contexts/{id}/messages?limit=1000"),
                None,
            )
            .await;
        assert_eq!(status, 200, "{body}");
        body["messages"].as_array().unwrap().clone()
    }

    pub async fn stop(&mut self) {
        if let Some(s) = self.server.take() {
            s.stop().await;
        }
    }
}

/// One SSE event.
#[derive(Debug, Clone)]
pub struct Sse {
    pub event: String,
    pub id: Option<u64>,
    pub data: Value,
}

pub struct SseReader {
    stream: std::pin::Pin<Box<dyn futures::Stream<Item = reqwest::Result<bytes::Bytes>> + Send>>,
    buf: String,
}

impl SseReader {
    /// The next event; `None` when the stream ended. Panics after `wait` without one.
    pub async fn next_within(&mut self, wait: Duration) -> Option<Sse> {
        loop {
            if let Some(end) = self.buf.find("\n\n") {
                let frame: String = self.buf[..end].to_owned();
                self.buf.drain(..end + 2);
                let mut e = Sse {
                    event: "message".into(),
                    id: None,
                    data: Value::Null,
                };
                let mut data = String::new();
                for line in frame.lines() {
                    if let Some(v) = line.strip_prefix("event:") {
                        e.event = v.trim().to_owned();
                    } else if let Some(v) = line.strip_prefix("id:") {
                        e.id = Some(v.trim().parse().unwrap());
                    } else if let Some(v) = line.strip_prefix("data:") {
                        data.push_str(v.strip_prefix(' ').unwrap_or(v));
                    }
                }
                if frame.lines().all(|l| l.starts_with(':')) {
                    continue;
                }
                e.data = serde_json::from_str(&data).unwrap_or(Value::Null);
                return Some(e);
            }
            match tokio::time::timeout(wait, self.stream.next()).await {
                Ok(Some(Ok(bytes))) => self.buf.push_str(&String::from_utf8_lossy(&bytes)),
                Ok(Some(Err(_))) | Ok(None) => return None,
                Err(_) => panic!("no event within {wait:?}"),
            }
        }
    }

    pub async fn next(&mut self) -> Option<Sse> {
        self.next_within(Duration::from_secs(10)).await
    }

    /// Events (heartbeats left out) up to and including the first that matches.
    pub async fn until(&mut self, done: impl Fn(&Sse) -> bool) -> Vec<Sse> {
        let mut out = Vec::new();
        loop {
            let e = self.next().await.expect("the stream ended early");
            if e.event == "heartbeat" {
                continue;
            }
            let stop = done(&e);
            out.push(e);
            if stop {
                return out;
            }
        }
    }
}

/// Whether an event is the `context_update` back to idle.
pub fn is_idle(e: &Sse) -> bool {
    e.event == "context_update"
        && e.data["current_state"]["type"] == "idle"
        && e.data.get("previous_state").is_some()
}

pub fn reply(pieces: &[&str]) -> StreamReply {
    StreamReply::answer(pieces)
}

/// An answer that calls tools: `(id, name, arguments)`.
pub fn calls(list: &[(&str, &str, Value)]) -> StreamReply {
    StreamReply::calls(list)
}

/// The concatenated deltas of content_delta events.
pub fn text_of(events: &[Sse]) -> String {
    events
        .iter()
        .filter(|e| e.event == "content_delta")
        .map(|e| e.data["delta"].as_str().unwrap().to_owned())
        .collect()
}

/// A server known only by its URL (a `braid serve` process).
pub struct TestServerUrl(pub String);

impl TestServerUrl {
    pub async fn events(&self, id: &str) -> SseReader {
        let res = reqwest::Client::new()
            .get(format!("{}/v1/contexts/{id}/events", self.0))
            .send()
            .await
            .unwrap();
        assert_eq!(res.status().as_u16(), 200);
        SseReader {
            stream: Box::pin(res.bytes_stream()),
            buf: String::new(),
        }
    }
}

impl SseReader {
    pub fn from_response(res: reqwest::Response) -> Self {
        assert_eq!(res.status().as_u16(), 200);
        SseReader {
            stream: Box::pin(res.bytes_stream()),
            buf: String::new(),
        }
    }
}
