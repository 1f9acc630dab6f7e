//! `braid-tools`: see DESIGN.md, room `braid-tools`.
#![deny(unsafe_code)]
