//! braid-vision's integration tests, one module per subject, built as one test binary (as every
//! crate does; `make lint` checks every file here is a module).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

#[path = "../benches/pictures/mod.rs"]
mod pictures;

mod ocr_language;
