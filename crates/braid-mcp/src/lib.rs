//! `braid-mcp`: see DESIGN.md, room `braid-mcp`.
#![deny(unsafe_code)]
