//! `braid-mock-llm`: the scriptable mock LLM server as a program.
fn main() {}
