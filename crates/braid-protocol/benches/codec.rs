//! Serializing and parsing 1,000 mixed messages.
fn main() {}
