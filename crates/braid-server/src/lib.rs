//! `braid-server`: Braid's HTTP + SSE API (DESIGN.md "Events and the HTTP API") over the
//! context engine, the web UI host, and `braid serve`.
//!
//! The API is one set of documented handlers ([`routes::api`]): the router and the OpenAPI
//! document are both built from it, each route's parameters, body and answers read from its
//! handler's types. Handlers validate, find the context, call one handle method and format
//! the answer; event streams ([`events`]) replay from the store so a reconnecting client misses
//! nothing and sees nothing twice.
#![deny(unsafe_code)]

pub mod answer;
pub mod app;
pub mod body;
pub mod error;
pub mod events;
pub mod forward;
pub mod guard;
pub mod idempotency;
pub mod log_feed;
pub mod mcp;
pub mod metrics;
pub mod openapi;
pub mod params;
pub mod routes;
pub mod serve;
pub mod web;

pub use app::{App, AppConfig, router};
pub use serve::{ServeArgs, ServeOptions, Server, StoreLocation, start};
