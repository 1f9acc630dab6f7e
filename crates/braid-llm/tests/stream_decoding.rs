//! The stream decoders against recorded streams and hand-written ones covering every event.

use braid_llm::anthropic::AnthropicStreamDecoder;
use braid_llm::openai::OpenAiStreamDecoder;
use braid_llm::sse::{EventDecoder, decode_pieces};
use braid_llm::{CompletionBuilder, FinishReason, LlmError, LlmEvent, Usage};
use proptest::prelude::*;

const OPENAI_STREAM: &[u8] = include_bytes!("fixtures/llama_openai_stream.sse");
const ANTHROPIC_STREAM: &[u8] = include_bytes!("fixtures/llama_anthropic_stream.sse");

fn openai(pieces: &[&[u8]]) -> (Vec<LlmEvent>, Option<LlmError>) {
    decode_pieces(&mut OpenAiStreamDecoder::new(), pieces.iter().copied())
}

fn anthropic(pieces: &[&[u8]]) -> (Vec<LlmEvent>, Option<LlmError>) {
    decode_pieces(&mut AnthropicStreamDecoder::new(), pieces.iter().copied())
}

fn fold(events: &[LlmEvent]) -> braid_llm::Completion {
    let mut b = CompletionBuilder::new();
    for e in events {
        b.push(e);
    }
    b.finish()
}

/// The text of a recorded stream, read independently of the decoder: every `content` /
/// `text` string in its data lines.
fn oracle_text(stream: &[u8], pointer: &str) -> String {
    String::from_utf8(stream.to_vec())
        .unwrap()
        .lines()
        .filter_map(|l| l.strip_prefix("data: "))
        .filter_map(|d| serde_json::from_str::<serde_json::Value>(d).ok())
        .filter_map(|v| {
            v.pointer(pointer)
                .and_then(|t| t.as_str())
                .map(str::to_owned)
        })
        .collect()
}

#[test]
fn recorded_openai_stream_gives_its_text_usage_and_finish() {
    let (events, error) = openai(&[OPENAI_STREAM]);
    assert!(error.is_none(), "{error:?}");
    let c = fold(&events);
    assert_eq!(
        c.text,
        oracle_text(OPENAI_STREAM, "/choices/0/delta/content")
    );
    assert!(c.text.starts_with("Name three colours of the rainbow."));
    assert_eq!(
        c.usage,
        Some(Usage {
            prompt_tokens: 53,
            completion_tokens: 48,
            cached_prompt_tokens: 0
        })
    );
    assert_eq!(c.finish_reason, Some(FinishReason::Length));
    assert!(matches!(events.last(), Some(LlmEvent::Finish { .. })));
    // The first chunk's `content: null` yields no empty delta.
    assert!(
        events
            .iter()
            .all(|e| !matches!(e, LlmEvent::TextDelta { text } if text.is_empty()))
    );
}

#[test]
fn recorded_anthropic_stream_counts_cached_prompt_tokens() {
    let (events, error) = anthropic(&[ANTHROPIC_STREAM]);
    assert!(error.is_none(), "{error:?}");
    let c = fold(&events);
    assert_eq!(c.text, oracle_text(ANTHROPIC_STREAM, "/delta/text"));
    // The recording reports 48 prompt tokens read from the cache: counted in the prompt and
    // kept apart.
    assert_eq!(
        c.usage,
        Some(Usage {
            prompt_tokens: 53,
            completion_tokens: 48,
            cached_prompt_tokens: 48
        })
    );
    assert_eq!(c.finish_reason, Some(FinishReason::Length));
}

#[test]
fn every_two_way_split_of_the_recorded_streams_gives_identical_events() {
    type Decode = fn(&[&[u8]]) -> (Vec<LlmEvent>, Option<LlmError>);
    let cases: [(&[u8], Decode); 2] = [(OPENAI_STREAM, openai), (ANTHROPIC_STREAM, anthropic)];
    for (stream, decode) in cases {
        let (whole, _) = decode(&[stream]);
        for at in 0..=stream.len() {
            let (split, error) = decode(&[&stream[..at], &stream[at..]]);
            assert!(error.is_none(), "split at {at}: {error:?}");
            assert_eq!(split, whole, "split at byte {at}");
        }
    }
}

fn cut_points(len: usize) -> impl Strategy<Value = Vec<usize>> {
    proptest::collection::vec(0..=len, 0..40).prop_map(|mut v| {
        v.sort_unstable();
        v
    })
}

fn pieces_at<'a>(stream: &'a [u8], cuts: &[usize]) -> Vec<&'a [u8]> {
    let mut pieces = Vec::new();
    let mut start = 0;
    for &cut in cuts {
        pieces.push(&stream[start..cut]);
        start = cut;
    }
    pieces.push(&stream[start..]);
    pieces
}

proptest! {
    #[test]
    fn openai_stream_cut_anywhere_into_many_pieces_gives_identical_events(cuts in cut_points(OPENAI_STREAM.len())) {
        let (whole, _) = openai(&[OPENAI_STREAM]);
        let (split, error) = openai(&pieces_at(OPENAI_STREAM, &cuts));
        prop_assert!(error.is_none());
        prop_assert_eq!(split, whole);
    }

    #[test]
    fn anthropic_stream_cut_anywhere_into_many_pieces_gives_identical_events(cuts in cut_points(ANTHROPIC_STREAM.len())) {
        let (whole, _) = anthropic(&[ANTHROPIC_STREAM]);
        let (split, error) = anthropic(&pieces_at(ANTHROPIC_STREAM, &cuts));
        prop_assert!(error.is_none());
        prop_assert_eq!(split, whole);
    }

    #[test]
    fn crlf_line_endings_split_anywhere_give_the_same_events(cuts in cut_points(OPENAI_STREAM.len() + 400)) {
        let crlf = String::from_utf8(OPENAI_STREAM.to_vec()).unwrap().replace('\n', "\r\n").into_bytes();
        let cuts: Vec<usize> = cuts.into_iter().map(|c| c.min(crlf.len())).collect();
        let (whole, _) = openai(&[OPENAI_STREAM]);
        let (split, error) = openai(&pieces_at(&crlf, &cuts));
        prop_assert!(error.is_none());
        prop_assert_eq!(split, whole);
    }
}

fn sse(lines: &[&str]) -> Vec<u8> {
    lines
        .iter()
        .map(|l| format!("data: {l}\n\n"))
        .collect::<String>()
        .into_bytes()
}

#[test]
fn openai_parallel_tool_calls_with_interleaved_argument_deltas_are_kept_apart() {
    let stream = sse(&[
        r#"{"choices":[{"index":0,"delta":{"role":"assistant","content":"Let me look."}}]}"#,
        r#"{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_a","type":"function","function":{"name":"read_file","arguments":""}}]}}]}"#,
        r#"{"choices":[{"index":0,"delta":{"tool_calls":[{"index":1,"id":"call_b","type":"function","function":{"name":"grep","arguments":"{\"pat"}}]}}]}"#,
        r#"{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\"path\":"}}]}}]}"#,
        r#"{"choices":[{"index":0,"delta":{"tool_calls":[{"index":1,"function":{"arguments":"tern\":\"fn\"}"}}]}}]}"#,
        r#"{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"\"a.rs\"}"}}]}}]}"#,
        r#"{"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}"#,
        r#"{"choices":[],"usage":{"prompt_tokens":10,"completion_tokens":20,"total_tokens":30}}"#,
        "[DONE]",
    ]);
    let (events, error) = openai(&[&stream]);
    assert!(error.is_none());
    let c = fold(&events);
    assert_eq!(c.text, "Let me look.");
    assert_eq!(c.tool_calls.len(), 2);
    assert_eq!(c.tool_calls[0].id.as_str(), "call_a");
    assert_eq!(
        c.tool_calls[0].arguments.as_ref().unwrap(),
        &serde_json::json!({"path": "a.rs"})
    );
    assert_eq!(c.tool_calls[1].name, "grep");
    assert_eq!(
        c.tool_calls[1].arguments.as_ref().unwrap(),
        &serde_json::json!({"pattern": "fn"})
    );
    let deltas: Vec<(u32, &str)> = events
        .iter()
        .filter_map(|e| match e {
            LlmEvent::ToolCallArgumentsDelta { index, delta } => Some((*index, delta.as_str())),
            _ => None,
        })
        .collect();
    assert_eq!(
        deltas,
        vec![
            (1, "{\"pat"),
            (0, "{\"path\":"),
            (1, "tern\":\"fn\"}"),
            (0, "\"a.rs\"}")
        ]
    );
    assert_eq!(c.finish_reason, Some(FinishReason::ToolCalls));
    assert_eq!(c.usage.unwrap().completion_tokens, 20);
    // Usage comes before Finish, and Finish is last.
    assert!(matches!(events.last(), Some(LlmEvent::Finish { .. })));
}

#[test]
fn malformed_tool_arguments_are_an_error_for_that_call_only() {
    let stream = sse(&[
        r#"{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"good","function":{"name":"a","arguments":"{}"}},{"index":1,"id":"bad","function":{"name":"b","arguments":"{\"x\": tru"}}]}}]}"#,
        r#"{"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}"#,
        "[DONE]",
    ]);
    let (events, error) = openai(&[&stream]);
    assert!(error.is_none());
    let c = fold(&events);
    assert!(c.tool_calls[0].arguments.is_ok());
    let bad = c.tool_calls[1].arguments.as_ref().unwrap_err();
    assert_eq!(bad.call_id.as_str(), "bad");
    assert_eq!(bad.raw, "{\"x\": tru");
    assert_eq!(c.finish_reason, Some(FinishReason::ToolCalls));
}

#[test]
fn openai_reasoning_content_is_a_reasoning_delta() {
    let stream = sse(&[
        r#"{"choices":[{"index":0,"delta":{"reasoning_content":"thinking..."}}]}"#,
        r#"{"choices":[{"index":0,"delta":{"content":"42"},"finish_reason":"stop"}]}"#,
        "[DONE]",
    ]);
    let (events, _) = openai(&[&stream]);
    assert_eq!(
        events[0],
        LlmEvent::ReasoningDelta {
            text: "thinking...".into()
        }
    );
    assert_eq!(fold(&events).text, "42");
}

#[test]
fn openai_mid_stream_error_object_is_a_provider_error() {
    let stream = sse(&[
        r#"{"choices":[{"index":0,"delta":{"content":"par"}}]}"#,
        r#"{"error":{"message":"The server had an error","type":"server_error"}}"#,
    ]);
    let (events, error) = openai(&[&stream]);
    assert_eq!(events.len(), 1);
    match error {
        Some(LlmError::Provider {
            message,
            error_type,
        }) => {
            assert_eq!(message, "The server had an error");
            assert_eq!(error_type.as_deref(), Some("server_error"));
        }
        other => panic!("expected a provider error, got {other:?}"),
    }
}

#[test]
fn openai_stream_cut_before_finish_is_a_stream_cut() {
    let cut = &OPENAI_STREAM[..OPENAI_STREAM.len() / 2];
    let (events, error) = openai(&[cut]);
    assert!(!events.is_empty());
    assert!(matches!(error, Some(LlmError::StreamCut { .. })));
    assert!(error.unwrap().is_transient());
}

#[test]
fn openai_done_without_finish_reason_still_finishes() {
    let stream = sse(&[
        r#"{"choices":[{"index":0,"delta":{"content":"hi"}}]}"#,
        "[DONE]",
    ]);
    let (events, error) = openai(&[&stream]);
    assert!(error.is_none());
    assert_eq!(fold(&events).finish_reason, Some(FinishReason::Stop));
}

#[test]
fn openai_finish_without_done_is_accepted_at_end_of_stream() {
    let stream =
        sse(&[r#"{"choices":[{"index":0,"delta":{"content":"hi"},"finish_reason":"stop"}]}"#]);
    let (events, error) = openai(&[&stream]);
    assert!(error.is_none());
    assert_eq!(fold(&events).finish_reason, Some(FinishReason::Stop));
}

#[test]
fn openai_garbage_chunk_is_a_malformed_error_quoting_it() {
    let (_, error) = openai(&[b"data: {not json\n\n"]);
    match error {
        Some(LlmError::Malformed { detail }) => assert!(detail.contains("{not json")),
        other => panic!("{other:?}"),
    }
}

fn anthropic_events(events: &[(&str, &str)]) -> Vec<u8> {
    events
        .iter()
        .map(|(name, data)| format!("event: {name}\ndata: {data}\n\n"))
        .collect::<String>()
        .into_bytes()
}

#[test]
fn anthropic_every_event_type_is_understood() {
    let stream = anthropic_events(&[
        (
            "message_start",
            r#"{"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","content":[],"model":"claude","usage":{"input_tokens":12,"cache_creation_input_tokens":3,"output_tokens":1}}}"#,
        ),
        ("ping", r#"{"type":"ping"}"#),
        (
            "content_block_start",
            r#"{"type":"content_block_start","index":0,"content_block":{"type":"thinking","thinking":""}}"#,
        ),
        (
            "content_block_delta",
            r#"{"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"hmm"}}"#,
        ),
        (
            "content_block_delta",
            r#"{"type":"content_block_delta","index":0,"delta":{"type":"signature_delta","signature":"abc"}}"#,
        ),
        (
            "content_block_stop",
            r#"{"type":"content_block_stop","index":0}"#,
        ),
        (
            "content_block_start",
            r#"{"type":"content_block_start","index":1,"content_block":{"type":"text","text":""}}"#,
        ),
        (
            "content_block_delta",
            r#"{"type":"content_block_delta","index":1,"delta":{"type":"text_delta","text":"Reading."}}"#,
        ),
        (
            "content_block_stop",
            r#"{"type":"content_block_stop","index":1}"#,
        ),
        (
            "content_block_start",
            r#"{"type":"content_block_start","index":2,"content_block":{"type":"tool_use","id":"toolu_1","name":"read_file","input":{}}}"#,
        ),
        (
            "content_block_start",
            r#"{"type":"content_block_start","index":3,"content_block":{"type":"tool_use","id":"toolu_2","name":"grep","input":{}}}"#,
        ),
        (
            "content_block_delta",
            r#"{"type":"content_block_delta","index":2,"delta":{"type":"input_json_delta","partial_json":"{\"path\":"}}"#,
        ),
        (
            "content_block_delta",
            r#"{"type":"content_block_delta","index":3,"delta":{"type":"input_json_delta","partial_json":"{\"q\":1}"}}"#,
        ),
        (
            "content_block_delta",
            r#"{"type":"content_block_delta","index":2,"delta":{"type":"input_json_delta","partial_json":"\"a\"}"}}"#,
        ),
        (
            "content_block_stop",
            r#"{"type":"content_block_stop","index":2}"#,
        ),
        (
            "content_block_stop",
            r#"{"type":"content_block_stop","index":3}"#,
        ),
        (
            "message_delta",
            r#"{"type":"message_delta","delta":{"stop_reason":"tool_use","stop_sequence":null},"usage":{"output_tokens":30}}"#,
        ),
        ("message_stop", r#"{"type":"message_stop"}"#),
    ]);
    let (events, error) = anthropic(&[&stream]);
    assert!(error.is_none(), "{error:?}");
    assert_eq!(events[0], LlmEvent::ReasoningDelta { text: "hmm".into() });
    let c = fold(&events);
    assert_eq!(c.text, "Reading.");
    assert_eq!(c.reasoning, "hmm");
    assert_eq!(c.tool_calls.len(), 2);
    assert_eq!(c.tool_calls[0].id.as_str(), "toolu_1");
    assert_eq!(
        c.tool_calls[0].arguments.as_ref().unwrap(),
        &serde_json::json!({"path": "a"})
    );
    assert_eq!(
        c.tool_calls[1].arguments.as_ref().unwrap(),
        &serde_json::json!({"q": 1})
    );
    // Tool calls are numbered from 0 whatever their content block index.
    assert!(events.contains(&LlmEvent::ToolCallStarted {
        index: 1,
        id: "toolu_2".into(),
        name: "grep".into()
    }));
    assert_eq!(
        c.usage,
        Some(Usage {
            prompt_tokens: 15,
            completion_tokens: 30,
            cached_prompt_tokens: 0
        })
    );
    assert_eq!(c.finish_reason, Some(FinishReason::ToolCalls));
}

#[test]
fn anthropic_error_event_is_a_transient_provider_error_when_overloaded() {
    let stream = anthropic_events(&[
        (
            "message_start",
            r#"{"type":"message_start","message":{"usage":{"input_tokens":1,"output_tokens":0}}}"#,
        ),
        (
            "error",
            r#"{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}"#,
        ),
    ]);
    let (events, error) = anthropic(&[&stream]);
    assert!(events.is_empty());
    let error = error.unwrap();
    assert!(error.is_transient());
    assert_eq!(error.provider_message(), Some("Overloaded"));
}

#[test]
fn anthropic_malformed_tool_input_is_an_error_for_that_call() {
    let stream = anthropic_events(&[
        (
            "message_start",
            r#"{"type":"message_start","message":{"usage":{"input_tokens":1,"output_tokens":0}}}"#,
        ),
        (
            "content_block_start",
            r#"{"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"t1","name":"x","input":{}}}"#,
        ),
        (
            "content_block_delta",
            r#"{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"{\"a\":"}}"#,
        ),
        (
            "content_block_stop",
            r#"{"type":"content_block_stop","index":0}"#,
        ),
        (
            "message_delta",
            r#"{"type":"message_delta","delta":{"stop_reason":"tool_use"},"usage":{"output_tokens":5}}"#,
        ),
        ("message_stop", r#"{"type":"message_stop"}"#),
    ]);
    let (events, error) = anthropic(&[&stream]);
    assert!(error.is_none());
    let c = fold(&events);
    assert_eq!(
        c.tool_calls[0].arguments.as_ref().unwrap_err().raw,
        "{\"a\":"
    );
}

#[test]
fn anthropic_stream_cut_before_message_stop_is_a_stream_cut() {
    let cut = &ANTHROPIC_STREAM[..ANTHROPIC_STREAM.len() - 200];
    let (events, error) = anthropic(&[cut]);
    assert!(!events.is_empty());
    assert!(matches!(error, Some(LlmError::StreamCut { .. })));
}

#[test]
fn decoders_are_object_safe_for_the_transport() {
    let decoders: Vec<Box<dyn EventDecoder>> = vec![
        Box::new(OpenAiStreamDecoder::new()),
        Box::new(AnthropicStreamDecoder::new()),
    ];
    assert_eq!(decoders.len(), 2);
}

#[test]
fn non_streamed_recorded_answers_parse_into_completions() {
    let openai: serde_json::Value =
        serde_json::from_str(include_str!("fixtures/llama_openai.json")).unwrap();
    let c = braid_llm::openai::parse_completion(&openai).unwrap();
    assert!(c.text.starts_with("Name three colours"));
    assert_eq!(c.finish_reason, Some(FinishReason::Length));
    assert_eq!(c.usage.unwrap().prompt_tokens, 53);
    let anthropic: serde_json::Value =
        serde_json::from_str(include_str!("fixtures/llama_anthropic.json")).unwrap();
    let c = braid_llm::anthropic::parse_completion(&anthropic).unwrap();
    assert!(c.text.starts_with("Name three colours"));
    assert_eq!(c.usage.unwrap().prompt_tokens, 53);
    assert_eq!(c.usage.unwrap().completion_tokens, 48);
}

#[test]
fn openai_tool_call_without_an_id_gets_a_generated_one() {
    let stream = sse(&[
        r#"{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"name":"list","arguments":"{}"}}]}}]}"#,
        r#"{"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}"#,
        "[DONE]",
    ]);
    let (events, error) = openai(&[&stream]);
    assert!(error.is_none());
    let c = fold(&events);
    assert_eq!(c.tool_calls.len(), 1);
    assert!(c.tool_calls[0].id.as_str().starts_with("call_"));
    assert_eq!(c.tool_calls[0].name, "list");
    // Started, arguments and completed all carry the same id.
    let ids: Vec<&str> = events
        .iter()
        .filter_map(|e| match e {
            LlmEvent::ToolCallStarted { id, .. } | LlmEvent::ToolCallCompleted { id, .. } => {
                Some(id.as_str())
            }
            _ => None,
        })
        .collect();
    assert_eq!(ids.len(), 2);
    assert_eq!(ids[0], ids[1]);
}
