//! braid-mcp's integration tests, one module per subject, built as one test binary:
//! a binary per file linked the whole dependency tree each time, which cost over a minute of
//! linking and gigabytes of disk per build (`make lint` checks every file here is a module).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod support;

mod child_processes;
mod elicitation;
mod fuzz;
mod lifecycle;
mod limits;
mod oauth;
mod resources;
mod sandbox;
mod tls;
mod tools;
mod versions;
