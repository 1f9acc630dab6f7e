//! Summarization: a batch of old messages is rewritten by the model into a short summary, in a
//! separate, non-streamed request with its own prompt. The summary is stored as a
//! `system_control` summary message listing the ids it replaces; the originals stay stored.

use std::borrow::Cow;

use braid_llm::history::{HistoryOptions, ImageDelivery, Turn, UserPart, build_conversation};
use braid_llm::{LlmClient, LlmError, LlmRequest};
use braid_protocol::{Message, MessageId, MessageKind, Role, SystemControlMessage};

/// The instructions of the summarization request.
pub const SUMMARY_PROMPT: &str = "You compress the older part of a conversation between a person and an AI coding \
assistant so the assistant can continue without it. Write a concise summary in plain prose or \
short bullet points: the person's goals and requests, decisions made, facts learned, files and \
commands involved with their outcomes, and anything still open. Keep names, paths, numbers and \
error messages exact. Do not add anything that is not in the conversation and do not address \
the person. Answer with the summary only.";

/// The most tokens a summary may take.
pub const MAX_SUMMARY_TOKENS: u32 = 1024;

/// Why no summary was made.
#[derive(Debug, thiserror::Error)]
pub enum SummaryError {
    /// The model could not be asked or failed.
    #[error("the summarization request failed: {0}")]
    Llm(#[from] LlmError),
    /// The model answered with nothing.
    #[error("the model returned an empty summary")]
    Empty,
}

/// The batch as a transcript for the summarizer: who said what, tool calls and results named.
pub fn transcript(batch: &[Message]) -> String {
    let conversation = build_conversation(
        None,
        batch,
        HistoryOptions {
            images: ImageDelivery::AsRecognizedText,
            // The transcript names calls and results itself.
            tool_calls: braid_protocol::ToolCalling::Native,
        },
    );
    let mut out = Vec::new();
    if let Some(system) = conversation.system {
        out.push(format!("System: {system}"));
    }
    for turn in conversation.turns {
        match turn {
            Turn::User(parts) => {
                let text: Vec<Cow<'_, str>> = parts
                    .into_iter()
                    .map(|p| match p {
                        UserPart::Text(t) => t,
                        UserPart::Image(_) => Cow::Borrowed("[an image]"),
                    })
                    .collect();
                out.push(format!("User: {}", text.join("\n")));
            }
            Turn::Assistant { text, calls } => {
                if !text.trim().is_empty() {
                    out.push(format!("Assistant: {text}"));
                }
                for c in calls {
                    out.push(format!(
                        "Assistant called tool `{}` with {}",
                        c.name, c.arguments
                    ));
                }
            }
            Turn::ToolResult(r) => {
                let what = if r.is_error { "failed" } else { "returned" };
                out.push(format!(
                    "Tool `{}` {what}: {}",
                    r.tool_name,
                    r.content.text()
                ));
            }
        }
    }
    out.join("\n\n")
}

/// The summarization request for `batch`.
pub fn request(model: &str, batch: &[Message], max_tokens: u32) -> LlmRequest {
    let mut request = LlmRequest::new(
        model.to_owned(),
        vec![Message::user_text(format!(
            "Summarize this conversation excerpt ({} messages):\n\n{}",
            batch.len(),
            transcript(batch)
        ))],
    )
    .with_system_prompt(SUMMARY_PROMPT);
    request.options.max_tokens = Some(max_tokens);
    request
}

/// Asks the model for the summary of `batch`.
pub async fn summarize(
    llm: &dyn LlmClient,
    model: &str,
    batch: &[Message],
    max_tokens: u32,
) -> Result<String, SummaryError> {
    let completion = llm.complete(&request(model, batch, max_tokens)).await?;
    let text = completion.text.trim().to_owned();
    if text.is_empty() {
        return Err(SummaryError::Empty);
    }
    Ok(text)
}

/// The stored summary message: an assistant `system_control` that lists what it replaces.
pub fn summary_message(
    text: String,
    replaces: Vec<MessageId>,
    tokens_before: u32,
    tokens_after: u32,
) -> Message {
    Message::new(
        Role::Assistant,
        MessageKind::SystemControl(SystemControlMessage::Summary {
            text,
            replaces,
            tokens_before,
            tokens_after,
        }),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use braid_protocol::{ToolCall, ToolOutcome, ToolRequestMessage, ToolResultMessage};

    #[test]
    fn transcript_names_speakers_and_tools() {
        let call = Message::new(
            Role::Assistant,
            MessageKind::ToolRequest(ToolRequestMessage {
                calls: vec![ToolCall::new(
                    "c1",
                    "read_file",
                    serde_json::json!({"path": "a.rs"}),
                )],
            }),
        );
        let result = Message::new(
            Role::Tool,
            MessageKind::ToolResult(Box::new(ToolResultMessage {
                call_id: "c1".into(),
                tool_name: "read_file".into(),
                outcome: ToolOutcome::Success {
                    output: serde_json::json!("fn main() {}"),
                },
                duration_ms: 1,
                started_at: None,
                completed_at: None,
            })),
        );
        let text = transcript(&[Message::user_text("read a.rs"), call, result]);
        assert!(text.contains("User: read a.rs"), "{text}");
        assert!(text.contains("Assistant called tool `read_file`"), "{text}");
        assert!(
            text.contains("Tool `read_file` returned: fn main() {}"),
            "{text}"
        );
    }
}
