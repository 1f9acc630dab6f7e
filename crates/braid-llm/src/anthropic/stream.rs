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

#[derive(Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
enum WireEvent {
    MessageStart {
        message: WireMessage,
    },
    ContentBlockStart {
        index: u32,
        content_block: serde_json::Value,
    },
    ContentBlockDelta {
        index: u32,
        delta: serde_json::Value,
    },
    ContentBlockStop {
        index: u32,
    },
    MessageDelta {
        #[serde(default)]
        delta: MessageDeltaBody,
        #[serde(default)]
        usage: Option<WireUsage>,
    },
    MessageStop,
    Ping,
    Error {
        error: serde_json::Value,
    },
    #[serde(other)]
    Other,
}

#[derive(Deserialize)]
struct WireMessage {
    #[serde(default)]
    usage: Option<WireUsage>,
}

#[derive(Deserialize, Default)]
struct MessageDeltaBody {
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
        match wire {
            WireEvent::MessageStart { message } => {
                self.started = true;
                if let Some(usage) = message.usage {
                    self.prompt_tokens = usage.prompt_tokens().unwrap_or(0);
                    self.completion_tokens = usage.output_tokens;
                }
            }
            WireEvent::ContentBlockStart {
                index,
                content_block,
            } => {
                let kind = content_block.get("type").and_then(|t| t.as_str());
                let block = match kind {
                    Some("text") => {
                        if let Some(text) = content_block
                            .get("text")
                            .and_then(|t| t.as_str())
                            .filter(|t| !t.is_empty())
                        {
                            out.push(LlmEvent::TextDelta {
                                text: text.to_owned(),
                            });
                        }
                        Block::Text
                    }
                    Some("thinking") => Block::Thinking,
                    Some("tool_use") => {
                        let id: ToolCallId = content_block
                            .get("id")
                            .and_then(|i| i.as_str())
                            .unwrap_or_default()
                            .into();
                        let name = content_block
                            .get("name")
                            .and_then(|n| n.as_str())
                            .unwrap_or_default()
                            .to_owned();
                        let call = self.calls;
                        self.calls += 1;
                        out.push(LlmEvent::ToolCallStarted {
                            index: call,
                            id: id.clone(),
                            name: name.clone(),
                        });
                        // A non-streaming-style block may carry its whole input up front.
                        let json = match content_block.get("input") {
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
            WireEvent::ContentBlockDelta { index, delta } => {
                let kind = delta.get("type").and_then(|t| t.as_str());
                let field = |name: &str| {
                    delta
                        .get(name)
                        .and_then(|t| t.as_str())
                        .unwrap_or_default()
                        .to_owned()
                };
                match (kind, self.blocks.get_mut(&index)) {
                    (Some("text_delta"), _) => {
                        let text = field("text");
                        if !text.is_empty() {
                            out.push(LlmEvent::TextDelta { text });
                        }
                    }
                    (Some("thinking_delta"), _) => {
                        let text = field("thinking");
                        if !text.is_empty() {
                            out.push(LlmEvent::ReasoningDelta { text });
                        }
                    }
                    (Some("input_json_delta"), Some(Block::ToolUse { call, json, .. })) => {
                        let piece = field("partial_json");
                        if !piece.is_empty() {
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
            WireEvent::ContentBlockStop { index } => self.complete_block(index, out),
            WireEvent::MessageDelta { delta, usage } => {
                if let Some(reason) = delta.stop_reason {
                    self.stop_reason = Some(FinishReason::from_anthropic(&reason));
                }
                if let Some(usage) = usage {
                    if let Some(prompt) = usage.prompt_tokens() {
                        self.prompt_tokens = prompt;
                    }
                    if let Some(output) = usage.output_tokens {
                        self.completion_tokens = Some(output);
                    }
                }
            }
            WireEvent::MessageStop => {
                let open: Vec<u32> = self.blocks.keys().copied().collect();
                for index in open {
                    self.complete_block(index, out);
                }
                if let Some(completion_tokens) = self.completion_tokens {
                    out.push(LlmEvent::Usage(Usage {
                        prompt_tokens: self.prompt_tokens,
                        completion_tokens,
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
            WireEvent::Ping | WireEvent::Other => {}
            WireEvent::Error { error } => {
                let (message, error_type) = crate::error::describe_error_body(
                    &serde_json::json!({ "error": error }).to_string(),
                );
                return Err(LlmError::Provider {
                    error_type,
                    message,
                });
            }
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
