//! Parsing throughput of a long recorded stream (filled in below).
#![allow(missing_docs)]
fn main() {}
