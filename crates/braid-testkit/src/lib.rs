//! `braid-testkit`: see DESIGN.md, room `braid-testkit`.
#![deny(unsafe_code)]
