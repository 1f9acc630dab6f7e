#!/usr/bin/env bash
# The compiler `make test` builds the workspace's own crates with: Clippy's driver, every
# warning an error. Cargo runs it as RUSTC_WORKSPACE_WRAPPER, as `lint-rustc.sh <rustc> <args>`
# (dependencies are compiled by rustc alone, their lints capped). So the test build lints what
# it compiles, and `make test` needs no `cargo clippy` pass of its own, which type-checked every
# crate and every dependency a second time before the build (issue 48). Clippy's driver is
# rustc with Clippy's lints added: the code it builds is the same.
exec clippy-driver "$@" -D warnings
