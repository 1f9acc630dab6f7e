//! braid-load's integration tests, one module per subject, built as one test binary (`make lint`
//! checks every file here is a module).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod server_process;
