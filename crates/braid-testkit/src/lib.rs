//! `braid-testkit`: test support shared by every crate (DESIGN.md, room `braid-testkit`).
//!
//! The centre is the mock LLM: an HTTP server on a free loopback port that speaks the OpenAI
//! chat-completions and Anthropic Messages APIs, streamed and not, answering each request with
//! the next response of a [`Script`] (text pieces, tool calls split across chunks, usage, delays,
//! HTTP errors, a cut stream, a hang) and recording every request so tests assert on what Braid
//! sent. It also answers the model servers' discovery endpoints (llama.cpp `/props`, Ollama
//! `/api/show`, vLLM `/v1/models`) when the script says what to report. Start it with [`MockLlm::start`], or run the `braid-mock-llm` binary.
#![deny(unsafe_code)]

#[cfg(feature = "fuzz")]
pub mod fuzz;
pub mod script;
pub mod server;
pub mod wire;

pub use script::{
    Chunk, DiscoveryReply, ErrorReply, FinishKind, Script, ScriptError, ScriptedResponse,
    ServerKind, StreamReply,
};
pub use server::{MockError, MockLlm, RecordedRequest, Responder};
pub use wire::{Api, DiscoveryEndpoint};
