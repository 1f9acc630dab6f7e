//! Decoding an OpenAI chat-completions stream (`chat.completion.chunk` objects, then `[DONE]`).

use std::collections::BTreeMap;

use braid_protocol::ToolCallId;
use serde::Deserialize;

use crate::error::LlmError;
use crate::event::{FinishReason, LlmEvent, Usage};
use crate::sse::{EventDecoder, SseEvent};
use crate::transport::parse_arguments;

#[derive(Deserialize)]
struct Chunk {
    #[serde(default)]
    choices: Vec<Choice>,
    #[serde(default)]
    usage: Option<WireUsage>,
    #[serde(default)]
    error: Option<serde_json::Value>,
}

#[derive(Deserialize)]
struct Choice {
    #[serde(default)]
    delta: Option<Delta>,
    #[serde(default)]
    finish_reason: Option<String>,
}

#[derive(Deserialize)]
struct Delta {
    #[serde(default)]
    content: Option<String>,
    /// DeepSeek, vLLM and llama.cpp send reasoning as `reasoning_content`; OpenRouter and
    /// Ollama as `reasoning`.
    #[serde(default, alias = "reasoning")]
    reasoning_content: Option<String>,
    #[serde(default)]
    tool_calls: Vec<ToolCallDelta>,
}

#[derive(Deserialize)]
struct ToolCallDelta {
    #[serde(default)]
    index: Option<u32>,
    #[serde(default)]
    id: Option<String>,
    #[serde(default)]
    function: Option<FunctionDelta>,
}

#[derive(Deserialize)]
struct FunctionDelta {
    #[serde(default)]
    name: Option<String>,
    #[serde(default)]
    arguments: Option<String>,
}

#[derive(Deserialize)]
pub(crate) struct WireUsage {
    #[serde(default)]
    pub(crate) prompt_tokens: u32,
    #[serde(default)]
    pub(crate) completion_tokens: u32,
    #[serde(default)]
    pub(crate) prompt_tokens_details: Option<WirePromptDetails>,
}

/// `usage.prompt_tokens_details`: how much of the prompt came from OpenAI's prompt cache.
#[derive(Deserialize)]
pub(crate) struct WirePromptDetails {
    #[serde(default)]
    pub(crate) cached_tokens: Option<u32>,
}

impl WireUsage {
    /// Prompt tokens read from the cache.
    pub(crate) fn cached_tokens(&self) -> u32 {
        self.prompt_tokens_details
            .as_ref()
            .and_then(|d| d.cached_tokens)
            .unwrap_or(0)
    }
}

#[derive(Default)]
struct CallState {
    id: Option<String>,
    name: Option<String>,
    arguments: String,
    /// Arguments that arrived before the id and name were known.
    started: bool,
    completed: bool,
}

/// State of one OpenAI stream: tool calls accumulated by index, the finish reason until the
/// stream ends (usage follows it when `include_usage` is on).
#[derive(Default)]
pub struct OpenAiStreamDecoder {
    calls: BTreeMap<u32, CallState>,
    finish: Option<FinishReason>,
    finished: bool,
}

impl OpenAiStreamDecoder {
    /// A decoder at the start of a stream.
    pub fn new() -> Self {
        Self::default()
    }

    fn complete_calls(&mut self, out: &mut Vec<LlmEvent>) {
        for (index, call) in self.calls.iter_mut() {
            if call.completed {
                continue;
            }
            let id: ToolCallId = call
                .id
                .clone()
                .unwrap_or_else(|| format!("call_{}", uuid::Uuid::now_v7().simple()))
                .into();
            let name = call.name.clone().unwrap_or_default();
            if !call.started {
                out.push(LlmEvent::ToolCallStarted {
                    index: *index,
                    id: id.clone(),
                    name: name.clone(),
                });
                if !call.arguments.is_empty() {
                    out.push(LlmEvent::ToolCallArgumentsDelta {
                        index: *index,
                        delta: call.arguments.clone(),
                    });
                }
                call.started = true;
            }
            call.completed = true;
            let arguments = parse_arguments(&id, &name, &call.arguments);
            out.push(LlmEvent::ToolCallCompleted {
                index: *index,
                id,
                name,
                arguments,
            });
        }
    }

    fn end(&mut self, out: &mut Vec<LlmEvent>) {
        self.complete_calls(out);
        if let Some(reason) = self.finish.take() {
            out.push(LlmEvent::Finish { reason });
        }
        self.finished = true;
    }
}

impl EventDecoder for OpenAiStreamDecoder {
    fn on_event(&mut self, event: &SseEvent, out: &mut Vec<LlmEvent>) -> Result<bool, LlmError> {
        let data = event.data.trim();
        if data == "[DONE]" {
            if self.finish.is_none() && !self.finished {
                // Some servers end with [DONE] and no finish_reason; what arrived is the answer.
                self.finish = Some(if self.calls.is_empty() {
                    FinishReason::Stop
                } else {
                    FinishReason::ToolCalls
                });
            }
            self.end(out);
            return Ok(true);
        }
        if data.is_empty() {
            return Ok(false);
        }
        let chunk: Chunk = serde_json::from_str(data).map_err(|e| LlmError::Malformed {
            detail: format!(
                "chunk is not a chat.completion.chunk ({e}): {}",
                excerpt(data)
            ),
        })?;
        if let Some(error) = chunk.error {
            let (message, error_type) = crate::error::describe_error_body(
                &serde_json::json!({ "error": error }).to_string(),
            );
            return Err(LlmError::Provider {
                error_type,
                message,
            });
        }
        for choice in chunk.choices {
            if let Some(delta) = choice.delta {
                if let Some(text) = delta.reasoning_content.filter(|t| !t.is_empty()) {
                    out.push(LlmEvent::ReasoningDelta { text });
                }
                if let Some(text) = delta.content.filter(|t| !t.is_empty()) {
                    out.push(LlmEvent::TextDelta { text });
                }
                for (position, call) in delta.tool_calls.into_iter().enumerate() {
                    let index = call.index.unwrap_or(position as u32);
                    let state = self.calls.entry(index).or_default();
                    if state.completed {
                        return Err(LlmError::Malformed {
                            detail: format!("tool call {index} continued after it was complete"),
                        });
                    }
                    if let Some(id) = call.id.filter(|i| !i.is_empty()) {
                        state.id.get_or_insert(id);
                    }
                    let mut new_arguments = String::new();
                    if let Some(function) = call.function {
                        if let Some(name) = function.name.filter(|n| !n.is_empty()) {
                            state.name.get_or_insert(name);
                        }
                        if let Some(arguments) = function.arguments {
                            new_arguments = arguments;
                        }
                    }
                    state.arguments.push_str(&new_arguments);
                    if !state.started {
                        if let (Some(id), Some(name)) = (&state.id, &state.name) {
                            state.started = true;
                            out.push(LlmEvent::ToolCallStarted {
                                index,
                                id: id.clone().into(),
                                name: name.clone(),
                            });
                            if !state.arguments.is_empty() {
                                out.push(LlmEvent::ToolCallArgumentsDelta {
                                    index,
                                    delta: state.arguments.clone(),
                                });
                            }
                        }
                    } else if !new_arguments.is_empty() {
                        out.push(LlmEvent::ToolCallArgumentsDelta {
                            index,
                            delta: new_arguments,
                        });
                    }
                }
            }
            if let Some(reason) = choice.finish_reason.filter(|r| !r.is_empty()) {
                self.complete_calls(out);
                self.finish = Some(FinishReason::from_openai(&reason));
            }
        }
        if let Some(usage) = chunk.usage {
            out.push(LlmEvent::Usage(Usage {
                prompt_tokens: usage.prompt_tokens,
                completion_tokens: usage.completion_tokens,
                cached_prompt_tokens: usage.cached_tokens(),
            }));
        }
        Ok(false)
    }

    fn on_end(&mut self, out: &mut Vec<LlmEvent>) -> Result<(), LlmError> {
        if self.finished {
            return Ok(());
        }
        if self.finish.is_some() {
            // The finish reason arrived; only `[DONE]` is missing (some servers omit it).
            self.end(out);
            return Ok(());
        }
        Err(LlmError::StreamCut {
            detail: "the stream ended without a finish_reason or [DONE]".to_owned(),
        })
    }
}

pub(crate) fn excerpt(text: &str) -> String {
    let mut s: String = text.chars().take(200).collect();
    if s.len() < text.len() {
        s.push('…');
    }
    s
}
