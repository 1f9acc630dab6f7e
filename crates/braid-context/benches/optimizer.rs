//! Optimizer benchmarks (filled in below).
fn main() {}
