//! Fuzz targets (issue 13) for the stream parsers: arbitrary bytes, arbitrary JSON events and
//! mutated versions of the recorded llama.cpp streams, cut into pieces at arbitrary points, fed
//! through the SSE parser and the OpenAI and Anthropic decoders (and the non-streamed answer
//! parsers). Properties: nothing panics; the events and the error do not depend on where the
//! bytes were cut; a stream that ends in an error says why. Also the reader of prompted tool
//! calls, on answers made of call markers, JSON and text: nothing panics, the count is bounded,
//! ids are unique, and a usable call reads back the same from the block the history sends.
//!
//! Case counts: `PROPTEST_CASES` (else the default given to each target); `make fuzz` runs them
//! long, bounded by `BRAID_FUZZ_SECONDS`.

use braid_llm::anthropic::{self, AnthropicStreamDecoder};
use braid_llm::openai::{self, OpenAiStreamDecoder};
use braid_llm::sse::{EventDecoder, decode_pieces};
use braid_llm::{LlmError, LlmEvent};
use braid_testkit::fuzz::{
    self, any_bytes, cut, json_with_keys, mutated_bytes, mutated_json, split_points,
};
use proptest::prelude::*;
use serde_json::Value;

const OPENAI_STREAM: &[u8] = include_bytes!("fixtures/llama_openai_stream.sse");
const ANTHROPIC_STREAM: &[u8] = include_bytes!("fixtures/llama_anthropic_stream.sse");
const OPENAI_ANSWER: &str = include_str!("fixtures/llama_openai.json");
const ANTHROPIC_ANSWER: &str = include_str!("fixtures/llama_anthropic.json");

/// The default case count of each target in `make test`.
const CASES: u32 = 512;

/// Field names of both providers' chunks, events and answers.
const WIRE_KEYS: &[&str] = &[
    "type",
    "choices",
    "delta",
    "content",
    "reasoning_content",
    "reasoning",
    "tool_calls",
    "index",
    "id",
    "function",
    "name",
    "arguments",
    "finish_reason",
    "usage",
    "prompt_tokens",
    "completion_tokens",
    "error",
    "message",
    "content_block",
    "text",
    "thinking",
    "partial_json",
    "input",
    "stop_reason",
    "input_tokens",
    "output_tokens",
    "cache_read_input_tokens",
    "cache_creation_input_tokens",
];

/// Event names of the Anthropic stream (the OpenAI stream has none).
const EVENT_NAMES: &[&str] = &[
    "message_start",
    "content_block_start",
    "content_block_delta",
    "content_block_stop",
    "message_delta",
    "message_stop",
    "ping",
    "error",
];

#[derive(Clone, Copy, Debug)]
enum Api {
    OpenAi,
    Anthropic,
}

fn decoder(api: Api) -> Box<dyn EventDecoder> {
    match api {
        Api::OpenAi => Box::new(OpenAiStreamDecoder::new()),
        Api::Anthropic => Box::new(AnthropicStreamDecoder::new()),
    }
}

fn decode(api: Api, pieces: &[&[u8]]) -> (Vec<LlmEvent>, Option<LlmError>) {
    decode_pieces(decoder(api).as_mut(), pieces.iter().copied())
}

/// Events with the ids Braid makes up for calls that came without one replaced, so two decodes
/// of the same bytes compare equal.
fn comparable(events: Vec<LlmEvent>) -> Vec<LlmEvent> {
    let invented = |id: &braid_protocol::ToolCallId| {
        let s = id.as_str();
        s.len() == 37 && s.starts_with("call_") && s[5..].chars().all(|c| c.is_ascii_hexdigit())
    };
    events
        .into_iter()
        .map(|e| match e {
            LlmEvent::ToolCallStarted { index, id, name } if invented(&id) => {
                LlmEvent::ToolCallStarted {
                    index,
                    id: "invented".into(),
                    name,
                }
            }
            LlmEvent::ToolCallCompleted {
                index,
                id,
                name,
                arguments,
            } if invented(&id) => LlmEvent::ToolCallCompleted {
                index,
                id: "invented".into(),
                name,
                arguments: arguments.map_err(|mut e| {
                    e.call_id = "invented".into();
                    e
                }),
            },
            other => other,
        })
        .collect()
}

/// The property every stream target checks: decoding never panics, the result does not depend
/// on where the bytes were cut, and an error says what went wrong.
fn check_stream(
    api: Api,
    stream: &[u8],
    points: &[proptest::sample::Index],
) -> Result<(), TestCaseError> {
    let (whole, whole_error) = decode(api, &[stream]);
    let (split, split_error) = decode(api, &cut(stream, points));
    prop_assert_eq!(comparable(split), comparable(whole));
    prop_assert_eq!(
        split_error.as_ref().map(ToString::to_string),
        whole_error.as_ref().map(ToString::to_string)
    );
    if let Some(e) = whole_error {
        prop_assert!(!e.to_string().trim().is_empty());
    }
    Ok(())
}

/// Arbitrary JSON as SSE `data:` events, with Anthropic event names, optionally ended by `[DONE]`.
fn json_events() -> impl Strategy<Value = Vec<u8>> {
    let event = (
        proptest::option::of(prop::sample::select(EVENT_NAMES)),
        json_with_keys(WIRE_KEYS),
    );
    (prop::collection::vec(event, 0..8), any::<bool>()).prop_map(|(events, done)| {
        let mut out = Vec::new();
        for (name, data) in events {
            if let Some(name) = name {
                out.extend_from_slice(format!("event: {name}\n").as_bytes());
            }
            out.extend_from_slice(format!("data: {data}\n\n").as_bytes());
        }
        if done {
            out.extend_from_slice(b"data: [DONE]\n\n");
        }
        out
    })
}

/// The recorded stream's events, each with its JSON mutated at random (one to a few events).
fn mutated_events(stream: &'static [u8]) -> impl Strategy<Value = Vec<u8>> {
    let text = std::str::from_utf8(stream).unwrap();
    let events: Vec<String> = text
        .split("\n\n")
        .filter(|e| !e.trim().is_empty())
        .map(str::to_owned)
        .collect();
    let count = events.len();
    prop::collection::vec(0..count, 1..4).prop_flat_map(move |targets| {
        let mut strategies = Vec::new();
        for i in &targets {
            let event = &events[*i];
            let data_line = event
                .lines()
                .find_map(|l| l.strip_prefix("data: "))
                .unwrap_or("{}");
            let value: Value = serde_json::from_str(data_line).unwrap_or(Value::Null);
            strategies.push(mutated_json(value, WIRE_KEYS));
        }
        let events = events.clone();
        strategies.prop_map(move |mutations| {
            let mut events = events.clone();
            for (i, value) in targets.iter().zip(mutations) {
                let event = &events[*i];
                let kept: Vec<&str> = event.lines().filter(|l| !l.starts_with("data: ")).collect();
                let mut rebuilt = kept.join("\n");
                if !rebuilt.is_empty() {
                    rebuilt.push('\n');
                }
                rebuilt.push_str(&format!("data: {value}"));
                events[*i] = rebuilt;
            }
            let mut out = events.join("\n\n");
            out.push_str("\n\n");
            out.into_bytes()
        })
    })
}

fn api() -> impl Strategy<Value = Api> {
    prop_oneof![Just(Api::OpenAi), Just(Api::Anthropic)]
}

fn recorded(api: Api) -> &'static [u8] {
    match api {
        Api::OpenAi => OPENAI_STREAM,
        Api::Anthropic => ANTHROPIC_STREAM,
    }
}

#[test]
fn streams_of_arbitrary_bytes() {
    let strategy = (api(), any_bytes(512), split_points(16));
    fuzz::run(
        "llm_stream_bytes",
        CASES,
        strategy,
        |(api, bytes, points)| check_stream(api, &bytes, &points),
    );
}

#[test]
fn streams_of_arbitrary_json_events() {
    let strategy = (api(), json_events(), split_points(16));
    fuzz::run(
        "llm_stream_json",
        CASES,
        strategy,
        |(api, bytes, points)| check_stream(api, &bytes, &points),
    );
}

#[test]
fn recorded_streams_with_mutated_bytes() {
    let strategy = api()
        .prop_flat_map(|api| (Just(api), mutated_bytes(recorded(api).to_vec())))
        .prop_flat_map(|(api, bytes)| (Just(api), Just(bytes), split_points(24)));
    fuzz::run(
        "llm_stream_recorded_bytes",
        CASES,
        strategy,
        |(api, bytes, points)| check_stream(api, &bytes, &points),
    );
}

#[test]
fn recorded_streams_with_mutated_events() {
    let strategy = prop_oneof![
        (Just(Api::OpenAi), mutated_events(OPENAI_STREAM)),
        (Just(Api::Anthropic), mutated_events(ANTHROPIC_STREAM)),
    ]
    .prop_flat_map(|(api, bytes)| (Just(api), Just(bytes), split_points(24)));
    fuzz::run(
        "llm_stream_recorded_events",
        CASES,
        strategy,
        |(api, bytes, points)| check_stream(api, &bytes, &points),
    );
}

#[test]
fn recorded_streams_decoded_by_the_other_provider() {
    let strategy = (api(), split_points(24));
    fuzz::run(
        "llm_stream_crossed",
        CASES / 4,
        strategy,
        |(api, points)| {
            let other = match api {
                Api::OpenAi => ANTHROPIC_STREAM,
                Api::Anthropic => OPENAI_STREAM,
            };
            check_stream(api, other, &points)
        },
    );
}

#[test]
fn answers_mutated_and_arbitrary() {
    let openai_answer: Value = serde_json::from_str(OPENAI_ANSWER).unwrap();
    let anthropic_answer: Value = serde_json::from_str(ANTHROPIC_ANSWER).unwrap();
    assert!(openai::parse_completion(&openai_answer).is_ok());
    assert!(anthropic::parse_completion(&anthropic_answer).is_ok());
    let strategy = (
        api(),
        prop_oneof![
            mutated_json(openai_answer, WIRE_KEYS),
            mutated_json(anthropic_answer, WIRE_KEYS),
            json_with_keys(WIRE_KEYS),
        ],
    );
    fuzz::run("llm_answer_json", CASES, strategy, |(api, answer)| {
        let parsed = match api {
            Api::OpenAi => openai::parse_completion(&answer),
            Api::Anthropic => anthropic::parse_completion(&answer),
        };
        if let Err(e) = parsed {
            prop_assert!(!e.to_string().trim().is_empty());
        }
        Ok(())
    });
}

/// Pieces a prompted answer is made of: the call markers, JSON punctuation and keys, text.
fn prompted_piece() -> impl Strategy<Value = String> {
    prop_oneof![
        4 => prop::sample::select(vec![
            "```tool_call",
            "```tool_call\n",
            "```",
            "\n```\n",
            "<tool_call>",
            "</tool_call>",
            "{",
            "}",
            "\"name\": ",
            "\"arguments\": ",
            "\"parameters\": ",
            "\"read_file\"",
            ", ",
            "\n",
            "é",
            "Some text. ",
        ])
        .prop_map(str::to_owned),
        1 => json_with_keys(&["name", "arguments", "path", "content"]).prop_map(|v| v.to_string()),
        1 => fuzz::json_string(),
    ]
}

#[test]
fn prompted_answers_of_arbitrary_pieces() {
    let strategy = prop::collection::vec(prompted_piece(), 0..40).prop_map(|p| p.concat());
    fuzz::run("llm_prompted_answer", CASES, strategy, |answer| {
        let parsed = braid_llm::prompted::parse_answer(&answer);
        prop_assert!(parsed.calls.len() <= braid_llm::prompted::MAX_CALLS_PER_ANSWER + 1);
        prop_assert!(parsed.text.len() <= answer.len());
        let mut ids = std::collections::HashSet::new();
        for call in &parsed.calls {
            prop_assert!(ids.insert(call.id.clone()), "ids are unique");
            match &call.arguments {
                // A usable call reads back the same from the block the history sends.
                Ok(arguments) => {
                    prop_assert!(arguments.is_object());
                    let block = braid_llm::prompted::call_block(&call.name, arguments);
                    let again = braid_llm::prompted::parse_answer(&block);
                    prop_assert_eq!(again.calls.len(), 1);
                    prop_assert_eq!(&again.calls[0].name, &call.name);
                    prop_assert_eq!(again.calls[0].arguments.as_ref().ok(), Some(arguments));
                }
                Err(e) => {
                    prop_assert!(!e.reason.is_empty());
                    prop_assert_eq!(&e.call_id, &call.id);
                }
            }
        }
        Ok(())
    });
}
