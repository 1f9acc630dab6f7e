//! What a model sends back, provider-neutral: the events of a stream and the whole answer.

use braid_protocol::ToolCallId;
use serde::{Deserialize, Serialize};

/// One step of a streamed answer.
///
/// A tool call goes through `ToolCallStarted`, any number of `ToolCallArgumentsDelta`s and one
/// `ToolCallCompleted`; calls of one answer are told apart by `index` (their position in the
/// answer, from 0), because providers interleave their argument deltas.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum LlmEvent {
    /// Visible text.
    TextDelta {
        /// The new text.
        text: String,
    },
    /// Reasoning text, from providers that send it apart (shown, never sent back).
    ReasoningDelta {
        /// The new reasoning text.
        text: String,
    },
    /// The model began a tool call.
    ToolCallStarted {
        /// The call's position in this answer.
        index: u32,
        /// The id the model gave the call.
        id: ToolCallId,
        /// The tool's name.
        name: String,
    },
    /// A piece of a call's JSON arguments.
    ToolCallArgumentsDelta {
        /// The call's position in this answer.
        index: u32,
        /// The raw piece of JSON text.
        delta: String,
    },
    /// A call's arguments are complete.
    ToolCallCompleted {
        /// The call's position in this answer.
        index: u32,
        /// The id the model gave the call.
        id: ToolCallId,
        /// The tool's name.
        name: String,
        /// The parsed arguments (a JSON object), or why they could not be used.
        arguments: Result<serde_json::Value, ToolArgumentsError>,
    },
    /// Token counts for the request.
    Usage(Usage),
    /// The model is done.
    Finish {
        /// Why it stopped.
        reason: FinishReason,
    },
    /// The model server accepted the request: its HTTP response started with a success status,
    /// and the answer follows (once per attempt). Not part of the answer: it ends the wait for a
    /// connection (`connecting_to_llm`) and starts the wait for the first chunk.
    Connected,
    /// The previous attempt failed before any of the answer arrived; the call is tried again
    /// after a wait. Not part of the answer.
    Retrying {
        /// The attempt about to start (2 for the first retry).
        attempt: u32,
        /// Why the previous attempt failed.
        reason: String,
        /// The wait before it, in milliseconds.
        wait_ms: u64,
    },
}

/// A tool call that cannot be used: its arguments are not a JSON object, or (prompted calls) the
/// block the model wrote is not a call. The rest of the answer is unaffected; the engine gives
/// the model an error result for this call.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, thiserror::Error)]
#[error("tool call `{call_id}` ({tool}) cannot be used: {reason}")]
pub struct ToolArgumentsError {
    /// The call.
    pub call_id: ToolCallId,
    /// The tool the model called.
    pub tool: String,
    /// What was wrong, as a sentence the model can act on.
    pub reason: String,
    /// The text the model sent, unchanged.
    pub raw: String,
}

/// Tokens used by one request.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Usage {
    /// Tokens of the prompt (cached ones included).
    pub prompt_tokens: u32,
    /// Tokens the model generated.
    pub completion_tokens: u32,
    /// Prompt tokens the provider read from its prompt cache (part of `prompt_tokens`).
    #[serde(default)]
    pub cached_prompt_tokens: u32,
}

/// Why the model stopped.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FinishReason {
    /// It finished its answer (or hit a stop sequence).
    Stop,
    /// It hit the output token limit.
    Length,
    /// It wants its tool calls run.
    ToolCalls,
    /// The provider filtered or refused the content.
    ContentFilter,
    /// A reason this version does not know, as the provider wrote it.
    Other(String),
}

impl FinishReason {
    /// Maps an OpenAI `finish_reason`.
    pub fn from_openai(reason: &str) -> Self {
        match reason {
            "stop" => Self::Stop,
            "length" => Self::Length,
            "tool_calls" | "function_call" => Self::ToolCalls,
            "content_filter" => Self::ContentFilter,
            other => Self::Other(other.to_owned()),
        }
    }

    /// Maps an Anthropic `stop_reason`.
    pub fn from_anthropic(reason: &str) -> Self {
        match reason {
            "end_turn" | "stop_sequence" => Self::Stop,
            "max_tokens" => Self::Length,
            "tool_use" => Self::ToolCalls,
            "refusal" => Self::ContentFilter,
            other => Self::Other(other.to_owned()),
        }
    }
}

/// A tool call as it stands once its arguments are complete.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CompletedToolCall {
    /// The id the model gave the call.
    pub id: ToolCallId,
    /// The tool's name.
    pub name: String,
    /// The parsed arguments, or why they could not be used.
    pub arguments: Result<serde_json::Value, ToolArgumentsError>,
}

/// A whole answer: what [`crate::LlmClient::complete`] returns, or a stream folded up.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Completion {
    /// The visible text.
    pub text: String,
    /// Reasoning text, when the provider sent some.
    pub reasoning: String,
    /// The tool calls, in order.
    pub tool_calls: Vec<CompletedToolCall>,
    /// Token counts, when the provider sent them.
    pub usage: Option<Usage>,
    /// Why the model stopped; `None` if the answer was cut short.
    pub finish_reason: Option<FinishReason>,
}

/// Folds [`LlmEvent`]s into a [`Completion`], keeping partial tool calls apart so an interrupted
/// answer can still say what had arrived.
#[derive(Debug, Default)]
pub struct CompletionBuilder {
    completion: Completion,
    open_calls: Vec<(u32, ToolCallId, String, String)>,
    events: usize,
}

impl CompletionBuilder {
    /// An empty builder.
    pub fn new() -> Self {
        Self::default()
    }

    /// Takes one event into account.
    pub fn push(&mut self, event: &LlmEvent) {
        if let LlmEvent::Retrying { .. } | LlmEvent::Connected = event {
            return;
        }
        self.events += 1;
        match event {
            LlmEvent::TextDelta { text } => self.completion.text.push_str(text),
            LlmEvent::ReasoningDelta { text } => self.completion.reasoning.push_str(text),
            LlmEvent::ToolCallStarted { index, id, name } => {
                self.open_calls
                    .push((*index, id.clone(), name.clone(), String::new()));
            }
            LlmEvent::ToolCallArgumentsDelta { index, delta } => {
                if let Some(call) = self.open_calls.iter_mut().find(|c| c.0 == *index) {
                    call.3.push_str(delta);
                }
            }
            LlmEvent::ToolCallCompleted {
                index,
                id,
                name,
                arguments,
            } => {
                self.open_calls.retain(|c| c.0 != *index);
                self.completion.tool_calls.push(CompletedToolCall {
                    id: id.clone(),
                    name: name.clone(),
                    arguments: arguments.clone(),
                });
            }
            LlmEvent::Usage(usage) => self.completion.usage = Some(*usage),
            LlmEvent::Finish { reason } => self.completion.finish_reason = Some(reason.clone()),
            LlmEvent::Retrying { .. } | LlmEvent::Connected => {}
        }
    }

    /// How many events were pushed.
    pub fn event_count(&self) -> usize {
        self.events
    }

    /// What had arrived, for an error raised after some output.
    pub fn partial(&self) -> crate::PartialOutput {
        crate::PartialOutput {
            text: self.completion.text.clone(),
            completed_tool_calls: self.completion.tool_calls.len(),
            unfinished_tool_calls: self
                .open_calls
                .iter()
                .map(|(_, id, name, args)| crate::error::UnfinishedToolCall {
                    id: id.clone(),
                    name: name.clone(),
                    arguments: args.clone(),
                })
                .collect(),
        }
    }

    /// The answer so far.
    pub fn finish(self) -> Completion {
        self.completion
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;

    #[test]
    fn builder_folds_text_calls_usage_and_finish() {
        let mut b = CompletionBuilder::new();
        let events = [
            LlmEvent::TextDelta { text: "He".into() },
            LlmEvent::TextDelta { text: "llo".into() },
            LlmEvent::ToolCallStarted {
                index: 0,
                id: "c1".into(),
                name: "read".into(),
            },
            LlmEvent::ToolCallArgumentsDelta {
                index: 0,
                delta: "{}".into(),
            },
            LlmEvent::ToolCallCompleted {
                index: 0,
                id: "c1".into(),
                name: "read".into(),
                arguments: Ok(serde_json::json!({})),
            },
            LlmEvent::Usage(Usage {
                prompt_tokens: 3,
                completion_tokens: 4,
                cached_prompt_tokens: 0,
            }),
            LlmEvent::Finish {
                reason: FinishReason::ToolCalls,
            },
        ];
        for e in &events {
            b.push(e);
        }
        assert_eq!(b.event_count(), 7);
        let c = b.finish();
        assert_eq!(c.text, "Hello");
        assert_eq!(c.tool_calls.len(), 1);
        assert_eq!(c.usage.map(|u| u.completion_tokens), Some(4));
        assert_eq!(c.finish_reason, Some(FinishReason::ToolCalls));
    }

    #[test]
    fn partial_output_lists_unfinished_calls_with_their_arguments_so_far() {
        let mut b = CompletionBuilder::new();
        b.push(&LlmEvent::TextDelta { text: "x".into() });
        b.push(&LlmEvent::ToolCallStarted {
            index: 0,
            id: "c9".into(),
            name: "grep".into(),
        });
        b.push(&LlmEvent::ToolCallArgumentsDelta {
            index: 0,
            delta: "{\"pat".into(),
        });
        let p = b.partial();
        assert_eq!(p.text, "x");
        assert_eq!(p.unfinished_tool_calls.len(), 1);
        assert_eq!(p.unfinished_tool_calls[0].arguments, "{\"pat");
    }

    #[test]
    fn finish_reasons_map_from_both_providers() {
        assert_eq!(
            FinishReason::from_openai("tool_calls"),
            FinishReason::ToolCalls
        );
        assert_eq!(
            FinishReason::from_anthropic("tool_use"),
            FinishReason::ToolCalls
        );
        assert_eq!(
            FinishReason::from_anthropic("max_tokens"),
            FinishReason::Length
        );
        assert_eq!(
            FinishReason::from_openai("weird"),
            FinishReason::Other("weird".into())
        );
    }
}
