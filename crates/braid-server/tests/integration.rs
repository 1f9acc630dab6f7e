//! braid-server's integration tests, one module per subject, built as one test binary:
//! a binary per file linked the whole dependency tree each time, which cost over a minute of
//! linking and gigabytes of disk per build (`make lint` checks every file here is a module).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod campaign;
mod command_rules;
mod common;

mod api;
mod compaction;
mod crash;
mod fuzz;
mod idempotency;
mod images;
mod long_context;
mod mcp;
mod merge;
mod postgres;
mod replicas;
mod security;
mod stored_input;
mod strict_input;
mod turns;
mod workflow_turns;
mod workflows;
