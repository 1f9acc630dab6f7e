//! Rendering a request as an OpenAI chat-completions body.

use serde_json::{Value, json};

use crate::history::{Conversation, ImageRef, Turn, UserPart};
use crate::request::{LlmRequest, ToolDefinition};

/// Whether the body asks for a stream.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Delivery {
    /// `stream: true` with usage in the last chunk.
    Streamed,
    /// One JSON answer.
    Whole,
}

/// The chat-completions body for `request`, whose history has become `conversation`.
pub fn build_body(request: &LlmRequest, conversation: &Conversation, delivery: Delivery) -> Value {
    let mut messages = Vec::new();
    if let Some(system) = &conversation.system {
        messages.push(json!({ "role": "system", "content": system }));
    }
    for turn in &conversation.turns {
        messages.push(match turn {
            Turn::User(parts) => json!({ "role": "user", "content": user_content(parts) }),
            Turn::Assistant { text, calls } => {
                let mut message = json!({
                    "role": "assistant",
                    "content": if text.is_empty() { Value::Null } else { Value::String(text.clone()) },
                });
                if !calls.is_empty() {
                    message["tool_calls"] = calls
                        .iter()
                        .map(|call| {
                            json!({
                                "id": call.id.as_str(),
                                "type": "function",
                                "function": {
                                    "name": call.name,
                                    // Arguments the model sent as broken JSON are replayed as sent.
                                    "arguments": match &call.arguments {
                                        Value::String(raw) => raw.clone(),
                                        other => other.to_string(),
                                    },
                                },
                            })
                        })
                        .collect();
                }
                message
            }
            Turn::ToolResult(result) => json!({
                "role": "tool",
                "tool_call_id": result.call_id.as_str(),
                "content": result.content,
            }),
        });
    }

    let mut body = json!({ "model": request.model, "messages": messages });
    let reasoning_model = is_reasoning_model(&request.model);
    if let Some(max) = request.options.max_tokens {
        // o-series and gpt-5 refuse `max_tokens`.
        let key = if reasoning_model {
            "max_completion_tokens"
        } else {
            "max_tokens"
        };
        body[key] = json!(max);
    }
    if let Some(t) = request.options.temperature.filter(|_| !reasoning_model) {
        body["temperature"] = json!(t);
    }
    if let Some(p) = request.options.top_p.filter(|_| !reasoning_model) {
        body["top_p"] = json!(p);
    }
    if !request.options.stop.is_empty() {
        body["stop"] = json!(request.options.stop);
    }
    // A prompted model reads its tools in the system prompt.
    if !request.tools.is_empty() && request.tool_calling == braid_protocol::ToolCalling::Native {
        body["tools"] = tool_definitions(&request.tools);
    }
    if delivery == Delivery::Streamed {
        body["stream"] = json!(true);
        body["stream_options"] = json!({ "include_usage": true });
    }
    body
}

/// Tool definitions in OpenAI's `function` format.
pub fn tool_definitions(tools: &[ToolDefinition]) -> Value {
    tools
        .iter()
        .map(|tool| {
            json!({
                "type": "function",
                "function": {
                    "name": tool.name,
                    "description": tool.description,
                    "parameters": tool.parameters,
                },
            })
        })
        .collect()
}

/// Text-only content is one string (every compatible server accepts that, not all accept part
/// arrays); content with an image becomes an array of parts.
fn user_content(parts: &[UserPart]) -> Value {
    let texts: Option<Vec<&str>> = parts
        .iter()
        .map(|part| match part {
            UserPart::Text(text) => Some(text.as_str()),
            UserPart::Image(_) => None,
        })
        .collect();
    if let Some(texts) = texts {
        return Value::String(texts.join("\n\n"));
    }
    parts
        .iter()
        .map(|part| match part {
            UserPart::Text(text) => json!({ "type": "text", "text": text }),
            UserPart::Image(ImageRef::Url(url)) => {
                json!({ "type": "image_url", "image_url": { "url": url } })
            }
            UserPart::Image(ImageRef::Base64 { media_type, data }) => json!({
                "type": "image_url",
                "image_url": { "url": format!("data:{media_type};base64,{data}") },
            }),
        })
        .collect()
}

fn is_reasoning_model(model: &str) -> bool {
    let name = model
        .rsplit('/')
        .next()
        .unwrap_or(model)
        .to_ascii_lowercase();
    ["o1", "o3", "o4", "gpt-5"]
        .iter()
        .any(|prefix| name.starts_with(prefix))
}
