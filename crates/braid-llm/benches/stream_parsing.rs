//! Parsing throughput of a long recorded stream: the llama.cpp recordings' content chunks
//! repeated into a stream of 10 000 chunks, fed to the SSE parser and decoder in 4 KiB pieces
//! as a network read would deliver them. Reports MB/s (`bytes`) and chunks/s (`chunks`).
//!
//! `sse_only` measures the SSE layer alone: Braid's bounded parser against the
//! `eventsource-stream` crate on the same pieces (the reason Braid keeps its own is in
//! `src/sse.rs`).
//!
//! `prompted_answer` measures reading a prompted model's finished answer for its calls: a
//! typical answer (text around two calls) and the largest scanned (1 MiB of prose, no call).
#![allow(missing_docs, clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::hint::black_box;
use std::time::Duration;

use braid_llm::anthropic::AnthropicStreamDecoder;
use braid_llm::openai::OpenAiStreamDecoder;
use braid_llm::sse::{EventDecoder, SseParser, decode_pieces};
use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use eventsource_stream::Eventsource;
use futures::StreamExt;

const OPENAI: &str = include_str!("../tests/fixtures/llama_openai_stream.sse");
const ANTHROPIC: &str = include_str!("../tests/fixtures/llama_anthropic_stream.sse");
const CHUNKS: usize = 10_000;
const READ_SIZE: usize = 4096;

/// The recording's events, with the text deltas repeated until the stream has `CHUNKS` events.
fn long_stream(recording: &str, is_delta: impl Fn(&str) -> bool) -> (Vec<u8>, usize) {
    let events: Vec<&str> = recording
        .split("\n\n")
        .filter(|e| !e.trim().is_empty())
        .collect();
    let first_delta = events.iter().position(|e| is_delta(e)).unwrap();
    let last_delta = events.iter().rposition(|e| is_delta(e)).unwrap();
    let deltas = &events[first_delta..=last_delta];
    let mut out: Vec<&str> = events[..first_delta].to_vec();
    let fixed = events.len() - deltas.len();
    for i in 0..CHUNKS - fixed {
        out.push(deltas[i % deltas.len()]);
    }
    out.extend(&events[last_delta + 1..]);
    let count = out.len();
    (format!("{}\n\n", out.join("\n\n")).into_bytes(), count)
}

fn bench_stream(
    c: &mut Criterion,
    name: &str,
    stream: &[u8],
    chunks: usize,
    make: fn() -> Box<dyn EventDecoder>,
) {
    // Sanity: the long stream decodes without error and ends with a finish.
    let (events, error) = decode_pieces(make().as_mut(), stream.chunks(READ_SIZE));
    assert!(error.is_none(), "{error:?}");
    assert!(events.len() >= CHUNKS - 10);

    let mut group = c.benchmark_group(name);
    group
        .sample_size(20)
        .measurement_time(Duration::from_secs(4));
    group.throughput(Throughput::Bytes(stream.len() as u64));
    group.bench_function("bytes", |b| {
        b.iter(|| decode_pieces(make().as_mut(), black_box(stream).chunks(READ_SIZE)))
    });
    group.throughput(Throughput::Elements(chunks as u64));
    group.bench_function("chunks", |b| {
        b.iter(|| decode_pieces(make().as_mut(), black_box(stream).chunks(READ_SIZE)))
    });
    group.finish();
}

/// The SSE layer alone, ours and `eventsource-stream`'s, over the same 4 KiB pieces.
fn sse_only(c: &mut Criterion, stream: &[u8]) {
    let pieces: Vec<bytes::Bytes> = stream
        .chunks(READ_SIZE)
        .map(bytes::Bytes::copy_from_slice)
        .collect();
    let ours = || {
        let mut parser = SseParser::new();
        let mut out = Vec::new();
        for piece in &pieces {
            parser.push(piece, &mut out).unwrap();
        }
        out.len()
    };
    let theirs = || {
        futures::executor::block_on(async {
            futures::stream::iter(
                pieces
                    .iter()
                    .cloned()
                    .map(Ok::<_, std::convert::Infallible>),
            )
            .eventsource()
            .fold(0usize, |n, e| async move {
                e.unwrap();
                n + 1
            })
            .await
        })
    };
    assert_eq!(ours(), theirs());
    let mut group = c.benchmark_group("sse_only");
    group
        .sample_size(20)
        .measurement_time(Duration::from_secs(4));
    group.throughput(Throughput::Bytes(stream.len() as u64));
    group.bench_function("braid", |b| b.iter(|| black_box(ours())));
    group.bench_function("eventsource-stream", |b| b.iter(|| black_box(theirs())));
    group.finish();
}

fn parsing(c: &mut Criterion) {
    let (openai, openai_chunks) = long_stream(OPENAI, |e| e.contains("\"content\":\""));
    bench_stream(c, "openai_stream", &openai, openai_chunks, || {
        Box::new(OpenAiStreamDecoder::new())
    });
    sse_only(c, &openai);
    let (anthropic, anthropic_chunks) = long_stream(ANTHROPIC, |e| e.contains("text_delta"));
    bench_stream(c, "anthropic_stream", &anthropic, anthropic_chunks, || {
        Box::new(AnthropicStreamDecoder::new())
    });
}

fn prompted(c: &mut Criterion) {
    use braid_llm::prompted::{MAX_SCANNED_BYTES, call_block, parse_answer};
    let paragraph = "The function reads the configuration, then checks every path it names. ";
    let typical = format!(
        "{}\n\n{}\n\n{}\n\n{}",
        paragraph.repeat(20),
        call_block("read_file", &serde_json::json!({"path": "src/config.rs"})),
        call_block(
            "replace_in_file",
            &serde_json::json!({"path": "src/config.rs", "old": "a".repeat(400), "new": "b".repeat(400)})
        ),
        paragraph.repeat(5)
    );
    let prose = paragraph.repeat(MAX_SCANNED_BYTES / paragraph.len());
    let mut group = c.benchmark_group("prompted_answer");
    for (name, answer) in [("typical", &typical), ("prose_1mib", &prose)] {
        group.throughput(Throughput::Bytes(answer.len() as u64));
        group.bench_function(name, |b| {
            b.iter(|| black_box(parse_answer(black_box(answer))))
        });
    }
    group.finish();
}

criterion_group!(benches, parsing, prompted);
criterion_main!(benches);
