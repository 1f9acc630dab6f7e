//! `braid-llm`: see DESIGN.md, room `braid-llm`.
#![deny(unsafe_code)]
