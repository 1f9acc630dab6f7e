//! The provider-neutral request: what to ask which model, with which history and tools.

use std::sync::Arc;

use braid_protocol::{Message, ToolCalling};
use serde::{Deserialize, Serialize};

/// One request to a model.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct LlmRequest {
    /// The model's name as the provider knows it.
    pub model: String,
    /// The system prompt, sent first.
    pub system_prompt: Option<String>,
    /// The conversation, oldest first, as Braid stores it; [`crate::history`] turns it into what
    /// the provider accepts.
    pub messages: Vec<Message>,
    /// The tools the model may call, as definitions (empty when they are prompted: then the
    /// system prompt lists them). Shared: a context offers the same tools turn after turn, so
    /// a request takes them without copying every schema.
    pub tools: Arc<[ToolDefinition]>,
    /// How the model calls tools: `native` sends `tools` and the history's calls as the
    /// provider's structures; `prompted` sends no tool definitions and the history's calls and
    /// results as text ([`crate::prompted`]).
    pub tool_calling: ToolCalling,
    /// Sampling and length options.
    pub options: GenerationOptions,
}

/// A tool as a model sees it. Its JSON (`name`, `description`, `parameters`) is OpenAI's
/// function object as sent, and the text whose tokens a request's budget counts.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ToolDefinition {
    /// The name the model calls it by.
    pub name: String,
    /// What it does, for the model.
    pub description: String,
    /// JSON Schema of its arguments (an object schema).
    pub parameters: serde_json::Value,
}

/// Sampling and length options; `None` leaves the provider's default.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct GenerationOptions {
    /// The most tokens to generate. Anthropic requires a value: the model's maximum output
    /// (capped) is used when absent.
    pub max_tokens: Option<u32>,
    /// Sampling temperature.
    pub temperature: Option<f32>,
    /// Nucleus sampling.
    pub top_p: Option<f32>,
    /// Sequences that end the answer.
    pub stop: Vec<String>,
}

impl LlmRequest {
    /// A request for `model` with a history and nothing else.
    pub fn new(model: impl Into<String>, messages: Vec<Message>) -> Self {
        Self {
            model: model.into(),
            messages,
            ..Self::default()
        }
    }

    /// The same request with a system prompt.
    pub fn with_system_prompt(mut self, prompt: impl Into<String>) -> Self {
        self.system_prompt = Some(prompt.into());
        self
    }

    /// The same request with tools.
    pub fn with_tools(mut self, tools: impl Into<Arc<[ToolDefinition]>>) -> Self {
        self.tools = tools.into();
        self
    }
}
