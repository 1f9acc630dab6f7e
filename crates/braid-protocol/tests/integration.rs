//! braid-protocol's integration tests, one module per subject, built as one test binary:
//! a binary per file linked the whole dependency tree each time, which cost over a minute of
//! linking and gigabytes of disk per build (`make lint` checks every file here is a module).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod strategies;

mod defaults;
mod fuzz;
mod migration;
mod payload;
mod roundtrip;
mod schema;
mod transitions;
mod validation;
