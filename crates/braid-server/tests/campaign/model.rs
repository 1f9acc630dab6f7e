//! The campaign's model: the testkit's mock LLM answering each request from the request itself
//! (many conversations run at once, and a turn interrupted by a kill asks again), so every
//! conversation gets the same kind of answer whenever it asks.
//!
//! A user message `chaos <who> stream <n>` gets a text answer in `n` pieces; `chaos <who> tool
//! <n>` gets `n` `run_command` calls, each appending a line to `runs/<call id>.log` in the
//! workspace (so a call that ran twice shows as two lines), then a short text once the results
//! are in.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use braid_testkit::{FinishKind, MockLlm, RecordedRequest, ScriptedResponse, StreamReply};
use serde_json::{Value, json};

/// The pause before every chunk of an answer: kills land in the middle of streams.
pub const CHUNK_DELAY: Duration = Duration::from_millis(25);

/// What a user message of the campaign asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ask {
    /// A text answer in this many pieces.
    Stream(u32),
    /// This many tool calls, then a text answer.
    Tools(u32),
}

impl Ask {
    /// The user message that asks for this.
    pub fn text(self, who: &str) -> String {
        match self {
            Ask::Stream(n) => format!("chaos {who} stream {n}"),
            Ask::Tools(n) => format!("chaos {who} tool {n}"),
        }
    }

    fn parse(text: &str) -> Option<Ask> {
        let words: Vec<&str> = text.split_whitespace().collect();
        match words.as_slice() {
            ["chaos", _, "stream", n] => n.parse().ok().map(Ask::Stream),
            ["chaos", _, "tool", n] => n.parse().ok().map(Ask::Tools),
            _ => None,
        }
    }
}

/// Starts the mock with the campaign's answers. Call ids carry `prefix` and a counter, so every
/// call of the campaign has its own id.
pub async fn start(prefix: &str) -> MockLlm {
    let mock = MockLlm::start(braid_testkit::Script::new()).await.unwrap();
    let calls = Arc::new(AtomicU64::new(0));
    let prefix = prefix.to_owned();
    mock.respond_with(move |request| answer(request, &prefix, &calls));
    mock
}

fn content_text(content: &Value) -> String {
    match content {
        Value::String(s) => s.clone(),
        Value::Array(parts) => parts
            .iter()
            .filter_map(|p| p["text"].as_str())
            .collect::<Vec<_>>()
            .join(""),
        _ => String::new(),
    }
}

fn answer(request: &RecordedRequest, prefix: &str, calls: &AtomicU64) -> ScriptedResponse {
    let body = request.json().unwrap_or(Value::Null);
    let empty = Vec::new();
    let messages = body["messages"].as_array().unwrap_or(&empty);
    let last_user = messages.iter().rposition(|m| m["role"] == "user");
    let ask = last_user.and_then(|i| Ask::parse(&content_text(&messages[i]["content"])));
    let after_user = &messages[last_user.map_or(messages.len(), |i| i + 1)..];
    let tools_called = after_user
        .iter()
        .any(|m| m["role"] == "assistant" && m.get("tool_calls").is_some_and(|c| !c.is_null()));
    let reply = match ask {
        Some(Ask::Tools(n)) if !tools_called => {
            let mut reply = StreamReply::new();
            for i in 0..n {
                let id = format!("{prefix}-{}", calls.fetch_add(1, Ordering::Relaxed));
                let args = json!({
                    "program": "sh",
                    "args": ["-c", format!("mkdir -p runs && echo ran >> runs/{id}.log && sleep 0.3")],
                })
                .to_string();
                let (head, rest) = args.split_at(args.len() / 2);
                reply = reply
                    .tool_call(i, id, "run_command")
                    .tool_args(i, head)
                    .tool_args(i, rest);
            }
            reply.finish(FinishKind::ToolCalls)
        }
        Some(Ask::Stream(n)) => {
            let pieces: Vec<String> = (0..n).map(|i| format!("w{i} ")).collect();
            let refs: Vec<&str> = pieces.iter().map(String::as_str).collect();
            StreamReply::answer(&refs)
        }
        _ => StreamReply::answer(&["the ", "tools ", "ran"]),
    };
    reply.chunk_delay(CHUNK_DELAY).into()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn asks_read_back() {
        assert_eq!(Ask::parse(&Ask::Stream(7).text("c1")), Some(Ask::Stream(7)));
        assert_eq!(Ask::parse(&Ask::Tools(2).text("c1")), Some(Ask::Tools(2)));
        assert_eq!(Ask::parse("hello"), None);
    }
}
