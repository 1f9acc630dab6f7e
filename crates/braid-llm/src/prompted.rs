//! Tool calls written as text, for models without tool calling of their own
//! ([`ToolCalling::Prompted`](braid_protocol::ToolCalling)): the system prompt lists the tools
//! and asks for one fenced block per call,
//!
//! ````text
//! ```tool_call
//! {"name": "read_file", "arguments": {"path": "src/lib.rs"}}
//! ```
//! ````
//!
//! and the finished answer is read here: its calls (the block above, or the same JSON between
//! `<tool_call>` and `</tool_call>`, as Hermes- and Qwen-style models write it) and the text
//! around them. A block that cannot be used (not JSON, no name, arguments that are not an
//! object, not closed) is still a call: one whose arguments are an error, so the engine gives
//! the model an error result it can read and the loop goes on. The history is sent back the
//! same way: calls as these blocks, results as user text ([`call_block`], [`result_text`]).

use braid_protocol::ToolCallId;
use serde_json::Value;

use crate::event::{CompletedToolCall, ToolArgumentsError};

/// The info string of a call's fenced block, and the XML tag of the other spelling.
pub const CALL_FENCE: &str = "tool_call";

/// The most calls read from one answer; blocks beyond it are not run (the model is told).
pub const MAX_CALLS_PER_ANSWER: usize = 16;

/// The largest block read as a call, in bytes; a bigger one gets an error result.
pub const MAX_CALL_BYTES: usize = 64 * 1024;

/// How much of an answer is searched for calls, in bytes; text beyond it stays text.
pub const MAX_SCANNED_BYTES: usize = 1024 * 1024;

/// The most bytes of a malformed block kept (in the call's error) for the person to see.
const MAX_RAW_EXCERPT_BYTES: usize = 4 * 1024;

const FENCE_OPEN: &str = "```tool_call";
const FENCE_CLOSE: &str = "```";
const TAG_OPEN: &str = "<tool_call>";
const TAG_CLOSE: &str = "</tool_call>";

/// A finished answer of a prompted model, its calls taken out of its text.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PromptedAnswer {
    /// The text around the calls, trimmed (empty when the answer was only calls).
    pub text: String,
    /// The calls in the order written; malformed ones carry the reason as their arguments'
    /// error.
    pub calls: Vec<CompletedToolCall>,
}

/// Reads the calls out of a prompted model's answer.
pub fn parse_answer(answer: &str) -> PromptedAnswer {
    let scanned_len = floor_char_boundary(answer, MAX_SCANNED_BYTES);
    let (scanned, unscanned) = answer.split_at(scanned_len);
    let mut text = String::new();
    let mut calls = Vec::new();
    let mut beyond_limit = 0usize;
    let mut rest = scanned;
    while let Some((at, open, close)) = next_opening(rest) {
        text.push_str(&rest[..at]);
        let body_and_more = &rest[at + open.len()..];
        let (body, consumed, closed) = block_body(body_and_more, close);
        rest = &body_and_more[consumed..];
        if calls.len() >= MAX_CALLS_PER_ANSWER {
            beyond_limit += 1;
            continue;
        }
        let id = new_call_id();
        calls.push(if closed {
            read_call(id, body)
        } else {
            malformed(
                id,
                name_in(body),
                format!(
                    "the `{CALL_FENCE}` block is not closed (it needs `{close}` after the JSON)"
                ),
                body,
            )
        });
    }
    text.push_str(rest);
    text.push_str(unscanned);
    if beyond_limit > 0 {
        calls.push(malformed(
            new_call_id(),
            None,
            format!(
                "{beyond_limit} more `{CALL_FENCE}` block(s) than the {MAX_CALLS_PER_ANSWER} one answer may hold were not run; make those calls in your next answer"
            ),
            "",
        ));
    }
    PromptedAnswer {
        text: tidy(&text),
        calls,
    }
}

/// A call as the model is asked to write it (and as the history shows its earlier calls).
pub fn call_block(name: &str, arguments: &Value) -> String {
    // Written by hand so `name` comes first whatever serde_json's map order.
    let name = Value::String(name.to_owned());
    format!("{FENCE_OPEN}\n{{\"name\": {name}, \"arguments\": {arguments}}}\n{FENCE_CLOSE}")
}

/// A tool result as the prompted model reads it: a user message naming the tool and the call's
/// position in the answer that made it (1 for the first).
pub fn result_text(tool: &str, position: usize, content: &str) -> String {
    format!("Result of {tool} (call {position}):\n{content}")
}

/// The next call opening in `text`: its byte offset, the opening and the closing it needs.
fn next_opening(text: &str) -> Option<(usize, &'static str, &'static str)> {
    let mut from = 0;
    let fence = loop {
        match text[from..].find(FENCE_OPEN) {
            // "```tool_calls" or "```tool_call_x" is some other block.
            Some(i)
                if text[from + i + FENCE_OPEN.len()..]
                    .chars()
                    .next()
                    .is_some_and(|c| c.is_alphanumeric() || c == '_' || c == '-') =>
            {
                from += i + FENCE_OPEN.len();
            }
            Some(i) => break Some(from + i),
            None => break None,
        }
    };
    let tag = text.find(TAG_OPEN);
    match (fence, tag) {
        (Some(f), Some(t)) if t < f => Some((t, TAG_OPEN, TAG_CLOSE)),
        (Some(f), _) => Some((f, FENCE_OPEN, FENCE_CLOSE)),
        (None, Some(t)) => Some((t, TAG_OPEN, TAG_CLOSE)),
        (None, None) => None,
    }
}

/// The body of a block whose opening `text` follows: how many bytes it takes with its closing,
/// and whether it was closed. The JSON value inside decides where the body ends, so a closing
/// marker inside one of its strings (a Markdown file's code fence) does not end the block; a
/// body that is not one JSON value ends at the first closing marker.
fn block_body<'a>(text: &'a str, close: &str) -> (&'a str, usize, bool) {
    let lead = text.len() - text.trim_start().len();
    let mut values =
        serde_json::Deserializer::from_str(&text[lead..]).into_iter::<serde::de::IgnoredAny>();
    if let Some(Ok(_)) = values.next() {
        let end = lead + values.byte_offset();
        let after = &text[end..];
        let gap = after.len() - after.trim_start().len();
        if after[gap..].starts_with(close) {
            return (&text[..end], end + gap + close.len(), true);
        }
    }
    match text.find(close) {
        Some(end) => (&text[..end], end + close.len(), true),
        None => (text, text.len(), false),
    }
}

/// One closed block as a call.
fn read_call(id: ToolCallId, body: &str) -> CompletedToolCall {
    if body.len() > MAX_CALL_BYTES {
        return malformed(
            id,
            name_in(body),
            format!("the `{CALL_FENCE}` block is larger than {MAX_CALL_BYTES} bytes"),
            body,
        );
    }
    let value = match serde_json::from_str::<Value>(body.trim()) {
        Ok(value) => value,
        Err(e) => {
            return malformed(
                id,
                name_in(body),
                format!(
                    "the `{CALL_FENCE}` block is not valid JSON ({e}); write {}",
                    r#"{"name": "<tool>", "arguments": {...}}"#
                ),
                body,
            );
        }
    };
    let Value::Object(mut call) = value else {
        return malformed(
            id,
            None,
            format!(
                "the `{CALL_FENCE}` block holds {}, not an object with `name` and `arguments`",
                kind_of(&value)
            ),
            body,
        );
    };
    let name = match call.get("name") {
        Some(Value::String(name)) if !name.trim().is_empty() => name.trim().to_owned(),
        _ => {
            return malformed(
                id,
                None,
                format!("the `{CALL_FENCE}` block has no `name` string naming the tool"),
                body,
            );
        }
    };
    // `parameters` is how some models' training spells it.
    let arguments = call
        .remove("arguments")
        .or_else(|| call.remove("parameters"))
        .unwrap_or_else(|| Value::Object(Default::default()));
    let arguments = match arguments {
        Value::Object(map) => Value::Object(map),
        // Some models write the arguments as a JSON string, as the OpenAI wire format carries them.
        Value::String(s) => match serde_json::from_str::<Value>(&s) {
            Ok(Value::Object(map)) => Value::Object(map),
            _ => {
                return malformed(
                    id,
                    Some(name),
                    "`arguments` is a string, not an object of the tool's arguments".to_owned(),
                    body,
                );
            }
        },
        other => {
            return malformed(
                id,
                Some(name),
                format!(
                    "`arguments` is {}, not an object of the tool's arguments",
                    kind_of(&other)
                ),
                body,
            );
        }
    };
    CompletedToolCall {
        id,
        name,
        arguments: Ok(arguments),
    }
}

/// A call that cannot run: its arguments are the reason, so the model gets it as an error
/// result. Without a readable tool name it is named after the block.
fn malformed(id: ToolCallId, name: Option<String>, reason: String, raw: &str) -> CompletedToolCall {
    let tool = name.unwrap_or_else(|| CALL_FENCE.to_owned());
    CompletedToolCall {
        arguments: Err(ToolArgumentsError {
            call_id: id.clone(),
            tool: tool.clone(),
            reason,
            raw: raw[..floor_char_boundary(raw, MAX_RAW_EXCERPT_BYTES)].to_owned(),
        }),
        id,
        name: tool,
    }
}

/// The tool a broken block meant, when `"name": "<tool>"` can still be read in it.
fn name_in(body: &str) -> Option<String> {
    let after = &body[body.find("\"name\"")? + "\"name\"".len()..];
    let after = after.trim_start().strip_prefix(':')?.trim_start();
    let quoted = after.strip_prefix('"')?;
    let name = &quoted[..quoted.find('"')?];
    let plausible = !name.is_empty()
        && name.len() <= 128
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'));
    plausible.then(|| name.to_owned())
}

fn kind_of(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

fn new_call_id() -> ToolCallId {
    format!("call_{}", uuid::Uuid::now_v7().simple()).into()
}

/// The text with the blocks gone: trimmed, and no more than one blank line where they were.
fn tidy(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut newlines = 0;
    for c in text.trim().chars() {
        if c == '\n' {
            newlines += 1;
            if newlines > 2 {
                continue;
            }
        } else if !c.is_whitespace() {
            newlines = 0;
        }
        out.push(c);
    }
    out
}

/// The largest index not above `limit` that starts a character.
fn floor_char_boundary(s: &str, limit: usize) -> usize {
    if limit >= s.len() {
        return s.len();
    }
    (0..=limit)
        .rev()
        .find(|i| s.is_char_boundary(*i))
        .unwrap_or(0)
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;
    use serde_json::json;

    fn reason(call: &CompletedToolCall) -> &str {
        &call.arguments.as_ref().unwrap_err().reason
    }

    #[test]
    fn a_fenced_call_is_read_and_taken_out_of_the_text() {
        let a = parse_answer(
            "I will read it.\n\n```tool_call\n{\"name\": \"read_file\", \"arguments\": {\"path\": \"src/lib.rs\"}}\n```\n",
        );
        assert_eq!(a.text, "I will read it.");
        assert_eq!(a.calls.len(), 1);
        assert_eq!(a.calls[0].name, "read_file");
        assert_eq!(
            a.calls[0].arguments.as_ref().unwrap(),
            &json!({"path": "src/lib.rs"})
        );
        assert!(a.calls[0].id.as_str().starts_with("call_"));
    }

    #[test]
    fn several_calls_in_both_spellings_keep_their_order_and_the_text_between() {
        let a = parse_answer(
            "First.\n<tool_call>{\"name\": \"glob\", \"arguments\": {\"pattern\": \"*.rs\"}}</tool_call>\nThen.\n```tool_call\n{\"name\": \"grep\", \"parameters\": {\"pattern\": \"x\"}}\n```\nDone.",
        );
        let names: Vec<&str> = a.calls.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(names, ["glob", "grep"]);
        assert_eq!(
            a.calls[1].arguments.as_ref().unwrap(),
            &json!({"pattern": "x"})
        );
        assert_eq!(a.text, "First.\n\nThen.\n\nDone.");
        assert_ne!(a.calls[0].id, a.calls[1].id);
    }

    #[test]
    fn a_code_fence_inside_an_argument_does_not_end_the_block() {
        let content = "# Notes\n```rust\nfn main() {}\n```\n";
        let text = format!(
            "Writing.\n```tool_call\n{}\n```\nDone.",
            json!({"name": "write_file", "arguments": {"path": "NOTES.md", "content": content}})
        );
        let a = parse_answer(&text);
        assert_eq!(a.calls.len(), 1, "{a:#?}");
        assert_eq!(
            a.calls[0].arguments.as_ref().unwrap()["content"],
            json!(content)
        );
        assert_eq!(a.text, "Writing.\n\nDone.");
        // The closing fence may follow the JSON on its line.
        let a = parse_answer("```tool_call {\"name\": \"glob\", \"arguments\": {}}``` after");
        assert_eq!(a.calls[0].name, "glob");
        assert_eq!(a.text, "after");
    }

    #[test]
    fn text_without_calls_is_left_as_it_is() {
        let text = "Use ```rust\nfn main() {}\n``` and a ```tool_calls block is not a call.";
        let a = parse_answer(text);
        assert!(a.calls.is_empty());
        assert_eq!(a.text, text);
    }

    #[test]
    fn malformed_blocks_become_calls_with_a_reason_the_model_can_read() {
        let a = parse_answer(concat!(
            "```tool_call\n{\"name\": \"read_file\", \"arguments\": {\"path\": }\n```\n",
            "```tool_call\n{\"arguments\": {}}\n```\n",
            "```tool_call\n{\"name\": \"glob\", \"arguments\": [\"*.rs\"]}\n```\n",
            "```tool_call\n[1, 2]\n```\n",
            "```tool_call\n{\"name\": \"echo\", \"arguments\": \"{\\\"a\\\": 1}\"}\n```\n",
            "```tool_call\n{\"name\": \"write_file\", \"arguments\": {\"path\": \"a\""
        ));
        assert_eq!(a.calls.len(), 6, "{a:#?}");
        assert_eq!(a.calls[0].name, "read_file");
        assert!(reason(&a.calls[0]).contains("not valid JSON"), "{a:#?}");
        assert_eq!(a.calls[1].name, CALL_FENCE);
        assert!(reason(&a.calls[1]).contains("no `name`"));
        assert_eq!(a.calls[2].name, "glob");
        assert!(reason(&a.calls[2]).contains("`arguments` is an array"));
        assert!(reason(&a.calls[3]).contains("holds an array"));
        // Arguments written as a JSON string of an object are understood.
        assert_eq!(a.calls[4].arguments.as_ref().unwrap(), &json!({"a": 1}));
        assert_eq!(a.calls[5].name, "write_file");
        assert!(reason(&a.calls[5]).contains("not closed"));
        let e = a.calls[0].arguments.as_ref().unwrap_err();
        assert_eq!(e.call_id, a.calls[0].id);
        assert!(e.raw.contains("\"path\": }"));
        assert_eq!(a.text, "");
    }

    #[test]
    fn what_is_parsed_is_bounded() {
        let block = "```tool_call\n{\"name\": \"echo\", \"arguments\": {}}\n```\n";
        let a = parse_answer(&block.repeat(MAX_CALLS_PER_ANSWER + 3));
        assert_eq!(a.calls.len(), MAX_CALLS_PER_ANSWER + 1);
        let last = a.calls.last().unwrap();
        assert!(reason(last).starts_with("3 more"), "{}", reason(last));
        assert_eq!(a.text, "");

        let huge = format!(
            "```tool_call\n{{\"name\": \"echo\", \"arguments\": {{\"x\": \"{}\"}}}}\n```",
            "a".repeat(MAX_CALL_BYTES)
        );
        let a = parse_answer(&huge);
        assert!(reason(&a.calls[0]).contains("larger than"));
        assert_eq!(a.calls[0].name, "echo");
        assert!(a.calls[0].arguments.as_ref().unwrap_err().raw.len() <= MAX_RAW_EXCERPT_BYTES);

        let late = format!("{}é{block}", "x".repeat(MAX_SCANNED_BYTES - 1));
        let a = parse_answer(&late);
        assert!(
            a.calls.is_empty(),
            "a call past the scanned part stays text"
        );
        assert!(a.text.ends_with("```"));
    }

    #[test]
    fn a_rendered_call_reads_back_as_the_same_call() {
        let block = call_block("read_file", &json!({"path": "a.rs"}));
        let a = parse_answer(&block);
        assert_eq!(a.calls[0].name, "read_file");
        assert_eq!(
            a.calls[0].arguments.as_ref().unwrap(),
            &json!({"path": "a.rs"})
        );
        assert_eq!(
            result_text("read_file", 2, "fn main() {}"),
            "Result of read_file (call 2):\nfn main() {}"
        );
    }
}
