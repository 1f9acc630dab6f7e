//! Turning a Braid history into the conversation a provider accepts, before either adapter
//! renders it in its own JSON.
//!
//! The rules (DESIGN.md, "The message model"; seed 000):
//! - `system_control`, `processing` and unknown kinds are never sent; reasoning parts neither.
//! - The assistant messages of one model turn (same `metadata.turn_id`: its text, tool calls,
//!   MCP tool calls, plan or question) become one assistant message, where the turn began.
//! - Each call is followed by its result, linked by call id, whatever order they were stored in.
//!   A call without a result gets a synthetic "not executed" error result; a result without a
//!   call is dropped. Providers reject a history that breaks either rule.
//! - File references are sent as their content with path and line numbers; images as image
//!   parts when the model has vision, otherwise as the recognized text; MCP resources as
//!   system-provided context naming server and URI; plans and questions as the assistant's
//!   structured (JSON) text.
//! - For a model whose tool calls are prompted (written as text), calls go back as the fenced
//!   blocks it writes and each result as user text naming the tool and the call's place in its
//!   answer: the server's chat template may know no tool role ([`crate::prompted`]).

use std::borrow::Cow;
use std::collections::{HashMap, HashSet};

/// The maps a conversation is built with, by call and turn id. Hashed with foldhash, seeded
/// per process: SipHash was a tenth of building a request of 300 messages (profiled), which
/// is done for every request sent and again to count it.
type Hasher = foldhash::fast::RandomState;

use braid_protocol::{
    FileReferenceMessage, FileResolution, ImageMessage, ImageSource, McpOutcome,
    McpResourceMessage, Message, MessageKind, ProjectStructureContent, ProjectStructureMessage,
    RecognitionMethod, ResourceContent, Role, ToolCallId, ToolCalling, ToolOutcome, TurnId,
    WorkflowExecutionMessage,
};

/// How the history is to be rendered for one model.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HistoryOptions {
    /// Whether images are sent as images (the model has vision) or as their recognized text.
    pub images: ImageDelivery,
    /// Whether tool calls and results are sent as the provider's structures or as text.
    pub tool_calls: ToolCalling,
}

/// How images reach the model.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ImageDelivery {
    /// As image parts, for models with vision.
    AsImages,
    /// As the text recognition found in them.
    AsRecognizedText,
}

/// A provider-neutral conversation: a system prompt and alternating turns. It borrows what it
/// can from the history (texts, tool calls, outputs) instead of copying it: every request
/// builds one, and counting a request builds one more.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Conversation<'a> {
    /// The system prompt, including any `system`-role text found in the history.
    pub system: Option<String>,
    /// The turns, oldest first.
    pub turns: Vec<Turn<'a>>,
}

/// One message of the neutral conversation.
#[derive(Clone, Debug, PartialEq)]
pub enum Turn<'a> {
    /// What the person (or the engine on their behalf) supplied: text, images, files, resources.
    User(Vec<UserPart<'a>>),
    /// One model turn: its text and its tool calls.
    Assistant {
        /// The text, possibly empty.
        text: Cow<'a, str>,
        /// The calls, in order.
        calls: Vec<Call<'a>>,
    },
    /// The result of one call, right after the assistant turn that made it.
    ToolResult(CallResult<'a>),
}

/// Part of a user turn.
#[derive(Clone, Debug, PartialEq)]
pub enum UserPart<'a> {
    /// Text.
    Text(Cow<'a, str>),
    /// An image the model looks at.
    Image(ImageRef),
}

/// Where the image's bytes are for the provider.
#[derive(Clone, Debug, PartialEq)]
pub enum ImageRef {
    /// An `http(s)` URL.
    Url(String),
    /// Inline bytes.
    Base64 {
        /// MIME type.
        media_type: String,
        /// Base64 data.
        data: String,
    },
}

/// A tool call as the provider sees it.
#[derive(Clone, Debug, PartialEq)]
pub struct Call<'a> {
    /// The call id.
    pub id: &'a ToolCallId,
    /// The name the model called (for MCP tools, `called_as`).
    pub name: &'a str,
    /// The arguments (an object; a string when the model's arguments were not JSON), as stored.
    pub arguments: &'a serde_json::Value,
}

/// A tool result as the provider sees it.
#[derive(Clone, Debug, PartialEq)]
pub struct CallResult<'a> {
    /// The call it answers.
    pub call_id: &'a ToolCallId,
    /// The tool's name, as the model called it.
    pub tool_name: &'a str,
    /// The content for the model.
    pub content: ResultContent<'a>,
    /// Whether it reports a failure.
    pub is_error: bool,
}

/// What a tool result tells the model: a text, or a tool's output as stored, which becomes
/// text only when it is read ([`ResultContent::text`]). A request's count can take a result's
/// kept count without writing its output out again.
#[derive(Clone, Debug, PartialEq)]
pub enum ResultContent<'a> {
    /// A text made for the model (an error, an MCP result, the not-executed result).
    Text(String),
    /// A built-in tool's output: a string is sent as it is, anything else as its JSON.
    Output(&'a serde_json::Value),
}

impl<'a> ResultContent<'a> {
    /// The text the model gets.
    pub fn text(&self) -> Cow<'_, str> {
        match self {
            Self::Text(text) => Cow::Borrowed(text),
            Self::Output(serde_json::Value::String(text)) => Cow::Borrowed(text),
            Self::Output(other) => Cow::Owned(other.to_string()),
        }
    }
}

/// The one string a user turn of text parts only is sent as (its parts joined by a blank
/// line); `None` when it holds an image. OpenAI's format sends text-only content so (every
/// compatible server accepts a string, not all accept parts), and a request's count counts it
/// so.
pub fn user_text<'p>(parts: &'p [UserPart<'_>]) -> Option<Cow<'p, str>> {
    let texts: Option<Vec<&str>> = parts
        .iter()
        .map(|part| match part {
            UserPart::Text(text) => Some(text.as_ref()),
            UserPart::Image(_) => None,
        })
        .collect();
    Some(match texts?.as_slice() {
        [one] => Cow::Borrowed(*one),
        many => Cow::Owned(many.join("\n\n")),
    })
}

/// The text of the result given to a call that has none in the history.
pub const NOT_EXECUTED: &str =
    "Error: this tool call was not executed (no result was recorded for it).";

/// What a stored message becomes in a request: an entry sent where it is stored, or a call's
/// result, sent right after its call wherever it is stored.
enum Item<'a> {
    InOrder(Entry<'a>),
    Result(CallResult<'a>),
}

impl<'a> Item<'a> {
    /// A user entry of one text part.
    fn user_text(text: impl Into<Cow<'a, str>>) -> Self {
        Self::InOrder(Entry::User(vec![UserPart::Text(text.into())]))
    }
}

/// An item sent where it is stored.
enum Entry<'a> {
    User(Vec<UserPart<'a>>),
    Assistant {
        turn: Option<TurnId>,
        text: Cow<'a, str>,
        calls: Vec<Call<'a>>,
    },
}

/// Which stored message a turn of a conversation is made of, so that counting a request can
/// take the count of a message it already has instead of counting the turn's text again.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TurnOrigin {
    /// The turn is message `n` of the history (its index) and nothing else: its parts, its
    /// text and calls, or its result, rendered as they would be with no other message joined to
    /// them and none of its calls left out.
    Alone(usize),
    /// Anything else: several messages joined into one turn, a call's not-executed result, or
    /// calls and results written as text for a prompted model.
    Joined,
}

/// Builds the neutral conversation from a system prompt and a stored history.
pub fn build_conversation<'a>(
    system_prompt: Option<&str>,
    messages: &'a [Message],
    options: HistoryOptions,
) -> Conversation<'a> {
    build_traced(system_prompt, messages, options).0
}

/// [`build_conversation`], with the origin of each of the conversation's turns, in order.
pub fn build_traced<'a>(
    system_prompt: Option<&str>,
    messages: &'a [Message],
    options: HistoryOptions,
) -> (Conversation<'a>, Vec<TurnOrigin>) {
    let mut system: Vec<String> = system_prompt
        .filter(|s| !s.trim().is_empty())
        .map(str::to_owned)
        .into_iter()
        .collect();
    // Each item is taken out as it is placed, so that its texts move into the turns instead of
    // being copied (this runs for every request, and again to count the request's tokens).
    // Each entry with the index of the message it came from.
    let mut items: Vec<Option<(usize, Entry<'a>)>> = Vec::with_capacity(messages.len());
    // Sized once: the results, and the calls they answer, are a good part of a tool session.
    let stored_results = messages
        .iter()
        .filter(|m| {
            matches!(
                m.kind,
                MessageKind::ToolResult(_) | MessageKind::McpToolResult(_)
            )
        })
        .count();
    let mut results: HashMap<&'a ToolCallId, (usize, CallResult<'a>), Hasher> =
        HashMap::with_capacity_and_hasher(stored_results, Hasher::default());
    for (index, message) in messages.iter().enumerate() {
        // Input still waiting for its pipeline, or whose pipeline failed, is stored but never
        // sent.
        if message.is_held_input() {
            continue;
        }
        match item_of(message, options, &mut system) {
            // A result is sent after its call, wherever it is stored; the first one stored for a
            // call is the one sent.
            Some(Item::Result(r)) => {
                results.entry(r.call_id).or_insert((index, r));
            }
            Some(Item::InOrder(entry)) => items.push(Some((index, entry))),
            None => {}
        }
    }

    // Each item is a turn or joins one, and each call adds its result's.
    let mut turns: Vec<Turn> = Vec::with_capacity(items.len() + results.len());
    let mut origins: Vec<TurnOrigin> = Vec::with_capacity(turns.capacity());
    let mut merged_turns: HashSet<TurnId, Hasher> = HashSet::default();
    let mut placed: HashSet<&'a ToolCallId, Hasher> =
        HashSet::with_capacity_and_hasher(stored_results, Hasher::default());
    // The results of one assistant item, before they follow it: one buffer for every item.
    let mut answered: Vec<(Turn, TurnOrigin)> = Vec::new();
    for position in 0..items.len() {
        let Some((index, item)) = items[position].take() else {
            continue;
        };
        match item {
            Entry::User(parts) => match turns.last_mut() {
                Some(Turn::User(existing)) => {
                    existing.extend(parts);
                    joined(&mut origins);
                }
                _ => {
                    turns.push(Turn::User(parts));
                    origins.push(TurnOrigin::Alone(index));
                }
            },
            Entry::Assistant { turn, text, calls } => {
                let (text, calls, gathered) = match turn {
                    Some(t) => {
                        if !merged_turns.insert(t) {
                            continue;
                        }
                        gather_turn(text, calls, &mut items[position + 1..], t)
                    }
                    None => (text, calls, false),
                };
                let stated = calls.len();
                // Calls already placed (a duplicate id) are not sent twice.
                let calls: Vec<Call> = calls
                    .into_iter()
                    .filter(|c| !placed.contains(c.id))
                    .collect();
                if text.trim().is_empty() && calls.is_empty() {
                    continue;
                }
                let origin = if gathered || calls.len() < stated {
                    TurnOrigin::Joined
                } else {
                    TurnOrigin::Alone(index)
                };
                answered.extend(calls.iter().map(|call| {
                    placed.insert(call.id);
                    let (origin, result) = match results.remove(call.id) {
                        Some((index, result)) => (TurnOrigin::Alone(index), result),
                        None => {
                            tracing::debug!(call_id = %call.id, tool = %call.name, "tool call without a result: a not-executed result is sent");
                            let result = CallResult {
                                call_id: call.id,
                                tool_name: call.name,
                                content: ResultContent::Text(NOT_EXECUTED.to_owned()),
                                is_error: true,
                            };
                            (TurnOrigin::Joined, result)
                        }
                    };
                    let turn = Turn::ToolResult(CallResult {
                        tool_name: call.name,
                        ..result
                    });
                    (turn, origin)
                }));
                match turns.last_mut() {
                    // Consecutive assistant messages outside any turn read as one answer.
                    Some(Turn::Assistant {
                        text: prev_text,
                        calls: prev_calls,
                    }) if prev_calls.is_empty() => {
                        if !text.trim().is_empty() {
                            let answer = prev_text.to_mut();
                            if !answer.is_empty() {
                                answer.push_str("\n\n");
                            }
                            answer.push_str(&text);
                        }
                        prev_calls.extend(calls);
                        joined(&mut origins);
                    }
                    _ => {
                        turns.push(Turn::Assistant { text, calls });
                        origins.push(origin);
                    }
                }
                for (turn, origin) in answered.drain(..) {
                    turns.push(turn);
                    origins.push(origin);
                }
            }
        }
    }
    for (_, r) in results.values() {
        if !placed.contains(r.call_id) {
            tracing::debug!(call_id = %r.call_id, "tool result without a call dropped from the request");
        }
    }
    let (turns, origins) = match options.tool_calls {
        ToolCalling::Native => (turns, origins),
        ToolCalling::Prompted => {
            let turns = calls_as_text(turns);
            let origins = vec![TurnOrigin::Joined; turns.len()];
            (turns, origins)
        }
    };
    let conversation = Conversation {
        system: (!system.is_empty()).then(|| system.join("\n\n")),
        turns,
    };
    (conversation, origins)
}

/// Marks the last turn as made of more than one message.
fn joined(origins: &mut [TurnOrigin]) {
    if let Some(last) = origins.last_mut() {
        *last = TurnOrigin::Joined;
    }
}

/// The turns with every call written into its assistant text as the block the model writes,
/// and every result as user text (the results of one answer in one user turn).
fn calls_as_text(turns: Vec<Turn<'_>>) -> Vec<Turn<'_>> {
    let mut out: Vec<Turn> = Vec::with_capacity(turns.len());
    let mut positions: HashMap<&ToolCallId, usize, Hasher> = HashMap::default();
    for turn in turns {
        match turn {
            Turn::Assistant { text, calls } => {
                positions.clear();
                let mut pieces: Vec<Cow<'_, str>> = Vec::new();
                if !text.trim().is_empty() {
                    pieces.push(text);
                }
                for (i, call) in calls.iter().enumerate() {
                    positions.insert(call.id, i + 1);
                    pieces.push(crate::prompted::call_block(call.name, call.arguments).into());
                }
                let text = pieces.join("\n\n");
                match out.last_mut() {
                    Some(Turn::Assistant { text: previous, .. }) => {
                        let previous = previous.to_mut();
                        previous.push_str("\n\n");
                        previous.push_str(&text);
                    }
                    _ => out.push(Turn::Assistant {
                        text: text.into(),
                        calls: Vec::new(),
                    }),
                }
            }
            Turn::ToolResult(result) => {
                let position = positions.get(result.call_id).copied().unwrap_or(1);
                let text = crate::prompted::result_text(
                    result.tool_name,
                    position,
                    &result.content.text(),
                );
                match out.last_mut() {
                    Some(Turn::User(parts)) => parts.push(UserPart::Text(text.into())),
                    _ => out.push(Turn::User(vec![UserPart::Text(text.into())])),
                }
            }
            Turn::User(parts) => match out.last_mut() {
                Some(Turn::User(existing)) => existing.extend(parts),
                _ => out.push(Turn::User(parts)),
            },
        }
    }
    out
}

/// The assistant item of turn `turn` (`text`, `calls`) with every later one of that turn in
/// `later`, taken out of it: texts joined, calls in order, and whether any was found.
fn gather_turn<'a>(
    text: Cow<'a, str>,
    calls: Vec<Call<'a>>,
    later: &mut [Option<(usize, Entry<'a>)>],
    turn: TurnId,
) -> (Cow<'a, str>, Vec<Call<'a>>, bool) {
    let mut texts = Vec::new();
    if !text.trim().is_empty() {
        texts.push(text);
    }
    let mut calls = calls;
    let mut gathered = false;
    for slot in later {
        if matches!(slot, Some((_, Entry::Assistant { turn: Some(t), .. })) if *t == turn)
            && let Some((_, Entry::Assistant { text, calls: c, .. })) = slot.take()
        {
            if !text.trim().is_empty() {
                texts.push(text);
            }
            calls.extend(c);
            gathered = true;
        }
    }
    let text = match texts.len() {
        0 => Cow::Borrowed(""),
        1 => texts.swap_remove(0),
        _ => Cow::Owned(texts.join("\n\n")),
    };
    (text, calls, gathered)
}

fn item_of<'a>(
    message: &'a Message,
    options: HistoryOptions,
    system: &mut Vec<String>,
) -> Option<Item<'a>> {
    let assistant = |text: Cow<'a, str>, calls: Vec<Call<'a>>| {
        Item::InOrder(Entry::Assistant {
            turn: message.turn_id(),
            text,
            calls,
        })
    };
    let side = |text: String| match message.role {
        Role::Assistant => assistant(text.into(), Vec::new()),
        _ => Item::user_text(text),
    };
    match &message.kind {
        MessageKind::Text(t) => {
            let text = t.visible_text();
            if text.trim().is_empty() {
                return None;
            }
            match message.role {
                Role::System => {
                    system.push(text.into_owned());
                    None
                }
                Role::Assistant => Some(assistant(text, Vec::new())),
                Role::User | Role::Tool => Some(Item::user_text(text)),
            }
        }
        MessageKind::Image(image) => Some(Item::InOrder(Entry::User(image_parts(image, options)))),
        MessageKind::FileReference(file) => Some(Item::user_text(file_text(file))),
        MessageKind::ProjectStructure(structure) => Some(side(structure_text(structure))),
        MessageKind::ToolRequest(request) => Some(assistant(
            Cow::Borrowed(""),
            request
                .calls
                .iter()
                .map(|c| Call {
                    id: &c.id,
                    name: &c.name,
                    arguments: &c.arguments,
                })
                .collect(),
        )),
        MessageKind::McpToolRequest(request) => Some(assistant(
            Cow::Borrowed(""),
            vec![Call {
                id: &request.request_id,
                name: &request.called_as,
                arguments: &request.arguments,
            }],
        )),
        MessageKind::ToolResult(result) => Some(Item::Result(CallResult {
            call_id: &result.call_id,
            tool_name: &result.tool_name,
            content: match &result.outcome {
                ToolOutcome::Success { output } => ResultContent::Output(output),
                ToolOutcome::Error { error } => {
                    ResultContent::Text(error_text(&error.message, error.code.as_deref()))
                }
            },
            is_error: !result.outcome.is_success(),
        })),
        MessageKind::McpToolResult(result) => {
            let (content, is_error) = match &result.outcome {
                McpOutcome::Success { result } => (mcp_result_text(result), false),
                McpOutcome::Error { error, result } => {
                    let mut text = error_text(&error.message, error.code.as_deref());
                    if !result.is_null() {
                        let extra = mcp_result_text(result);
                        if !extra.is_empty() {
                            text.push('\n');
                            text.push_str(&extra);
                        }
                    }
                    (text, true)
                }
            };
            Some(Item::Result(CallResult {
                call_id: &result.request_id,
                tool_name: &result.tool_name,
                content: ResultContent::Text(content),
                is_error,
            }))
        }
        MessageKind::McpResource(resource) => Some(Item::user_text(resource_text(resource))),
        MessageKind::WorkflowExecution(workflow) => Some(side(workflow_text(workflow))),
        MessageKind::Plan(plan) => Some(assistant(tagged_json("plan", plan).into(), Vec::new())),
        MessageKind::Question(question) => {
            let mut value = serde_json::to_value(question).unwrap_or_default();
            // The answer reaches the model as the person's own message, not inside the question.
            if let Some(object) = value.as_object_mut() {
                object.remove("answer");
            }
            Some(assistant(
                tagged_json("question", &value).into(),
                Vec::new(),
            ))
        }
        MessageKind::SystemControl(_) | MessageKind::Processing(_) | MessageKind::Unknown(_) => {
            None
        }
    }
}

fn tagged_json(kind: &str, value: &impl serde::Serialize) -> String {
    let mut object = serde_json::Map::new();
    object.insert(
        "type".to_owned(),
        serde_json::Value::String(kind.to_owned()),
    );
    if let Ok(serde_json::Value::Object(fields)) = serde_json::to_value(value) {
        object.extend(fields);
    }
    serde_json::Value::Object(object).to_string()
}

fn value_text(value: &serde_json::Value) -> String {
    match value {
        serde_json::Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

fn error_text(message: &str, code: Option<&str>) -> String {
    match code {
        Some(code) => format!("Error ({code}): {message}"),
        None => format!("Error: {message}"),
    }
}

/// An MCP result's content blocks as text: text blocks as they are, others as JSON.
fn mcp_result_text(result: &serde_json::Value) -> String {
    match result.get("content").and_then(|c| c.as_array()) {
        Some(blocks) if !blocks.is_empty() => blocks
            .iter()
            .map(|block| match (block.get("type"), block.get("text")) {
                (Some(t), Some(serde_json::Value::String(text))) if t == "text" => text.clone(),
                _ => block.to_string(),
            })
            .collect::<Vec<_>>()
            .join("\n"),
        _ => match result.get("structuredContent") {
            Some(structured) => structured.to_string(),
            None => value_text(result),
        },
    }
}

fn image_parts(image: &ImageMessage, options: HistoryOptions) -> Vec<UserPart<'static>> {
    let mut parts = Vec::new();
    if let Some(caption) = image.caption.as_ref().filter(|c| !c.trim().is_empty()) {
        parts.push(UserPart::Text(caption.clone().into()));
    }
    // What recognition chose wins: an image read by OCR goes as its text even to a vision
    // model. Without a recognition (older histories) the model's capability decides.
    let wants_image = match image.recognition.as_ref().map(|r| r.method) {
        Some(RecognitionMethod::Ocr) => false,
        Some(RecognitionMethod::Vision) | None => options.images == ImageDelivery::AsImages,
    };
    let sendable = match (&image.prepared, &image.source) {
        (Some(prepared), _) => Some(ImageRef::Base64 {
            media_type: prepared.media_type.clone(),
            data: prepared.data.clone(),
        }),
        (None, ImageSource::Url { url }) => Some(ImageRef::Url(url.clone())),
        (None, ImageSource::Base64 { media_type, data }) => Some(ImageRef::Base64 {
            media_type: media_type.clone(),
            data: data.clone(),
        }),
        // The engine loads workspace files into `prepared` before a request; a path alone
        // cannot be sent.
        (None, ImageSource::FilePath { .. }) => None,
    };
    match sendable.filter(|_| wants_image) {
        Some(image_ref) => parts.push(UserPart::Image(image_ref)),
        None => parts.push(UserPart::Text(recognized_text(image).into())),
    }
    parts
}

/// An image as text: what OCR read in it (marked as read from an image), or why there is none.
fn recognized_text(image: &ImageMessage) -> String {
    let name = match &image.source {
        ImageSource::FilePath { path } => format!("Image {path}"),
        _ => "Image".to_owned(),
    };
    match (&image.recognition, &image.error) {
        (Some(r), _) => {
            let mut lines = Vec::new();
            let header = match (r.method, r.confidence) {
                (RecognitionMethod::Ocr, Some(c)) => {
                    format!("[{name}: text read from the image by OCR, confidence {c:.0}%]")
                }
                (RecognitionMethod::Ocr, None) => {
                    format!("[{name}: text read from the image by OCR]")
                }
                (RecognitionMethod::Vision, _) => {
                    format!("[{name}: meant for vision, but this model cannot see images]")
                }
            };
            lines.push(header);
            if let Some(description) = r.vision_analysis.as_ref().filter(|d| !d.is_empty()) {
                lines.push(format!("Description: {description}"));
            }
            match r.recognized_text.as_ref().filter(|t| !t.trim().is_empty()) {
                Some(text) if r.method == RecognitionMethod::Ocr => {
                    lines.push(text.trim_end().to_owned())
                }
                Some(text) => lines.push(format!("Text found in the image:\n{}", text.trim_end())),
                None if r.method == RecognitionMethod::Ocr => {
                    lines.push("No text was found in the image.".to_owned())
                }
                None => {}
            }
            lines.join("\n")
        }
        (None, Some(error)) => format!("[{name}] The image could not be read: {}", error.message),
        (None, None) => format!("[{name}] The image has not been recognized yet."),
    }
}

fn file_text(file: &FileReferenceMessage) -> String {
    match &file.resolution {
        FileResolution::Resolved {
            content,
            total_lines,
            ..
        } => {
            let lines = match &file.range {
                Some(r) => format!("lines {}-{} of {total_lines}", r.start_line, r.end_line),
                None => format!("{total_lines} lines"),
            };
            format!(
                "File: {} ({lines})\n```\n{}\n```",
                file.path,
                content.trim_end()
            )
        }
        FileResolution::Failed { error } => {
            format!("File: {} could not be read: {error}", file.path)
        }
        FileResolution::Pending => format!("File: {} (not read yet)", file.path),
    }
}

fn resource_text(resource: &McpResourceMessage) -> String {
    let mut header = format!(
        "[System-provided context: resource {} from MCP server `{}`",
        resource.resource_uri, resource.server_name
    );
    if let Some(name) = &resource.name {
        header.push_str(&format!(", \"{name}\""));
    }
    if let Some(mime) = &resource.mime_type {
        header.push_str(&format!(", {mime}"));
    }
    header.push(']');
    let body = match &resource.content {
        ResourceContent::Text { text } => text.clone(),
        ResourceContent::Binary {
            size_bytes,
            summary,
        } => format!("(binary content, {size_bytes} bytes) {summary}"),
    };
    format!("{header}\n{body}")
}

fn workflow_text(workflow: &WorkflowExecutionMessage) -> String {
    let status = serde_json::to_value(workflow.status)
        .ok()
        .and_then(|v| v.as_str().map(str::to_owned))
        .unwrap_or_default();
    let mut text = format!(
        "[Workflow `{}` ({}): {status}, {} of {} steps done",
        workflow.workflow_name,
        workflow.execution_id,
        workflow.completed_steps,
        workflow.total_steps
    );
    if let Some(step) = &workflow.current_step {
        text.push_str(&format!(", current step `{step}`"));
    }
    text.push(']');
    if let Some(result) = &workflow.result {
        text.push_str(&format!("\nResult: {}", value_text(result)));
    }
    if let Some(error) = &workflow.error {
        text.push_str(&format!("\nError: {}", error.message));
    }
    text
}

fn structure_text(structure: &ProjectStructureMessage) -> String {
    let mut text = format!(
        "[Project structure of {} ({})]\n",
        structure.root_path,
        structure.content.structure_type()
    );
    match &structure.content {
        ProjectStructureContent::Tree(root) => {
            fn walk(node: &braid_protocol::DirectoryNode, depth: usize, out: &mut String) {
                let indent = "  ".repeat(depth);
                out.push_str(&format!("{indent}{}/\n", node.name));
                for dir in &node.directories {
                    walk(dir, depth + 1, out);
                }
                for file in &node.files {
                    let name = file.path.rsplit('/').next().unwrap_or(&file.path);
                    out.push_str(&format!("{indent}  {name} ({} bytes)\n", file.size));
                }
            }
            walk(root, 0, &mut text);
        }
        ProjectStructureContent::FileList(files) => {
            for file in files {
                text.push_str(&format!("{} ({} bytes)\n", file.path, file.size));
            }
        }
        ProjectStructureContent::Dependencies(graph) => {
            text.push_str(&serde_json::to_string(graph).unwrap_or_default());
        }
    }
    if !structure.excluded_patterns.is_empty() {
        text.push_str(&format!(
            "Excluded: {}\n",
            structure.excluded_patterns.join(", ")
        ));
    }
    text.trim_end().to_owned()
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use braid_protocol::{
        ImageMessage, ImageSource, MessageKind, RecognitionMode, Role, ToolCall,
        ToolRequestMessage, ToolResultMessage,
    };

    use super::*;

    fn options(images: ImageDelivery) -> HistoryOptions {
        HistoryOptions {
            images,
            tool_calls: ToolCalling::Native,
        }
    }

    #[test]
    fn a_prompted_model_gets_its_calls_as_blocks_and_results_as_user_text() {
        let turn = TurnId::new();
        let mut text = Message::assistant_text("Reading both.");
        text.set_turn_id(turn);
        let mut calls = Message::new(
            Role::Assistant,
            MessageKind::ToolRequest(ToolRequestMessage {
                calls: vec![
                    ToolCall::new("a", "list", serde_json::json!({"path": "."})),
                    ToolCall::new("b", "list", serde_json::json!({"path": "src"})),
                ],
            }),
        );
        calls.set_turn_id(turn);
        let history = vec![
            Message::user_text("go"),
            text,
            calls,
            result("b", "lib.rs"),
            result("a", "src"),
            Message::assistant_text("Both listed."),
            Message::user_text("thanks"),
        ];
        let c = build_conversation(
            None,
            &history,
            HistoryOptions {
                images: ImageDelivery::AsImages,
                tool_calls: ToolCalling::Prompted,
            },
        );
        assert_eq!(c.turns.len(), 5, "{:#?}", c.turns);
        match &c.turns[1] {
            Turn::Assistant { text, calls } => {
                assert!(calls.is_empty());
                assert!(
                    text.starts_with("Reading both.\n\n```tool_call\n"),
                    "{text}"
                );
                let parsed = crate::prompted::parse_answer(text);
                assert_eq!(parsed.calls.len(), 2);
                assert_eq!(
                    parsed.calls[1].arguments.as_ref().unwrap(),
                    &serde_json::json!({"path": "src"})
                );
            }
            other => panic!("{other:?}"),
        }
        match &c.turns[2] {
            Turn::User(parts) => {
                let texts: Vec<&str> = parts
                    .iter()
                    .map(|p| match p {
                        UserPart::Text(t) => t.as_ref(),
                        UserPart::Image(_) => "",
                    })
                    .collect();
                assert_eq!(
                    texts,
                    [
                        "Result of list (call 1):\nsrc",
                        "Result of list (call 2):\nlib.rs"
                    ]
                );
            }
            other => panic!("{other:?}"),
        }
        assert!(matches!(&c.turns[3], Turn::Assistant { text, .. } if text == "Both listed."));
        assert!(!c.turns.iter().any(|t| matches!(t, Turn::ToolResult(_))));
    }

    fn request(id: &str) -> Message {
        Message::new(
            Role::Assistant,
            MessageKind::ToolRequest(ToolRequestMessage {
                calls: vec![ToolCall::new(id, "list", serde_json::json!({}))],
            }),
        )
    }

    fn result(id: &str, output: &str) -> Message {
        Message::new(
            Role::Tool,
            MessageKind::ToolResult(Box::new(ToolResultMessage {
                call_id: id.into(),
                tool_name: "list".into(),
                outcome: ToolOutcome::Success {
                    output: serde_json::json!(output),
                },
                duration_ms: 1,
                started_at: None,
                completed_at: None,
            })),
        )
    }

    #[test]
    fn each_turn_names_the_message_it_is_alone_or_says_it_is_joined() {
        let call = |id: &str| {
            Message::new(
                Role::Assistant,
                MessageKind::ToolRequest(ToolRequestMessage {
                    calls: vec![ToolCall::new(id, "list", serde_json::json!({"path": "."}))],
                }),
            )
        };
        let history = vec![
            Message::user_text("first"),
            Message::user_text("second"),
            call("a"),
            result("a", "src"),
            call("b"),
            Message::assistant_text("Listed."),
            Message::assistant_text("Both."),
        ];
        let (conversation, origins) =
            build_traced(None, &history, options(ImageDelivery::AsImages));
        assert_eq!(
            conversation,
            build_conversation(None, &history, options(ImageDelivery::AsImages))
        );
        use TurnOrigin::{Alone, Joined};
        // The two texts joined; the call and its result alone; the unanswered call alone, its
        // not-executed result made up; the two answers joined.
        assert_eq!(
            origins,
            vec![Joined, Alone(2), Alone(3), Alone(4), Joined, Joined]
        );
        assert_eq!(origins.len(), conversation.turns.len());

        let prompted = HistoryOptions {
            images: ImageDelivery::AsImages,
            tool_calls: ToolCalling::Prompted,
        };
        let (conversation, origins) = build_traced(None, &history, prompted);
        assert_eq!(origins, vec![Joined; conversation.turns.len()]);
    }

    #[test]
    fn pending_and_failed_user_input_is_left_out_of_the_request() {
        use braid_protocol::MessageStatus;
        let history = vec![
            Message::user_text("kept"),
            Message::user_text("failed").with_status(MessageStatus::Failed),
            Message::user_text("waiting").with_status(MessageStatus::Pending),
            Message::assistant_text("partial").with_status(MessageStatus::Incomplete),
        ];
        let c = build_conversation(None, &history, options(ImageDelivery::AsImages));
        assert_eq!(c.turns.len(), 2);
        assert!(
            matches!(&c.turns[0], Turn::User(parts) if parts.len() == 1 && matches!(&parts[0], UserPart::Text(t) if t == "kept"))
        );
        assert!(matches!(&c.turns[1], Turn::Assistant { text, .. } if text == "partial"));
    }

    #[test]
    fn a_result_stored_before_its_request_is_moved_after_it() {
        let history = vec![
            Message::user_text("go"),
            result("c1", "done"),
            request("c1"),
        ];
        let c = build_conversation(None, &history, options(ImageDelivery::AsImages));
        assert_eq!(c.turns.len(), 3);
        assert!(
            matches!(&c.turns[1], Turn::Assistant { calls, .. } if calls[0].id.as_str() == "c1")
        );
        assert!(
            matches!(&c.turns[2], Turn::ToolResult(r) if r.content.text() == "done" && !r.is_error)
        );
    }

    #[test]
    fn a_call_without_result_gets_a_not_executed_error_and_orphans_vanish() {
        let history = vec![
            Message::user_text("go"),
            request("c1"),
            result("zz", "stale"),
        ];
        let c = build_conversation(Some("sys"), &history, options(ImageDelivery::AsImages));
        assert_eq!(c.system.as_deref(), Some("sys"));
        assert_eq!(c.turns.len(), 3);
        match &c.turns[2] {
            Turn::ToolResult(r) => {
                assert_eq!(r.call_id.as_str(), "c1");
                assert!(r.is_error);
                assert_eq!(r.content.text(), NOT_EXECUTED);
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn calls_of_one_turn_merge_with_its_text_even_when_results_come_between() {
        let turn = TurnId::new();
        let mut text = Message::assistant_text("Checking both.");
        text.set_turn_id(turn);
        let mut first = request("a");
        first.set_turn_id(turn);
        let mut second = request("b");
        second.set_turn_id(turn);
        let history = vec![
            Message::user_text("go"),
            text,
            first,
            result("a", "1"),
            second,
            result("b", "2"),
        ];
        let c = build_conversation(None, &history, options(ImageDelivery::AsImages));
        assert_eq!(c.turns.len(), 4, "{:#?}", c.turns);
        match &c.turns[1] {
            Turn::Assistant { text, calls } => {
                assert_eq!(text, "Checking both.");
                assert_eq!(calls.len(), 2);
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn images_from_a_path_or_for_a_text_model_go_as_recognized_text() {
        let image = |source| {
            Message::new(
                Role::User,
                MessageKind::Image(Box::new(ImageMessage {
                    source,
                    recognition_mode: RecognitionMode::Auto,
                    caption: None,
                    recognition: None,
                    error: None,
                    prepared: None,
                })),
            )
        };
        let by_path = image(ImageSource::FilePath {
            path: "shot.png".into(),
        });
        let history = [by_path];
        let c = build_conversation(None, &history, options(ImageDelivery::AsImages));
        let Turn::User(parts) = &c.turns[0] else {
            panic!()
        };
        assert!(
            matches!(&parts[0], UserPart::Text(t) if t.contains("shot.png") && t.contains("not been recognized"))
        );

        let by_url = image(ImageSource::Url {
            url: "https://example.invalid/a.png".into(),
        });
        let c = build_conversation(
            None,
            std::slice::from_ref(&by_url),
            options(ImageDelivery::AsImages),
        );
        let Turn::User(parts) = &c.turns[0] else {
            panic!()
        };
        assert!(matches!(&parts[0], UserPart::Image(ImageRef::Url(_))));
        let history = [by_url];
        let c = build_conversation(None, &history, options(ImageDelivery::AsRecognizedText));
        let Turn::User(parts) = &c.turns[0] else {
            panic!()
        };
        assert!(matches!(&parts[0], UserPart::Text(_)));
    }

    #[test]
    fn an_image_read_by_ocr_goes_as_marked_text_even_to_a_vision_model() {
        let mut image = ImageMessage::new(
            ImageSource::Base64 {
                media_type: "image/png".into(),
                data: "iVBORw0KGgo=".into(),
            },
            RecognitionMode::Auto,
        );
        image.recognition = Some(braid_protocol::RecognitionResult {
            method: RecognitionMethod::Ocr,
            vision_analysis: None,
            recognized_text: Some("TOTAL 42".into()),
            confidence: Some(88.0),
            language: Some("eng".into()),
            notice: None,
            recognized_at: chrono::Utc::now(),
        });
        let message = Message::new(Role::User, MessageKind::Image(Box::new(image.clone())));
        let history = [message];
        let c = build_conversation(None, &history, options(ImageDelivery::AsImages));
        let Turn::User(parts) = &c.turns[0] else {
            panic!()
        };
        assert!(
            matches!(&parts[0], UserPart::Text(t) if t == "[Image: text read from the image by OCR, confidence 88%]\nTOTAL 42"),
            "{parts:?}"
        );

        // Prepared bytes (a loaded file, a sized-down image) win over the source for vision.
        image.recognition.as_mut().unwrap().method = RecognitionMethod::Vision;
        image.prepared = Some(braid_protocol::PreparedImage {
            media_type: "image/jpeg".into(),
            data: "/9j/".into(),
            width: 10,
            height: 10,
            resized: true,
        });
        let message = Message::new(Role::User, MessageKind::Image(Box::new(image)));
        let history = [message];
        let c = build_conversation(None, &history, options(ImageDelivery::AsImages));
        let Turn::User(parts) = &c.turns[0] else {
            panic!()
        };
        assert!(
            matches!(&parts[0], UserPart::Image(ImageRef::Base64 { media_type, .. }) if media_type == "image/jpeg")
        );
    }

    #[test]
    fn system_role_text_joins_the_system_prompt() {
        let system = Message::new(
            Role::System,
            MessageKind::Text(braid_protocol::TextMessage::plain("Be terse.")),
        );
        let history = [system, Message::user_text("hi")];
        let c = build_conversation(
            Some("Base prompt."),
            &history,
            options(ImageDelivery::AsImages),
        );
        assert_eq!(c.system.as_deref(), Some("Base prompt.\n\nBe terse."));
        assert_eq!(c.turns.len(), 1);
    }
}
