//! `braid-llm`: talking to language models (DESIGN.md, room `braid-llm`).
//!
//! - [`LlmClient`]: one provider-neutral request ([`LlmRequest`]) in, a stream of [`LlmEvent`]s
//!   out; [`LlmClient::complete`] for the calls that want the whole answer at once.
//! - Two adapters: [`OpenAiClient`] (OpenAI chat completions, and every server that speaks it:
//!   Ollama, vLLM, llama.cpp, LM Studio, OpenRouter) and [`AnthropicClient`] (Anthropic Messages).
//! - [`sse`]: the incremental server-sent-events parser both adapters feed their bytes through.
//! - [`history`]: turning a Braid history into the conversation a provider accepts (turns merged,
//!   results placed after their calls, missing results repaired).
//! - [`ModelCapabilities`]: what a model can do, from per-model overrides, the model server
//!   ([`discovery`]), a built-in table and defaults, each figure with its source; [`ImageLimits`]: the largest image a provider takes.
//! - [`prompted`]: tool calls written as text, for models without tool calling of their own.
//! - [`ProviderConfig`]: which provider, where, with which key and model.
#![deny(unsafe_code)]

pub mod anthropic;
pub mod capabilities;
pub mod client;
pub mod config;
pub mod discovery;
pub mod error;
pub mod event;
pub mod history;
pub mod openai;
pub mod prompted;
pub mod request;
pub mod retry;
pub mod sse;
mod transport;

pub use anthropic::AnthropicClient;
pub use capabilities::{
    CapabilityOverride, CapabilitySources, ImageLimits, ModelCapabilities, TokenizerFamily,
};
pub use client::{LlmClient, LlmStream};
pub use config::{ConfigError, Provider, ProviderConfig, build_client};
pub use discovery::{Discovery, ServerReport};
pub use error::{ErrorSeverity, LlmError, PartialOutput};
pub use event::{
    CompletedToolCall, Completion, CompletionBuilder, FinishReason, LlmEvent, ToolArgumentsError,
    Usage,
};
pub use openai::OpenAiClient;
pub use request::{GenerationOptions, LlmRequest, ToolDefinition};
pub use retry::RetryPolicy;
pub use transport::{MAX_ERROR_BODY_BYTES, MAX_RESPONSE_BYTES};
