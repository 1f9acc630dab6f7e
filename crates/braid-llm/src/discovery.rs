//! Discovery: asking the model server behind the base URL what the model in use can do.
//!
//! Three kinds of server say it: llama.cpp (`GET /props`: `default_generation_settings.n_ctx`
//! or `n_ctx`, `modalities.vision`, and `chat_template_caps.supports_tool_calls`: whether the
//! model's chat template takes tool calls), Ollama (`POST /api/show`: `model_info.<arch>.context_length`
//! and a `capabilities` list) and vLLM or any OpenAI-compatible server that adds it
//! (`GET /v1/models`: `data[].max_model_len`). All three are asked at once, each with a short
//! timeout and a bounded answer, never retried; what they report is kept per (base URL, model),
//! even when it is nothing, so a model is discovered once. A failure only means the figures come
//! from the table or the default.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::Value;
use tokio::sync::OnceCell;

/// How long one discovery request may take.
pub const DISCOVERY_TIMEOUT: Duration = Duration::from_secs(2);

/// The largest discovery answer read (Ollama's `/api/show` carries the model's template and
/// licence); a bigger one counts as a failure.
pub const MAX_DISCOVERY_ANSWER_BYTES: usize = 4 * 1024 * 1024;

/// The most models whose discovery is remembered by one client; beyond it, models are not
/// discovered (their figures come from the table).
pub const MAX_DISCOVERED_MODELS: usize = 256;

/// What a model server reported of one model; `None` for what it did not say.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ServerReport {
    /// Tokens of prompt plus answer the server runs the model with.
    pub context_window: Option<u32>,
    /// Whether the model takes images.
    pub vision: Option<bool>,
    /// Whether the model calls tools.
    pub tool_calling: Option<bool>,
}

impl ServerReport {
    /// This report's figures, completed by `other`'s where this one has none.
    fn or(self, other: Self) -> Self {
        Self {
            context_window: self.context_window.or(other.context_window),
            vision: self.vision.or(other.vision),
            tool_calling: self.tool_calling.or(other.tool_calling),
        }
    }

    /// Whether the server said nothing.
    pub fn is_empty(&self) -> bool {
        *self == Self::default()
    }
}

/// The kind of model server a discovery request is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ServerKind {
    /// llama.cpp's `llama-server` (`GET /props`).
    LlamaCpp,
    /// Ollama (`POST /api/show`).
    Ollama,
    /// vLLM or another OpenAI-compatible server listing `max_model_len` (`GET /v1/models`).
    OpenAiCompatible,
}

/// Why one discovery request told nothing.
#[derive(Debug, thiserror::Error)]
pub enum DiscoveryError {
    /// The request failed (refused, timed out, cut).
    #[error("request to {url} failed: {detail}")]
    Request {
        /// The URL asked.
        url: String,
        /// What failed.
        detail: String,
    },
    /// The server answered with an error status (404: it does not serve this).
    #[error("{url} answered HTTP {status}")]
    Status {
        /// The URL asked.
        url: String,
        /// The status.
        status: u16,
    },
    /// The answer was larger than [`MAX_DISCOVERY_ANSWER_BYTES`].
    #[error("the answer of {url} is larger than {limit} bytes")]
    TooLarge {
        /// The URL asked.
        url: String,
        /// The limit.
        limit: usize,
    },
    /// The answer was not JSON.
    #[error("the answer of {url} is not JSON: {detail}")]
    NotJson {
        /// The URL asked.
        url: String,
        /// The parser's complaint.
        detail: String,
    },
}

/// Reads llama.cpp's `/props`: the slot context size, whether a vision projector is loaded, and
/// whether the chat template renders tool calls (`chat_template_caps`, in servers since 2025;
/// `supports_tool_calls`, else `supports_tools`). Older servers say nothing of tools.
pub fn parse_llama_cpp_props(props: &Value) -> ServerReport {
    let n_ctx = props
        .pointer("/default_generation_settings/n_ctx")
        .or_else(|| props.get("n_ctx"))
        .and_then(Value::as_u64);
    let template = props.get("chat_template_caps");
    let tool_calling = template.and_then(|caps| {
        caps.get("supports_tool_calls")
            .or_else(|| caps.get("supports_tools"))
            .and_then(Value::as_bool)
    });
    ServerReport {
        context_window: n_ctx.and_then(window),
        vision: props.pointer("/modalities/vision").and_then(Value::as_bool),
        tool_calling,
    }
}

/// Reads Ollama's `/api/show`: `model_info["<architecture>.context_length"]` and the
/// `capabilities` list (`vision`, `tools`).
pub fn parse_ollama_show(show: &Value) -> ServerReport {
    let info = show.get("model_info");
    let context_window = info
        .and_then(|info| {
            let arch = info.get("general.architecture")?.as_str()?;
            info.get(format!("{arch}.context_length"))?.as_u64()
        })
        .and_then(window);
    let capabilities: Option<Vec<&str>> = show
        .get("capabilities")
        .and_then(Value::as_array)
        .map(|list| list.iter().filter_map(Value::as_str).collect());
    ServerReport {
        context_window,
        vision: capabilities.as_ref().map(|c| c.contains(&"vision")),
        tool_calling: capabilities.as_ref().map(|c| c.contains(&"tools")),
    }
}

/// Reads an OpenAI-style `/v1/models` list: `max_model_len` of the entry whose `id` is `model`
/// (compared case-insensitively), as vLLM reports it.
pub fn parse_openai_models(models: &Value, model: &str) -> ServerReport {
    let wanted = model.trim();
    let entry = models.get("data").and_then(Value::as_array).and_then(|d| {
        d.iter().find(|m| {
            m.get("id")
                .and_then(Value::as_str)
                .is_some_and(|id| id.eq_ignore_ascii_case(wanted))
        })
    });
    ServerReport {
        context_window: entry
            .and_then(|m| m.get("max_model_len"))
            .and_then(Value::as_u64)
            .and_then(window),
        vision: None,
        tool_calling: None,
    }
}

/// The most model ids read from one `/v1/models` list; the rest are left out.
pub const MAX_LISTED_MODELS: usize = 256;

/// The model ids of an OpenAI-style `/v1/models` list (`data[].id`), in the server's order,
/// without blanks or repeats, at most [`MAX_LISTED_MODELS`].
pub fn parse_model_ids(models: &Value) -> Vec<String> {
    let mut ids: Vec<String> = Vec::new();
    for entry in models
        .get("data")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let Some(id) = entry.get("id").and_then(Value::as_str).map(str::trim) else {
            continue;
        };
        if !id.is_empty() && !ids.iter().any(|known| known == id) {
            ids.push(id.to_owned());
        }
        if ids.len() == MAX_LISTED_MODELS {
            break;
        }
    }
    ids
}

/// A reported window as a token count: zero or absurd figures are not a window.
fn window(n: u64) -> Option<u32> {
    u32::try_from(n).ok().filter(|n| *n > 0)
}

/// Asks the server behind one base URL and remembers the answers, per model.
#[derive(Debug)]
pub struct Discovery {
    http: Option<reqwest::Client>,
    base_url: String,
    root: String,
    headers: Vec<(&'static str, String)>,
    reports: Mutex<HashMap<String, Arc<OnceCell<ServerReport>>>>,
}

impl Discovery {
    /// Discovery for the server at `base_url` (with or without `/v1`), sending `headers` (the
    /// provider's key). `enabled: false` (a provider's own cloud, whose models the table knows)
    /// never asks.
    pub fn new(base_url: &str, headers: Vec<(&'static str, String)>, enabled: bool) -> Self {
        let base_url = base_url.trim_end_matches('/').to_owned();
        let root = base_url.strip_suffix("/v1").unwrap_or(&base_url).to_owned();
        let http = if enabled {
            match reqwest::Client::builder()
                .connect_timeout(DISCOVERY_TIMEOUT)
                .timeout(DISCOVERY_TIMEOUT)
                .build()
            {
                Ok(http) => Some(http),
                Err(error) => {
                    tracing::warn!(%error, "cannot create the discovery HTTP client; model figures come from the table");
                    None
                }
            }
        } else {
            None
        };
        Self {
            http,
            base_url,
            root,
            headers,
            reports: Mutex::new(HashMap::new()),
        }
    }

    fn key(model: &str) -> String {
        model.trim().to_ascii_lowercase()
    }

    /// What the server reported of `model`, if it was asked already.
    pub fn known(&self, model: &str) -> Option<ServerReport> {
        let reports = self
            .reports
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        reports
            .get(&Self::key(model))
            .and_then(|c| c.get().copied())
    }

    /// What the server reports of `model`, and whether this call was the first to ask: asked
    /// the first time (at most [`DISCOVERY_TIMEOUT`], the three kinds at once), remembered
    /// after. Empty when this discovery never asks, or has remembered
    /// [`MAX_DISCOVERED_MODELS`] models already (then `first` is always true).
    pub async fn report(&self, model: &str) -> (ServerReport, bool) {
        let cell = {
            let mut reports = self
                .reports
                .lock()
                .unwrap_or_else(|poisoned| poisoned.into_inner());
            let key = Self::key(model);
            match reports.get(&key) {
                Some(cell) => Arc::clone(cell),
                None if reports.len() >= MAX_DISCOVERED_MODELS => {
                    return (ServerReport::default(), true);
                }
                None => Arc::clone(reports.entry(key).or_default()),
            }
        };
        let mut first = false;
        let report = cell
            .get_or_init(|| {
                first = true;
                async {
                    match &self.http {
                        Some(http) => self.ask(http, model).await,
                        None => ServerReport::default(),
                    }
                }
            })
            .await;
        (*report, first)
    }

    /// The models the server lists at `/v1/models` (see [`parse_model_ids`]); none when this
    /// discovery never asks (a provider's own cloud).
    pub async fn list_models(&self) -> Result<Vec<String>, DiscoveryError> {
        let Some(http) = &self.http else {
            return Ok(Vec::new());
        };
        let url = format!("{}/v1/models", self.root);
        let body = self.fetch(http.get(&url), &url).await?;
        Ok(parse_model_ids(&body))
    }

    async fn ask(&self, http: &reqwest::Client, model: &str) -> ServerReport {
        let props_url = format!("{}/props", self.root);
        let show_url = format!("{}/api/show", self.root);
        let models_url = format!("{}/v1/models", self.root);
        let (props, show, models) = tokio::join!(
            self.fetch(http.get(&props_url), &props_url),
            self.fetch(
                http.post(&show_url)
                    .header("content-type", "application/json")
                    .body(serde_json::json!({ "model": model }).to_string()),
                &show_url
            ),
            self.fetch(http.get(&models_url), &models_url),
        );
        let mut report = ServerReport::default();
        for (kind, answer) in [
            (ServerKind::LlamaCpp, props),
            (ServerKind::Ollama, show),
            (ServerKind::OpenAiCompatible, models),
        ] {
            match answer {
                Ok(body) => {
                    let found = match kind {
                        ServerKind::LlamaCpp => parse_llama_cpp_props(&body),
                        ServerKind::Ollama => parse_ollama_show(&body),
                        ServerKind::OpenAiCompatible => parse_openai_models(&body, model),
                    };
                    tracing::debug!(base_url = %self.base_url, model, server = ?kind, context_window = ?found.context_window, vision = ?found.vision, tool_calling = ?found.tool_calling, "model server answered discovery");
                    report = report.or(found);
                }
                Err(error) => {
                    tracing::debug!(base_url = %self.base_url, model, server = ?kind, %error, "discovery request told nothing");
                }
            }
        }
        if report.is_empty() {
            tracing::info!(base_url = %self.base_url, model, "the model server reported no capabilities; using the table, overrides and defaults");
        } else {
            tracing::info!(base_url = %self.base_url, model, context_window = ?report.context_window, vision = ?report.vision, tool_calling = ?report.tool_calling, "model server reported capabilities");
        }
        report
    }

    async fn fetch(
        &self,
        request: reqwest::RequestBuilder,
        url: &str,
    ) -> Result<Value, DiscoveryError> {
        let mut request = request;
        for (name, value) in &self.headers {
            request = request.header(*name, value);
        }
        let failed = |e: reqwest::Error| DiscoveryError::Request {
            url: url.to_owned(),
            detail: e.to_string(),
        };
        let mut response = request.send().await.map_err(failed)?;
        let status = response.status();
        if !status.is_success() {
            return Err(DiscoveryError::Status {
                url: url.to_owned(),
                status: status.as_u16(),
            });
        }
        let too_large = || DiscoveryError::TooLarge {
            url: url.to_owned(),
            limit: MAX_DISCOVERY_ANSWER_BYTES,
        };
        if response
            .content_length()
            .is_some_and(|n| n > MAX_DISCOVERY_ANSWER_BYTES as u64)
        {
            return Err(too_large());
        }
        let mut body = Vec::new();
        while let Some(chunk) = response.chunk().await.map_err(failed)? {
            if body.len() + chunk.len() > MAX_DISCOVERY_ANSWER_BYTES {
                return Err(too_large());
            }
            body.extend_from_slice(&chunk);
        }
        serde_json::from_slice(&body).map_err(|e| DiscoveryError::NotJson {
            url: url.to_owned(),
            detail: e.to_string(),
        })
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_model_list_gives_its_ids_in_order_without_blanks_or_repeats() {
        let list = json!({"object": "list", "data": [
            {"id": "qwen3-coder"}, {"id": " "}, {"object": "model"}, {"id": "llama-3.1-8b"},
            {"id": "qwen3-coder"}
        ]});
        assert_eq!(parse_model_ids(&list), ["qwen3-coder", "llama-3.1-8b"]);
        assert!(parse_model_ids(&json!({"error": "no"})).is_empty());
        let many: Vec<_> = (0..MAX_LISTED_MODELS + 5)
            .map(|i| json!({ "id": format!("m{i}") }))
            .collect();
        assert_eq!(
            parse_model_ids(&json!({ "data": many })).len(),
            MAX_LISTED_MODELS
        );
    }

    #[test]
    fn llama_cpp_props_give_the_slot_window_and_vision() {
        let props = json!({
            "default_generation_settings": { "n_ctx": 4096, "params": {} },
            "total_slots": 1,
            "modalities": { "vision": true, "audio": false }
        });
        assert_eq!(
            parse_llama_cpp_props(&props),
            ServerReport {
                context_window: Some(4096),
                vision: Some(true),
                tool_calling: None
            }
        );
        assert_eq!(
            parse_llama_cpp_props(&json!({ "n_ctx": 8192 })).context_window,
            Some(8192)
        );
        assert!(parse_llama_cpp_props(&json!({ "n_ctx": 0 })).is_empty());
    }

    #[test]
    fn llama_cpp_props_say_whether_the_chat_template_takes_tool_calls() {
        let caps = |c: Value| parse_llama_cpp_props(&json!({ "chat_template_caps": c }));
        assert_eq!(
            caps(json!({ "supports_tools": false, "supports_tool_calls": false })).tool_calling,
            Some(false)
        );
        assert_eq!(
            caps(json!({ "supports_tools": true, "supports_tool_calls": true })).tool_calling,
            Some(true)
        );
        assert_eq!(
            caps(json!({ "supports_tools": true })).tool_calling,
            Some(true)
        );
        assert_eq!(
            caps(json!({ "supports_system_role": true })).tool_calling,
            None
        );
    }

    #[test]
    fn ollama_show_gives_the_architectures_window_and_capabilities() {
        let show = json!({
            "model_info": { "general.architecture": "gemma3", "gemma3.context_length": 131072 },
            "capabilities": ["completion", "vision"]
        });
        assert_eq!(
            parse_ollama_show(&show),
            ServerReport {
                context_window: Some(131_072),
                vision: Some(true),
                tool_calling: Some(false)
            }
        );
        assert!(parse_ollama_show(&json!({ "license": "..." })).is_empty());
    }

    #[test]
    fn openai_models_give_the_matching_entrys_max_model_len() {
        let models = json!({ "object": "list", "data": [
            { "id": "other", "max_model_len": 1000 },
            { "id": "Qwen/Qwen2.5-7B", "max_model_len": 32768 }
        ]});
        assert_eq!(
            parse_openai_models(&models, "qwen/qwen2.5-7b").context_window,
            Some(32_768)
        );
        assert!(parse_openai_models(&models, "absent").is_empty());
        assert!(parse_openai_models(&json!({ "data": [{ "id": "gpt-4o" }] }), "gpt-4o").is_empty());
    }
}
