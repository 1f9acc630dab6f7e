//! Rendering a request as an OpenAI chat-completions body.

use std::borrow::Cow;

use serde::Serialize;
use serde_json::Value;
use serde_json::value::RawValue;

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

/// A chat-completions body, borrowing what it renders from the request and its conversation.
/// It is serialized straight to the wire. A JSON tree built first copied every tool's schema for
/// each turn; building, writing and freeing it took about 6% of a busy server's CPU.
#[derive(Debug, Serialize)]
pub struct ChatBody<'a> {
    model: &'a str,
    messages: Vec<ChatMessage<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    max_tokens: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    max_completion_tokens: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    temperature: Option<f32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    top_p: Option<f32>,
    #[serde(skip_serializing_if = "<[String]>::is_empty")]
    stop: &'a [String],
    #[serde(skip_serializing_if = "OfferedTools::is_empty")]
    tools: OfferedTools<'a>,
    #[serde(skip_serializing_if = "Option::is_none")]
    stream: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    stream_options: Option<StreamOptions>,
}

impl<'a> ChatBody<'a> {
    /// Whether the body offers the model tools.
    pub fn offers_tools(&self) -> bool {
        !self.tools.is_empty()
    }

    /// The same body with its tools sent as `encoded`, their definitions encoded before (the
    /// same JSON text [`tool_definitions`] serializes to). A body that offers no tools stays
    /// without them.
    pub fn with_encoded_tools(mut self, encoded: &'a RawValue) -> Self {
        if self.offers_tools() {
            self.tools = OfferedTools::Encoded(encoded);
        }
        self
    }
}

/// `tools` as a body sends them.
#[derive(Debug, Serialize)]
#[serde(untagged)]
enum OfferedTools<'a> {
    /// Serialized with the body.
    Definitions(Vec<FunctionTool<'a>>),
    /// Encoded before, once for every request that offers the same set.
    Encoded(&'a RawValue),
}

impl OfferedTools<'_> {
    fn is_empty(&self) -> bool {
        match self {
            Self::Definitions(tools) => tools.is_empty(),
            Self::Encoded(_) => false,
        }
    }
}

/// One entry of `messages`, tagged by its `role`.
#[derive(Debug, Serialize)]
#[serde(tag = "role", rename_all = "lowercase")]
enum ChatMessage<'a> {
    System {
        content: &'a str,
    },
    User {
        content: UserContent<'a>,
    },
    Assistant {
        /// `null` when the turn only calls tools.
        content: Option<&'a str>,
        #[serde(skip_serializing_if = "Vec::is_empty")]
        tool_calls: Vec<ChatToolCall<'a>>,
    },
    Tool {
        tool_call_id: &'a str,
        content: Cow<'a, str>,
    },
}

/// A user message's content: one string, or parts when it holds an image.
#[derive(Debug, Serialize)]
#[serde(untagged)]
enum UserContent<'a> {
    Text(Cow<'a, str>),
    Parts(Vec<ContentPart<'a>>),
}

/// One part of a user message's content.
#[derive(Debug, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
enum ContentPart<'a> {
    Text { text: &'a str },
    ImageUrl { image_url: ImageUrl<'a> },
}

#[derive(Debug, Serialize)]
struct ImageUrl<'a> {
    url: Cow<'a, str>,
}

/// A call the assistant made, as the history replays it.
#[derive(Debug, Serialize)]
struct ChatToolCall<'a> {
    id: &'a str,
    #[serde(rename = "type")]
    kind: FunctionKind,
    function: CalledFunction<'a>,
}

#[derive(Debug, Serialize)]
struct CalledFunction<'a> {
    name: &'a str,
    /// The arguments as JSON text.
    arguments: Cow<'a, str>,
}

/// The only kind of tool the API has: `"function"`.
#[derive(Clone, Copy, Debug, Serialize)]
#[serde(rename_all = "lowercase")]
enum FunctionKind {
    Function,
}

/// A tool definition in OpenAI's `function` format.
#[derive(Debug, Serialize)]
pub struct FunctionTool<'a> {
    #[serde(rename = "type")]
    kind: FunctionKind,
    /// Serialized as it is: `name`, `description` and `parameters` are OpenAI's function object.
    function: &'a ToolDefinition,
}

#[derive(Debug, Serialize)]
struct StreamOptions {
    include_usage: bool,
}

/// The chat-completions body for `request`, whose history has become `conversation`.
pub fn build_body<'a>(
    request: &'a LlmRequest,
    conversation: &'a Conversation<'_>,
    delivery: Delivery,
) -> ChatBody<'a> {
    let system = conversation
        .system
        .as_deref()
        .map(|content| ChatMessage::System { content });
    let messages = system
        .into_iter()
        .chain(conversation.turns.iter().map(|turn| {
            match turn {
                Turn::User(parts) => ChatMessage::User {
                    content: user_content(parts),
                },
                Turn::Assistant { text, calls } => ChatMessage::Assistant {
                    content: Some(text.as_ref()).filter(|text: &&str| !text.is_empty()),
                    tool_calls: calls
                        .iter()
                        .map(|call| ChatToolCall {
                            id: call.id.as_str(),
                            kind: FunctionKind::Function,
                            function: CalledFunction {
                                name: call.name,
                                // Arguments the model sent as broken JSON are replayed as sent.
                                arguments: match call.arguments {
                                    Value::String(raw) => Cow::Borrowed(raw.as_str()),
                                    other => Cow::Owned(other.to_string()),
                                },
                            },
                        })
                        .collect(),
                },
                Turn::ToolResult(result) => ChatMessage::Tool {
                    tool_call_id: result.call_id.as_str(),
                    content: result.content.text(),
                },
            }
        }))
        .collect();

    let reasoning_model = is_reasoning_model(&request.model);
    let max = request.options.max_tokens;
    // o-series and gpt-5 refuse `max_tokens`.
    let (max_tokens, max_completion_tokens) = if reasoning_model {
        (None, max)
    } else {
        (max, None)
    };
    let streamed = delivery == Delivery::Streamed;
    ChatBody {
        model: &request.model,
        messages,
        max_tokens,
        max_completion_tokens,
        temperature: request.options.temperature.filter(|_| !reasoning_model),
        top_p: request.options.top_p.filter(|_| !reasoning_model),
        stop: &request.options.stop,
        // A prompted model reads its tools in the system prompt.
        tools: OfferedTools::Definitions(
            if request.tool_calling == braid_protocol::ToolCalling::Native {
                tool_definitions(&request.tools)
            } else {
                Vec::new()
            },
        ),
        stream: streamed.then_some(true),
        stream_options: streamed.then_some(StreamOptions {
            include_usage: true,
        }),
    }
}

/// Tool definitions in OpenAI's `function` format.
pub fn tool_definitions(tools: &[ToolDefinition]) -> Vec<FunctionTool<'_>> {
    tools
        .iter()
        .map(|tool| FunctionTool {
            kind: FunctionKind::Function,
            function: tool,
        })
        .collect()
}

/// Text-only content is one string ([`crate::history::user_text`]); content with an image
/// becomes an array of parts.
fn user_content<'a>(parts: &'a [UserPart<'_>]) -> UserContent<'a> {
    if let Some(text) = crate::history::user_text(parts) {
        return UserContent::Text(text);
    }
    UserContent::Parts(
        parts
            .iter()
            .map(|part| match part {
                UserPart::Text(text) => ContentPart::Text { text },
                UserPart::Image(ImageRef::Url(url)) => ContentPart::ImageUrl {
                    image_url: ImageUrl {
                        url: Cow::Borrowed(url),
                    },
                },
                UserPart::Image(ImageRef::Base64 { media_type, data }) => ContentPart::ImageUrl {
                    image_url: ImageUrl {
                        url: Cow::Owned(format!("data:{media_type};base64,{data}")),
                    },
                },
            })
            .collect(),
    )
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
