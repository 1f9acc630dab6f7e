//! The Anthropic Messages adapter.

pub mod request;
pub mod stream;

use bytes::Bytes;
use serde_json::Value;

use crate::capabilities::{ImageLimits, ModelCapabilities};
use crate::client::{LlmClient, LlmStream};
use crate::config::ProviderConfig;
use crate::discovery::Discovery;
use crate::error::LlmError;
use crate::event::{CompletedToolCall, Completion, FinishReason, Usage};
use crate::history::build_conversation;
use crate::openai::history_options;
use crate::request::LlmRequest;
use crate::transport::{Endpoint, Transport, parse_arguments};

pub use stream::AnthropicStreamDecoder;

/// The API version this adapter speaks (`anthropic-version` header).
pub const API_VERSION: &str = "2023-06-01";

/// A client for the Anthropic Messages API (`{base_url}/v1/messages`).
#[derive(Debug)]
pub struct AnthropicClient {
    config: ProviderConfig,
    transport: Transport,
    discovery: Discovery,
}

impl AnthropicClient {
    /// A client for `config`.
    pub fn new(config: ProviderConfig) -> Result<Self, LlmError> {
        let transport = Transport::new(
            config.retry.clone(),
            config.connect_timeout,
            config.idle_timeout,
        )?;
        let mut client = Self {
            discovery: Discovery::new(&config.base_url, Vec::new(), false),
            config,
            transport,
        };
        client.discovery = client.config.discovery(client.endpoint().headers);
        Ok(client)
    }

    /// The JSON body this client would post for `request`.
    pub fn request_body(&self, request: &LlmRequest, stream: bool) -> Value {
        let capabilities = self.capabilities(&request.model);
        let conversation = build_conversation(
            request.system_prompt.as_deref(),
            &request.messages,
            history_options(&capabilities, request),
        );
        request::build_body(request, &conversation, &capabilities, stream)
    }

    fn endpoint(&self) -> Endpoint {
        let mut headers = vec![("anthropic-version", API_VERSION.to_owned())];
        if let Some(key) = &self.config.api_key {
            headers.push(("x-api-key", key.clone()));
        }
        let base = self.config.base_url.trim_end_matches('/');
        // Anthropic's SDKs take the root without `/v1`; accept both spellings.
        let url = if base.ends_with("/v1") {
            format!("{base}/messages")
        } else {
            format!("{base}/v1/messages")
        };
        Endpoint { url, headers }
    }
}

#[async_trait::async_trait]
impl LlmClient for AnthropicClient {
    async fn stream(&self, request: &LlmRequest) -> LlmStream {
        let body = Bytes::from(self.request_body(request, true).to_string());
        self.transport.stream(self.endpoint(), body, || {
            Box::new(AnthropicStreamDecoder::new())
        })
    }

    async fn complete(&self, request: &LlmRequest) -> Result<Completion, LlmError> {
        let body = Bytes::from(self.request_body(request, false).to_string());
        let answer = self.transport.post_json(&self.endpoint(), body).await?;
        parse_completion(&answer)
    }

    fn capabilities(&self, model: &str) -> ModelCapabilities {
        self.config.capabilities_known(&self.discovery, model)
    }

    async fn discover(&self, model: &str) -> ModelCapabilities {
        self.config
            .capabilities_discovered(&self.discovery, model)
            .await
    }

    fn image_limits(&self) -> ImageLimits {
        ImageLimits::ANTHROPIC
    }
}

/// Reads a non-streamed Messages answer.
pub fn parse_completion(answer: &Value) -> Result<Completion, LlmError> {
    if answer.get("type").and_then(|t| t.as_str()) == Some("error") {
        let (message, error_type) = crate::error::describe_error_body(&answer.to_string());
        return Err(LlmError::Provider {
            error_type,
            message,
        });
    }
    let blocks = answer
        .get("content")
        .and_then(|c| c.as_array())
        .ok_or_else(|| LlmError::Malformed {
            detail: format!(
                "the answer has no content: {}",
                crate::openai::stream::excerpt(&answer.to_string())
            ),
        })?;
    let mut completion = Completion::default();
    for block in blocks {
        let field = |name: &str| {
            block
                .get(name)
                .and_then(|v| v.as_str())
                .unwrap_or_default()
                .to_owned()
        };
        match block.get("type").and_then(|t| t.as_str()) {
            Some("text") => completion.text.push_str(&field("text")),
            Some("thinking") => completion.reasoning.push_str(&field("thinking")),
            Some("tool_use") => {
                let id = field("id").into();
                let name = field("name");
                let raw = block
                    .get("input")
                    .map(|i| i.to_string())
                    .unwrap_or_default();
                let arguments = parse_arguments(&id, &name, &raw);
                completion.tool_calls.push(CompletedToolCall {
                    id,
                    name,
                    arguments,
                });
            }
            _ => {}
        }
    }
    completion.finish_reason = answer
        .get("stop_reason")
        .and_then(|r| r.as_str())
        .map(FinishReason::from_anthropic);
    completion.usage = answer.get("usage").and_then(|u| {
        let usage: stream::WireUsage = serde_json::from_value(u.clone()).ok()?;
        Some(Usage {
            prompt_tokens: usage.prompt_tokens().unwrap_or(0),
            completion_tokens: usage.output_tokens.unwrap_or(0),
            cached_prompt_tokens: usage.cached_tokens(),
        })
    });
    Ok(completion)
}
