//! The script a mock LLM follows: one response per request, in order.

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::{Deserialize, Serialize};

/// The responses, consumed one per request whatever the endpoint. When they run out, the mock
/// answers HTTP 500 with an error that says so.
///
/// JSON form: `{"responses": [ {"type": "stream", "chunks": [...]}, {"type": "error", ...} ]}`,
/// optionally with `"discovery": {"server": "llama_cpp", "context_window": 4096, ...}`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Script {
    /// The responses, in order.
    pub responses: Vec<ScriptedResponse>,
    /// What the mock says of its model on the discovery endpoints (`GET /props`,
    /// `POST /api/show`, `GET /v1/models`); without it they answer 404, as a plain
    /// OpenAI-compatible server does.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub discovery: Option<DiscoveryReply>,
}

/// The model server the mock plays on the discovery endpoints, and what it reports.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DiscoveryReply {
    /// Which server's endpoints answer.
    pub server: ServerKind,
    /// The model the server runs (Ollama's `/api/show` answers 404 for any other).
    #[serde(default = "default_model")]
    pub model: String,
    /// The window it runs the model with (`n_ctx`, `context_length`, `max_model_len`).
    pub context_window: u32,
    /// Whether it reports vision (llama.cpp `modalities.vision`, Ollama `capabilities`).
    #[serde(default)]
    pub vision: bool,
    /// Whether it reports tool calling: Ollama lists `tools` in `capabilities` only when `true`;
    /// llama.cpp answers `chat_template_caps.supports_tool_calls` when set, and (like servers
    /// before 2025) no `chat_template_caps` when absent.
    #[serde(default)]
    pub tools: Option<bool>,
}

fn default_model() -> String {
    "mock-model".to_owned()
}

/// A kind of model server, as far as its discovery endpoints go.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ServerKind {
    /// llama.cpp's `llama-server`: `GET /props`, and `GET /v1/models` without `max_model_len`.
    LlamaCpp,
    /// Ollama: `POST /api/show`, and `GET /v1/models` without `max_model_len`.
    Ollama,
    /// vLLM: `GET /v1/models` with `max_model_len`.
    Vllm,
}

impl DiscoveryReply {
    /// `server` running `model` with a `context_window`-token window, no vision, and nothing
    /// said of tools (Ollama's list then lacks them).
    pub fn new(server: ServerKind, model: &str, context_window: u32) -> Self {
        Self {
            server,
            model: model.to_owned(),
            context_window,
            vision: false,
            tools: None,
        }
    }

    /// The same, reporting vision.
    pub fn with_vision(mut self) -> Self {
        self.vision = true;
        self
    }

    /// The same, reporting tool calling.
    pub fn with_tools(mut self) -> Self {
        self.tools = Some(true);
        self
    }

    /// The same, reporting that the model has no tool calling (its chat template cannot render
    /// tool calls).
    pub fn without_tools(mut self) -> Self {
        self.tools = Some(false);
        self
    }
}

/// A script that cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum ScriptError {
    /// The file could not be read.
    #[error("cannot read the mock LLM script {path}: {source}")]
    Read {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The file is not a valid script.
    #[error("invalid mock LLM script {path}: {detail}")]
    Parse {
        /// The file.
        path: PathBuf,
        /// What is wrong, with line and column.
        detail: String,
    },
}

/// What the mock does with one request.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ScriptedResponse {
    /// Answer with these chunks: as a stream when the request asked for one, else folded into
    /// one JSON answer.
    Stream(StreamReply),
    /// Answer with an HTTP error.
    Error(ErrorReply),
    /// Accept the request and never answer.
    Hang,
}

/// A successful answer, chunk by chunk.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct StreamReply {
    /// The chunks, in order. A stream ends with the API's end marker (`[DONE]`,
    /// `message_stop`) unless a [`Chunk::Cut`] or [`Chunk::Hang`] comes first.
    pub chunks: Vec<Chunk>,
    /// A pause before every chunk, in milliseconds.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub chunk_delay_ms: u64,
    /// A pause before the response starts (its status and headers), in milliseconds: a model
    /// server slow to accept the request.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub head_delay_ms: u64,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

fn is_zero_u32(n: &u32) -> bool {
    *n == 0
}

/// An HTTP error answer.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ErrorReply {
    /// The status code.
    pub status: u16,
    /// The body (JSON; a string is sent as plain text).
    #[serde(default)]
    pub body: serde_json::Value,
    /// The `Retry-After` header, when set.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub retry_after: Option<String>,
}

/// How the model finished, mapped to each API's own words.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FinishKind {
    /// The answer is complete (`stop` / `end_turn`).
    Stop,
    /// The token limit was hit (`length` / `max_tokens`).
    Length,
    /// The model wants its tools run (`tool_calls` / `tool_use`).
    ToolCalls,
}

/// One step of a scripted answer.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Chunk {
    /// A piece of visible text.
    Text {
        /// The text.
        text: String,
    },
    /// A piece of reasoning (`reasoning_content` / a `thinking` block).
    Reasoning {
        /// The text.
        text: String,
    },
    /// The start of a tool call.
    ToolCallStart {
        /// The call's position in the answer, from 0.
        index: u32,
        /// Its id.
        id: String,
        /// The tool's name.
        name: String,
    },
    /// A piece of a tool call's JSON arguments (need not be valid on its own, or at all).
    ToolCallArgs {
        /// The call's position.
        index: u32,
        /// The piece.
        delta: String,
    },
    /// Token counts.
    Usage {
        /// Prompt tokens.
        prompt_tokens: u32,
        /// Generated tokens.
        completion_tokens: u32,
        /// Prompt tokens read from the provider's prompt cache (part of `prompt_tokens`):
        /// OpenAI `prompt_tokens_details.cached_tokens`, Anthropic `cache_read_input_tokens`.
        #[serde(default, skip_serializing_if = "is_zero_u32")]
        cached_tokens: u32,
    },
    /// The finish reason.
    Finish {
        /// Why the model stopped.
        reason: FinishKind,
    },
    /// An error object inside the stream (OpenAI `{"error": ...}`, Anthropic `event: error`).
    ProviderError {
        /// The provider's error type (`server_error`, `overloaded_error`...).
        error_type: String,
        /// The message.
        message: String,
    },
    /// A keep-alive (`event: ping`; an SSE comment for OpenAI).
    Ping,
    /// A pause.
    Delay {
        /// How long, in milliseconds.
        ms: u64,
    },
    /// Break the connection here, without the end marker.
    Cut,
    /// Stop sending and never finish.
    Hang,
    /// One raw SSE `data:` payload, sent as is (for malformed or unusual streams).
    Raw {
        /// The payload.
        data: String,
    },
}

impl Script {
    /// An empty script.
    pub fn new() -> Self {
        Self::default()
    }

    /// The same script with one more response.
    pub fn then(mut self, response: impl Into<ScriptedResponse>) -> Self {
        self.responses.push(response.into());
        self
    }

    /// The same script, answering discovery as `reply` says.
    pub fn with_discovery(mut self, reply: DiscoveryReply) -> Self {
        self.discovery = Some(reply);
        self
    }

    /// Reads a script from a JSON file.
    pub fn from_file(path: &Path) -> Result<Self, ScriptError> {
        let text = std::fs::read_to_string(path).map_err(|source| ScriptError::Read {
            path: path.to_owned(),
            source,
        })?;
        Self::from_json(&text).map_err(|detail| ScriptError::Parse {
            path: path.to_owned(),
            detail,
        })
    }

    /// Reads a script from JSON text; the error names what is wrong and where.
    pub fn from_json(text: &str) -> Result<Self, String> {
        serde_json::from_str(text).map_err(|e| e.to_string())
    }
}

impl StreamReply {
    /// An answer with no chunks yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds a chunk.
    pub fn chunk(mut self, chunk: Chunk) -> Self {
        self.chunks.push(chunk);
        self
    }

    /// Adds a piece of text.
    pub fn text(self, text: impl Into<String>) -> Self {
        self.chunk(Chunk::Text { text: text.into() })
    }

    /// Adds a piece of reasoning.
    pub fn reasoning(self, text: impl Into<String>) -> Self {
        self.chunk(Chunk::Reasoning { text: text.into() })
    }

    /// Starts tool call `index`.
    pub fn tool_call(self, index: u32, id: impl Into<String>, name: impl Into<String>) -> Self {
        self.chunk(Chunk::ToolCallStart {
            index,
            id: id.into(),
            name: name.into(),
        })
    }

    /// Adds a piece of tool call `index`'s arguments.
    pub fn tool_args(self, index: u32, delta: impl Into<String>) -> Self {
        self.chunk(Chunk::ToolCallArgs {
            index,
            delta: delta.into(),
        })
    }

    /// Adds token counts.
    pub fn usage(self, prompt_tokens: u32, completion_tokens: u32) -> Self {
        self.chunk(Chunk::Usage {
            prompt_tokens,
            completion_tokens,
            cached_tokens: 0,
        })
    }

    /// Adds token counts of which `cached_tokens` prompt tokens came from the prompt cache.
    pub fn cached_usage(
        self,
        prompt_tokens: u32,
        completion_tokens: u32,
        cached_tokens: u32,
    ) -> Self {
        self.chunk(Chunk::Usage {
            prompt_tokens,
            completion_tokens,
            cached_tokens,
        })
    }

    /// Adds the finish reason.
    pub fn finish(self, reason: FinishKind) -> Self {
        self.chunk(Chunk::Finish { reason })
    }

    /// Adds an in-stream provider error.
    pub fn provider_error(self, error_type: impl Into<String>, message: impl Into<String>) -> Self {
        self.chunk(Chunk::ProviderError {
            error_type: error_type.into(),
            message: message.into(),
        })
    }

    /// Adds a pause.
    pub fn delay(self, duration: Duration) -> Self {
        self.chunk(Chunk::Delay {
            ms: duration.as_millis() as u64,
        })
    }

    /// Breaks the connection here.
    pub fn cut(self) -> Self {
        self.chunk(Chunk::Cut)
    }

    /// Stops here and never finishes.
    pub fn hang(self) -> Self {
        self.chunk(Chunk::Hang)
    }

    /// Pauses before the response starts, as a server slow to accept the request does.
    pub fn head_delay(mut self, delay: Duration) -> Self {
        self.head_delay_ms = delay.as_millis() as u64;
        self
    }

    /// Pauses before every chunk.
    pub fn chunk_delay(mut self, delay: Duration) -> Self {
        self.chunk_delay_ms = delay.as_millis() as u64;
        self
    }

    /// An answer streamed as these pieces of text, ending with `stop`.
    pub fn answer(pieces: &[&str]) -> Self {
        pieces
            .iter()
            .fold(Self::new(), |reply, piece| reply.text(*piece))
            .finish(FinishKind::Stop)
    }

    /// An answer that calls tools, `(id, name, arguments)` in order, each call's arguments in one
    /// piece, ending with `tool_calls`.
    pub fn calls(list: &[(&str, &str, serde_json::Value)]) -> Self {
        list.iter()
            .enumerate()
            .fold(Self::new(), |reply, (i, (id, name, args))| {
                reply
                    .tool_call(i as u32, *id, *name)
                    .tool_args(i as u32, args.to_string())
            })
            .finish(FinishKind::ToolCalls)
    }

    /// An answer of `text` streamed in pieces of `piece` characters, with usage.
    pub fn text_in_pieces(text: &str, piece: usize) -> Self {
        let chars: Vec<char> = text.chars().collect();
        let mut reply = Self::new();
        for part in chars.chunks(piece.max(1)) {
            reply = reply.text(part.iter().collect::<String>());
        }
        reply
            .usage(10, chars.len().div_ceil(4) as u32)
            .finish(FinishKind::Stop)
    }
}

impl ErrorReply {
    /// An error with a status and a JSON body.
    pub fn new(status: u16, body: serde_json::Value) -> Self {
        Self {
            status,
            body,
            retry_after: None,
        }
    }

    /// The same error with a `Retry-After` header.
    pub fn retry_after(mut self, value: impl Into<String>) -> Self {
        self.retry_after = Some(value.into());
        self
    }
}

impl From<StreamReply> for ScriptedResponse {
    fn from(reply: StreamReply) -> Self {
        ScriptedResponse::Stream(reply)
    }
}

impl From<ErrorReply> for ScriptedResponse {
    fn from(reply: ErrorReply) -> Self {
        ScriptedResponse::Error(reply)
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;

    #[test]
    fn json_script_and_builder_agree() {
        let json = r#"{"responses": [
            {"type": "stream", "chunk_delay_ms": 5, "chunks": [
                {"type": "text", "text": "Hi"},
                {"type": "tool_call_start", "index": 0, "id": "c1", "name": "read"},
                {"type": "tool_call_args", "index": 0, "delta": "{}"},
                {"type": "finish", "reason": "tool_calls"}
            ]},
            {"type": "error", "status": 429, "body": {"error": {"message": "slow down"}}, "retry_after": "1"},
            {"type": "hang"}
        ]}"#;
        let built = Script::new()
            .then(
                StreamReply::new()
                    .text("Hi")
                    .tool_call(0, "c1", "read")
                    .tool_args(0, "{}")
                    .finish(FinishKind::ToolCalls)
                    .chunk_delay(Duration::from_millis(5)),
            )
            .then(
                ErrorReply::new(429, serde_json::json!({"error": {"message": "slow down"}}))
                    .retry_after("1"),
            )
            .then(ScriptedResponse::Hang);
        assert_eq!(Script::from_json(json).unwrap(), built);
    }

    #[test]
    fn bad_script_error_says_where() {
        let err = Script::from_json(
            r#"{"responses": [{"type": "stream", "chunks": [{"type": "txt"}]}]}"#,
        )
        .unwrap_err();
        assert!(err.contains("txt"), "{err}");
    }
}
