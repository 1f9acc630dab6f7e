//! braid-context's integration tests, one module per subject, built as one test binary:
//! a binary per file linked the whole dependency tree each time, which cost over a minute of
//! linking and gigabytes of disk per build (`make lint` checks every file here is a module).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

mod file_references;
mod images;
mod listing;
mod loop_timeout;
mod mcp;
mod merge;
mod optimization_engine;
mod pipeline_completion;
mod prompted_tools;
mod recovery;
mod state_sequences;
mod storage_failure;
mod stored_input;
mod summary_reads;
mod titles;
mod tools;
mod turns;
mod workflows;
