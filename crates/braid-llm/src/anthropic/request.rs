//! Rendering a request as an Anthropic Messages body.

use serde_json::{Value, json};

use crate::capabilities::ModelCapabilities;
use crate::history::{Conversation, ImageRef, Turn, UserPart};
use crate::request::{LlmRequest, ToolDefinition};

/// Anthropic requires `max_tokens`; without one in the request, the model's maximum output is
/// used, capped here so a default request does not reserve a huge answer.
pub const DEFAULT_MAX_TOKENS_CAP: u32 = 8_192;

/// The prompt-cache mark of Anthropic's Messages API (the five-minute cache).
fn cache_control() -> Value {
    json!({ "type": "ephemeral" })
}

/// The Messages body for `request`, whose history has become `conversation`.
pub fn build_body(
    request: &LlmRequest,
    conversation: &Conversation,
    capabilities: &ModelCapabilities,
    stream: bool,
) -> Value {
    // Anthropic wants user and assistant turns to alternate: tool results are user content,
    // and consecutive turns of one role are merged into one message.
    let mut messages: Vec<(&'static str, Vec<Value>)> = Vec::new();
    for turn in &conversation.turns {
        let (role, blocks) = match turn {
            Turn::User(parts) => ("user", parts.iter().map(user_block).collect()),
            Turn::Assistant { text, calls } => {
                let mut blocks = Vec::new();
                if !text.trim().is_empty() {
                    blocks.push(json!({ "type": "text", "text": text }));
                }
                for call in calls {
                    let input = match call.arguments {
                        object @ Value::Object(_) => object.clone(),
                        // `input` must be an object: broken arguments are kept for the model.
                        Value::String(raw) => json!({ "raw_arguments": raw }),
                        other => json!({ "raw_arguments": other.to_string() }),
                    };
                    blocks.push(json!({
                        "type": "tool_use",
                        "id": call.id.as_str(),
                        "name": call.name,
                        "input": input,
                    }));
                }
                ("assistant", blocks)
            }
            Turn::ToolResult(result) => {
                let mut block = json!({
                    "type": "tool_result",
                    "tool_use_id": result.call_id.as_str(),
                    "content": result.content.text(),
                });
                if result.is_error {
                    block["is_error"] = json!(true);
                }
                ("user", vec![block])
            }
        };
        if blocks.is_empty() {
            continue;
        }
        match messages.last_mut() {
            Some((last_role, last_blocks)) if *last_role == role => last_blocks.extend(blocks),
            _ => messages.push((role, blocks)),
        }
    }
    let messages: Vec<Value> = messages
        .into_iter()
        .map(|(role, blocks)| json!({ "role": role, "content": blocks }))
        .collect();

    let max_tokens = request
        .options
        .max_tokens
        .unwrap_or_else(|| capabilities.max_output_tokens.min(DEFAULT_MAX_TOKENS_CAP));
    let mut body = json!({
        "model": request.model,
        "max_tokens": max_tokens,
        "messages": messages,
    });
    // The system prompt and the tools are the stable prefix of every request of a context
    // (nothing that changes per turn comes before the history): marked so Anthropic caches
    // them. Tools come first in Anthropic's prefix, so the system block's mark covers both.
    if let Some(system) = &conversation.system {
        body["system"] =
            json!([{ "type": "text", "text": system, "cache_control": cache_control() }]);
    }
    if let Some(t) = request.options.temperature {
        body["temperature"] = json!(t);
    }
    if let Some(p) = request.options.top_p {
        body["top_p"] = json!(p);
    }
    if !request.options.stop.is_empty() {
        body["stop_sequences"] = json!(request.options.stop);
    }
    // A prompted model reads its tools in the system prompt.
    if !request.tools.is_empty() && request.tool_calling == braid_protocol::ToolCalling::Native {
        let mut tools = tool_definitions(&request.tools);
        if let Some(Value::Object(last)) = tools.as_array_mut().and_then(|t| t.last_mut()) {
            last.insert("cache_control".to_owned(), cache_control());
        }
        body["tools"] = tools;
    }
    if stream {
        body["stream"] = json!(true);
    }
    body
}

/// Tool definitions in Anthropic's format (`input_schema`).
pub fn tool_definitions(tools: &[ToolDefinition]) -> Value {
    tools
        .iter()
        .map(|tool| {
            json!({
                "name": tool.name,
                "description": tool.description,
                "input_schema": tool.parameters,
            })
        })
        .collect()
}

fn user_block(part: &UserPart) -> Value {
    match part {
        UserPart::Text(text) => json!({ "type": "text", "text": text }),
        UserPart::Image(ImageRef::Url(url)) => match parse_data_url(url) {
            // Anthropic takes inline images only as base64 blocks, not as `data:` URLs.
            Some((media_type, data)) => json!({
                "type": "image",
                "source": { "type": "base64", "media_type": media_type, "data": data },
            }),
            None => json!({ "type": "image", "source": { "type": "url", "url": url } }),
        },
        UserPart::Image(ImageRef::Base64 { media_type, data }) => json!({
            "type": "image",
            "source": { "type": "base64", "media_type": media_type, "data": data },
        }),
    }
}

/// Splits `data:image/png;base64,AAAA` into its MIME type and data.
fn parse_data_url(url: &str) -> Option<(&str, &str)> {
    let rest = url.strip_prefix("data:")?;
    let (meta, data) = rest.split_once(',')?;
    let media_type = meta.strip_suffix(";base64")?;
    Some((media_type, data))
}
