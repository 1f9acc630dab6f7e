//! The OpenAI chat-completions adapter, for OpenAI and every server that speaks its API
//! (Ollama, vLLM, llama.cpp's server, LM Studio, OpenRouter).

mod encoded_tools;
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
use crate::history::{Conversation, HistoryOptions, ImageDelivery, build_conversation};
use crate::request::LlmRequest;
use crate::transport::{Endpoint, Transport, parse_arguments};
use encoded_tools::EncodedTools;

pub use request::Delivery;
pub use stream::OpenAiStreamDecoder;

/// A client for an OpenAI-compatible chat-completions endpoint (`{base_url}/chat/completions`).
#[derive(Debug)]
pub struct OpenAiClient {
    config: ProviderConfig,
    transport: Transport,
    discovery: Discovery,
    /// The tool sets of recent requests, encoded once each.
    tools: EncodedTools,
}

impl OpenAiClient {
    /// A client for `config` (its provider is not checked: any server speaking the API works).
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
            tools: EncodedTools::default(),
        };
        client.discovery = client.config.discovery(client.endpoint().headers);
        Ok(client)
    }

    /// The JSON body this client would post for `request`.
    pub fn request_body(
        &self,
        request: &LlmRequest,
        delivery: Delivery,
    ) -> Result<Value, LlmError> {
        let conversation = self.conversation(request);
        serde_json::to_value(request::build_body(request, &conversation, delivery))
            .map_err(unencodable)
    }

    /// The body this client posts for `request`, as bytes for the wire.
    fn encoded_body(&self, request: &LlmRequest, delivery: Delivery) -> Result<Bytes, LlmError> {
        let conversation = self.conversation(request);
        let body = request::build_body(request, &conversation, delivery);
        let encoded;
        let body = if body.offers_tools() {
            encoded = self.tools.of(&request.tools).map_err(unencodable)?;
            body.with_encoded_tools(&encoded)
        } else {
            body
        };
        serde_json::to_vec(&body)
            .map(Bytes::from)
            .map_err(unencodable)
    }

    /// `request`'s history as the model at hand can read it.
    fn conversation<'r>(&self, request: &'r LlmRequest) -> Conversation<'r> {
        let capabilities = self.capabilities(&request.model);
        build_conversation(
            request.system_prompt.as_deref(),
            &request.messages,
            history_options(&capabilities, request),
        )
    }

    fn endpoint(&self) -> Endpoint {
        let mut headers = Vec::new();
        if let Some(key) = &self.config.api_key {
            headers.push(("authorization", format!("Bearer {key}")));
        }
        Endpoint {
            url: format!(
                "{}/chat/completions",
                self.config.base_url.trim_end_matches('/')
            ),
            headers,
        }
    }
}

/// The error of a body that could not be written as JSON (a tool schema or argument that JSON
/// cannot hold).
fn unencodable(error: serde_json::Error) -> LlmError {
    LlmError::InvalidRequest {
        detail: format!("the request body cannot be written as JSON: {error}"),
    }
}

/// How `request`'s history is rendered for a model with these capabilities: images by its
/// vision, tool calls by the request's mode.
pub(crate) fn history_options(
    capabilities: &ModelCapabilities,
    request: &LlmRequest,
) -> HistoryOptions {
    HistoryOptions {
        images: if capabilities.vision {
            ImageDelivery::AsImages
        } else {
            ImageDelivery::AsRecognizedText
        },
        tool_calls: request.tool_calling,
    }
}

#[async_trait::async_trait]
impl LlmClient for OpenAiClient {
    async fn stream(&self, request: &LlmRequest) -> LlmStream {
        match self.encoded_body(request, Delivery::Streamed) {
            Ok(body) => self.transport.stream(self.endpoint(), body, || {
                Box::new(OpenAiStreamDecoder::new())
            }),
            Err(error) => Box::pin(futures::stream::once(async move { Err(error) })),
        }
    }

    async fn complete(&self, request: &LlmRequest) -> Result<Completion, LlmError> {
        let body = self.encoded_body(request, Delivery::Whole)?;
        let answer = self.transport.post_json(&self.endpoint(), body).await?;
        parse_completion(&answer)
    }

    fn capabilities(&self, model: &str) -> ModelCapabilities {
        self.config.capabilities_known(&self.discovery, model)
    }

    async fn list_models(&self) -> Result<Vec<String>, crate::discovery::DiscoveryError> {
        self.discovery.list_models().await
    }

    async fn discover(&self, model: &str) -> ModelCapabilities {
        self.config
            .capabilities_discovered(&self.discovery, model)
            .await
    }

    fn image_limits(&self) -> ImageLimits {
        ImageLimits::OPENAI
    }
}

/// Reads a non-streamed `chat.completion` answer.
pub fn parse_completion(answer: &Value) -> Result<Completion, LlmError> {
    if let Some(error) = answer.get("error") {
        let (message, error_type) =
            crate::error::describe_error_body(&serde_json::json!({ "error": error }).to_string());
        return Err(LlmError::Provider {
            error_type,
            message,
        });
    }
    let choice = answer
        .get("choices")
        .and_then(|c| c.get(0))
        .ok_or_else(|| LlmError::Malformed {
            detail: format!(
                "the answer has no choices: {}",
                stream::excerpt(&answer.to_string())
            ),
        })?;
    let message = choice.get("message").cloned().unwrap_or(Value::Null);
    let text_of = |key: &str| {
        message
            .get(key)
            .and_then(|v| v.as_str())
            .unwrap_or_default()
            .to_owned()
    };
    let mut completion = Completion {
        text: text_of("content"),
        reasoning: {
            let r = text_of("reasoning_content");
            if r.is_empty() {
                text_of("reasoning")
            } else {
                r
            }
        },
        ..Completion::default()
    };
    if let Some(calls) = message.get("tool_calls").and_then(|c| c.as_array()) {
        for call in calls {
            let id = call
                .get("id")
                .and_then(|i| i.as_str())
                .map(str::to_owned)
                .unwrap_or_else(|| format!("call_{}", uuid::Uuid::now_v7().simple()))
                .into();
            let function = call.get("function").cloned().unwrap_or(Value::Null);
            let name = function
                .get("name")
                .and_then(|n| n.as_str())
                .unwrap_or_default()
                .to_owned();
            let raw = match function.get("arguments") {
                Some(Value::String(s)) => s.clone(),
                Some(Value::Null) | None => String::new(),
                Some(other) => other.to_string(),
            };
            let arguments = parse_arguments(&id, &name, &raw);
            completion.tool_calls.push(CompletedToolCall {
                id,
                name,
                arguments,
            });
        }
    }
    completion.finish_reason = choice
        .get("finish_reason")
        .and_then(|r| r.as_str())
        .map(FinishReason::from_openai);
    completion.usage = answer.get("usage").and_then(|u| {
        serde_json::from_value::<stream::WireUsage>(u.clone())
            .ok()
            .map(|u| Usage {
                prompt_tokens: u.prompt_tokens,
                completion_tokens: u.completion_tokens,
                cached_prompt_tokens: u.cached_tokens(),
            })
    });
    Ok(completion)
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use braid_protocol::Message;

    use super::*;
    use crate::config::Provider;
    use crate::request::{GenerationOptions, ToolDefinition};

    fn request() -> LlmRequest {
        LlmRequest {
            system_prompt: Some("Be brief.".into()),
            tools: Arc::from([ToolDefinition {
                name: "read_file".into(),
                description: "Reads a file.".into(),
                parameters: serde_json::json!({"type": "object", "properties": {"path": {"type": "string"}}}),
            }]),
            options: GenerationOptions {
                temperature: Some(0.7),
                ..GenerationOptions::default()
            },
            ..LlmRequest::new("llama3.1:8b", vec![Message::user_text("hello")])
        }
    }

    #[test]
    fn the_bytes_posted_are_the_body_the_client_reports() {
        let client = OpenAiClient::new(ProviderConfig::new(Provider::OpenAi)).unwrap();
        let wire = client.encoded_body(&request(), Delivery::Streamed).unwrap();
        let posted: Value = serde_json::from_slice(&wire).unwrap();
        let reported = client.request_body(&request(), Delivery::Streamed).unwrap();
        assert_eq!(posted["messages"], reported["messages"]);
        assert_eq!(posted["tools"], reported["tools"]);
        assert_eq!(posted["stream_options"], reported["stream_options"]);
        assert_eq!(posted["messages"][1]["content"], "hello");
        assert_eq!(
            posted["tools"][0]["function"]["parameters"]["type"],
            "object"
        );
    }

    #[test]
    fn a_temperature_is_posted_as_written() {
        let client = OpenAiClient::new(ProviderConfig::new(Provider::OpenAi)).unwrap();
        let wire = client.encoded_body(&request(), Delivery::Whole).unwrap();
        let text = std::str::from_utf8(&wire).unwrap();
        assert!(text.contains(r#""temperature":0.7"#), "{text}");
        assert!(!text.contains("\"stream\""), "{text}");
    }
}
