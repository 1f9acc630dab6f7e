//! Decoding an Anthropic Messages stream (`message_start`, `content_block_*`, `message_delta`,
//! `message_stop`, `ping`, `error`).

use std::collections::HashMap;

use braid_protocol::ToolCallId;
use serde::Deserialize;

use crate::error::LlmError;
use crate::event::{FinishReason, LlmEvent, Usage};
use crate::openai::stream::excerpt;
use crate::sse::{EventDecoder, SseEvent};
use crate::transport::parse_arguments;

/// Any stream event, read flat: the fields of every event type are optional, so one pass of
/// the JSON suffices (an internally tagged enum would buffer each event twice).
#[derive(Deserialize)]
struct WireEvent {
    #[serde(rename = "type")]
    kind: String,
    #[serde(default)]
    index: Option<u32>,
    #[serde(default)]
    message: Option<WireMessage>,
    #[serde(default)]
    content_block: Option<WireBlock>,
    #[serde(default)]
    delta: Option<WireDelta>,
    #[serde(default)]
    usage: Option<WireUsage>,
    #[serde(default)]
    error: Option<serde_json::Value>,
}

#[derive(Deserialize)]
struct WireMessage {
    #[serde(default)]
    usage: Option<WireUsage>,
}

#[derive(Deserialize)]
struct WireBlock {
    #[serde(rename = "type")]
    kind: String,
    #[serde(default)]
    text: Option<String>,
    #[serde(default)]
    id: Option<String>,
    #[serde(default)]
    name: Option<String>,
    #[serde(default)]
    input: Option<serde_json::Value>,
}

/// A content block's delta or the message's delta (`stop_reason`).
#[derive(Deserialize, Default)]
struct WireDelta {
    #[serde(rename = "type", default)]
    kind: Option<String>,
    #[serde(default)]
    text: Option<String>,
    #[serde(default)]
    thinking: Option<String>,
    #[serde(default)]
    partial_json: Option<String>,
    #[serde(default)]
    stop_reason: Option<String>,
}

/// Anthropic usage. The prompt is split into fresh and cached tokens; Braid counts them all.
#[derive(Deserialize, Default, Clone, Copy)]
pub(crate) struct WireUsage {
    #[serde(default)]
    pub(crate) input_tokens: Option<u32>,
    #[serde(default)]
    pub(crate) cache_read_input_tokens: Option<u32>,
    #[serde(default)]
    pub(crate) cache_creation_input_tokens: Option<u32>,
    #[serde(default)]
    pub(crate) output_tokens: Option<u32>,
}

impl WireUsage {
    /// Prompt tokens read from the cache.
    pub(crate) fn cached_tokens(&self) -> u32 {
        self.cache_read_input_tokens.unwrap_or(0)
    }

    pub(crate) fn prompt_tokens(&self) -> Option<u32> {
        self.input_tokens.map(|i| {
            i + self.cache_read_input_tokens.unwrap_or(0)
                + self.cache_creation_input_tokens.unwrap_or(0)
        })
    }
}

enum Block {
    Text,
    Thinking,
    ToolUse {
        call: u32,
        id: ToolCallId,
        name: String,
        json: String,
    },
    Ignored,
}

/// State of one Anthropic stream: open content blocks by index, usage and stop reason.
#[derive(Default)]
pub struct AnthropicStreamDecoder {
    blocks: HashMap<u32, Block>,
    calls: u32,
    prompt_tokens: u32,
    cached_tokens: u32,
    completion_tokens: Option<u32>,
    stop_reason: Option<FinishReason>,
    started: bool,
    finished: bool,
}

impl AnthropicStreamDecoder {
    /// A decoder at the start of a stream.
    pub fn new() -> Self {
        Self::default()
    }

    fn complete_block(&mut self, index: u32, out: &mut Vec<LlmEvent>) {
        if let Some(Block::ToolUse {
            call,
            id,
            name,
            json,
        }) = self.blocks.remove(&index)
        {
            let arguments = parse_arguments(&id, &name, &json);
            out.push(LlmEvent::ToolCallCompleted {
                index: call,
                id,
                name,
                arguments,
            });
        }
    }
}

impl EventDecoder for AnthropicStreamDecoder {
    fn on_event(&mut self, event: &SseEvent, out: &mut Vec<LlmEvent>) -> Result<bool, LlmError> {
        let data = event.data.trim();
        if data.is_empty() {
            return Ok(false);
        }
        let wire: WireEvent = serde_json::from_str(data).map_err(|e| LlmError::Malformed {
            detail: format!(
                "event `{}` is not an Anthropic stream event ({e}): {}",
                event.event.as_deref().unwrap_or("message"),
                excerpt(data)
            ),
        })?;
        let index = || {
            wire.index.ok_or_else(|| LlmError::Malformed {
                detail: format!("`{}` event without an index: {}", wire.kind, excerpt(data)),
            })
        };
        match wire.kind.as_str() {
            "message_start" => {
                self.started = true;
                if let Some(usage) = wire.message.and_then(|m| m.usage) {
                    self.prompt_tokens = usage.prompt_tokens().unwrap_or(0);
                    self.cached_tokens = usage.cached_tokens();
                    self.completion_tokens = usage.output_tokens;
                }
            }
            "content_block_start" => {
                let index = index()?;
                let Some(content_block) = wire.content_block else {
                    return Err(LlmError::Malformed {
                        detail: format!(
                            "content_block_start without content_block: {}",
                            excerpt(data)
                        ),
                    });
                };
                let block = match content_block.kind.as_str() {
                    "text" => {
                        if let Some(text) = content_block.text.filter(|t| !t.is_empty()) {
                            out.push(LlmEvent::TextDelta { text });
                        }
                        Block::Text
                    }
                    "thinking" => Block::Thinking,
                    "tool_use" => {
                        let id: ToolCallId = content_block.id.unwrap_or_default().into();
                        let name = content_block.name.unwrap_or_default();
                        let call = self.calls;
                        self.calls += 1;
                        out.push(LlmEvent::ToolCallStarted {
                            index: call,
                            id: id.clone(),
                            name: name.clone(),
                        });
                        // A block may carry its whole input up front instead of in deltas.
                        let json = match content_block.input {
                            Some(input) if input.as_object().is_some_and(|o| !o.is_empty()) => {
                                let json = input.to_string();
                                out.push(LlmEvent::ToolCallArgumentsDelta {
                                    index: call,
                                    delta: json.clone(),
                                });
                                json
                            }
                            _ => String::new(),
                        };
                        Block::ToolUse {
                            call,
                            id,
                            name,
                            json,
                        }
                    }
                    _ => Block::Ignored,
                };
                self.blocks.insert(index, block);
            }
            "content_block_delta" => {
                let index = index()?;
                let delta = wire.delta.unwrap_or_default();
                match (delta.kind.as_deref(), self.blocks.get_mut(&index)) {
                    (Some("text_delta"), _) => {
                        if let Some(text) = delta.text.filter(|t| !t.is_empty()) {
                            out.push(LlmEvent::TextDelta { text });
                        }
                    }
                    (Some("thinking_delta"), _) => {
                        if let Some(text) = delta.thinking.filter(|t| !t.is_empty()) {
                            out.push(LlmEvent::ReasoningDelta { text });
                        }
                    }
                    (Some("input_json_delta"), Some(Block::ToolUse { call, json, .. })) => {
                        if let Some(piece) = delta.partial_json.filter(|p| !p.is_empty()) {
                            json.push_str(&piece);
                            out.push(LlmEvent::ToolCallArgumentsDelta {
                                index: *call,
                                delta: piece,
                            });
                        }
                    }
                    (Some("input_json_delta"), _) => {
                        return Err(LlmError::Malformed {
                            detail: format!(
                                "input_json_delta for content block {index}, which is not an open tool_use block"
                            ),
                        });
                    }
                    // signature_delta, citations_delta and future kinds carry nothing Braid uses.
                    _ => {}
                }
            }
            "content_block_stop" => {
                let index = index()?;
                self.complete_block(index, out);
            }
            "message_delta" => {
                if let Some(reason) = wire.delta.and_then(|d| d.stop_reason) {
                    self.stop_reason = Some(FinishReason::from_anthropic(&reason));
                }
                if let Some(usage) = wire.usage {
                    if let Some(prompt) = usage.prompt_tokens() {
                        self.prompt_tokens = prompt;
                        self.cached_tokens = usage.cached_tokens();
                    }
                    if let Some(output) = usage.output_tokens {
                        self.completion_tokens = Some(output);
                    }
                }
            }
            "message_stop" => {
                let mut open: Vec<u32> = self.blocks.keys().copied().collect();
                open.sort_unstable();
                for index in open {
                    self.complete_block(index, out);
                }
                if let Some(completion_tokens) = self.completion_tokens {
                    out.push(LlmEvent::Usage(Usage {
                        prompt_tokens: self.prompt_tokens,
                        completion_tokens,
                        cached_prompt_tokens: self.cached_tokens,
                    }));
                }
                let reason = self.stop_reason.take().unwrap_or(if self.calls > 0 {
                    FinishReason::ToolCalls
                } else {
                    FinishReason::Stop
                });
                out.push(LlmEvent::Finish { reason });
                self.finished = true;
                return Ok(true);
            }
            "error" => {
                let error = wire.error.unwrap_or_default();
                let (message, error_type) = crate::error::describe_error_body(
                    &serde_json::json!({ "error": error }).to_string(),
                );
                return Err(LlmError::Provider {
                    error_type,
                    message,
                });
            }
            // `ping` and event types added after this version.
            _ => {}
        }
        Ok(false)
    }

    fn on_end(&mut self, _out: &mut Vec<LlmEvent>) -> Result<(), LlmError> {
        if self.finished {
            return Ok(());
        }
        Err(LlmError::StreamCut {
            detail: if self.started {
                "the stream ended before message_stop".to_owned()
            } else {
                "the stream ended before message_start".to_owned()
            },
        })
    }
}
