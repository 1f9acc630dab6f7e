//! `braid-context`: see DESIGN.md, room `braid-context`.
#![deny(unsafe_code)]
