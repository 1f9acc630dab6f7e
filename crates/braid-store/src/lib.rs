//! `braid-store`: see DESIGN.md, room `braid-store`.
#![deny(unsafe_code)]
