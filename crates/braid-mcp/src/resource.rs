//! MCP resources as context: turning what a server returns into an `mcp_resource` message, and
//! the per-context cache that serves the same content for the same URI while it is fresh (seed
//! 000, "Resource caching").

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use braid_protocol::{McpResourceMessage, ResourceContent};
use chrono::{DateTime, Utc};
use rmcp::model::ResourceContents;

use crate::error::McpError;
use crate::manager::{McpManager, ResourceRead};

/// Where the cache gets the time from; injectable so staleness is testable without waiting.
pub trait Clock: Send + Sync {
    /// The current time.
    fn now(&self) -> DateTime<Utc>;
}

/// The real clock.
#[derive(Clone, Copy, Debug, Default)]
pub struct SystemClock;

impl Clock for SystemClock {
    fn now(&self) -> DateTime<Utc> {
        Utc::now()
    }
}

/// A clock that only moves when told to (for tests of time-dependent behaviour).
#[derive(Debug)]
pub struct ManualClock {
    now: Mutex<DateTime<Utc>>,
}

impl ManualClock {
    /// A clock standing at `start`.
    pub fn new(start: DateTime<Utc>) -> Self {
        Self {
            now: Mutex::new(start),
        }
    }

    /// Moves the clock forward by `by`.
    pub fn advance(&self, by: std::time::Duration) {
        let by = chrono::Duration::from_std(by).unwrap_or(chrono::Duration::MAX);
        let mut now = self.now.lock().unwrap_or_else(|p| p.into_inner());
        *now = now.checked_add_signed(by).unwrap_or(*now);
    }
}

impl Clock for ManualClock {
    fn now(&self) -> DateTime<Utc> {
        *self.now.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// Whether a cached resource was served or read from the server.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CacheOutcome {
    /// Served from the cache: it was read within its TTL.
    Fresh,
    /// Read from the server: not cached yet, or stale.
    Read,
}

/// The resources one context has read, by server and URI.
pub struct ResourceCache {
    clock: Arc<dyn Clock>,
    entries: Mutex<HashMap<(String, String), McpResourceMessage>>,
}

impl std::fmt::Debug for ResourceCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ResourceCache")
            .field("entries", &self.lock().len())
            .finish()
    }
}

impl Default for ResourceCache {
    fn default() -> Self {
        Self::new(Arc::new(SystemClock))
    }
}

impl ResourceCache {
    /// An empty cache reading the time from `clock`.
    pub fn new(clock: Arc<dyn Clock>) -> Self {
        Self {
            clock,
            entries: Mutex::new(HashMap::new()),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<(String, String), McpResourceMessage>> {
        self.entries.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The `mcp_resource` message for `uri` of `server`: the cached one while it is younger than
    /// the server's TTL for its MIME type, else a fresh read (which replaces the cached one).
    pub async fn get(
        &self,
        manager: &McpManager,
        server: &str,
        uri: &str,
    ) -> Result<(McpResourceMessage, CacheOutcome), McpError> {
        let key = (server.to_string(), uri.to_string());
        let cached = self.lock().get(&key).cloned();
        if let Some(message) = cached {
            let ttl = manager
                .config(server)
                .map(|c| c.resource_ttl.for_mime_type(message.mime_type.as_deref()))
                .unwrap_or(crate::config::DEFAULT_RESOURCE_TTL);
            let age = self.clock.now().signed_duration_since(message.retrieved_at);
            if age.to_std().is_ok_and(|age| age < ttl) {
                tracing::debug!(server = %server, uri = %uri, "MCP resource served from cache");
                return Ok((message, CacheOutcome::Fresh));
            }
            tracing::debug!(server = %server, uri = %uri, "MCP resource stale, reading again");
        }
        let read = manager.read_resource(server, uri).await?;
        let name = manager
            .list_resources(server)
            .await
            .ok()
            .and_then(|list| list.into_iter().find(|r| r.uri == uri).map(|r| r.name));
        let message = resource_message(server, uri, name, read, self.clock.now());
        self.lock().insert(key, message.clone());
        Ok((message, CacheOutcome::Read))
    }

    /// Forgets every cached resource (e.g. the context was reset).
    pub fn clear(&self) {
        self.lock().clear();
    }
}

/// Builds the `mcp_resource` message for content read at `retrieved_at`.
pub fn resource_message(
    server: &str,
    uri: &str,
    name: Option<String>,
    read: ResourceRead,
    retrieved_at: DateTime<Utc>,
) -> McpResourceMessage {
    McpResourceMessage {
        server_name: server.to_string(),
        resource_uri: uri.to_string(),
        name,
        content: read.content,
        mime_type: read.mime_type,
        retrieved_at,
    }
}

/// Turns a `resources/read` answer into text for the model; binary parts become a one-line
/// description (MIME type and size), because base64 in a prompt costs tokens and says nothing.
pub(crate) fn summarize_contents(uri: &str, contents: &[ResourceContents]) -> ResourceRead {
    let mut texts = Vec::new();
    let mut binaries = Vec::new();
    let mut mime_type = None;
    for part in contents {
        match part {
            ResourceContents::TextResourceContents {
                text, mime_type: m, ..
            } => {
                mime_type = mime_type.or_else(|| m.clone());
                texts.push(text.clone());
            }
            ResourceContents::BlobResourceContents {
                blob,
                mime_type: m,
                uri: part_uri,
                ..
            } => {
                mime_type = mime_type.or_else(|| m.clone());
                let size = base64_decoded_len(blob);
                binaries.push((
                    size,
                    format!(
                        "binary resource {part_uri} ({}, {size} bytes; content not shown)",
                        m.as_deref().unwrap_or("unknown type")
                    ),
                ));
            }
            _ => binaries.push((
                0,
                format!("a part of {uri} in a form Braid does not read (content not shown)"),
            )),
        }
    }
    let content = if texts.is_empty() && !binaries.is_empty() {
        ResourceContent::Binary {
            size_bytes: binaries.iter().map(|(size, _)| size).sum(),
            summary: binaries
                .into_iter()
                .map(|(_, s)| s)
                .collect::<Vec<_>>()
                .join("\n"),
        }
    } else {
        if texts.is_empty() {
            texts.push(format!("(resource {uri} is empty)"));
        }
        texts.extend(binaries.into_iter().map(|(_, s)| format!("[{s}]")));
        ResourceContent::Text {
            text: texts.join("\n\n"),
        }
    };
    ResourceRead { content, mime_type }
}

/// The number of bytes base64 text decodes to, without decoding it.
pub(crate) fn base64_decoded_len(blob: &str) -> u64 {
    let significant = blob.bytes().filter(|b| !b.is_ascii_whitespace()).count() as u64;
    let padding = blob.bytes().rev().take_while(|b| *b == b'=').count() as u64;
    (significant / 4 * 3 + (significant % 4).saturating_sub(1)).saturating_sub(padding)
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;

    fn text(t: &str, mime: Option<&str>) -> ResourceContents {
        ResourceContents::TextResourceContents {
            uri: "x://t".into(),
            mime_type: mime.map(str::to_string),
            text: t.into(),
            meta: None,
        }
    }

    fn blob(b: &str, mime: &str) -> ResourceContents {
        ResourceContents::BlobResourceContents {
            uri: "x://b".into(),
            mime_type: Some(mime.into()),
            blob: b.into(),
            meta: None,
        }
    }

    #[test]
    fn base64_length_is_computed_without_decoding() {
        assert_eq!(base64_decoded_len(""), 0);
        assert_eq!(base64_decoded_len("YQ=="), 1);
        assert_eq!(base64_decoded_len("YWI="), 2);
        assert_eq!(base64_decoded_len("YWJj"), 3);
        assert_eq!(base64_decoded_len("YWJjZA=="), 4);
        assert_eq!(base64_decoded_len("YWJj\nZA=="), 4);
    }

    #[test]
    fn binary_is_summarized_not_dumped() {
        let read = summarize_contents("x://b", &[blob("YWJjZA==", "image/png")]);
        let ResourceContent::Binary {
            size_bytes,
            summary,
        } = read.content
        else {
            panic!("expected binary")
        };
        assert_eq!(size_bytes, 4);
        assert!(
            summary.contains("image/png") && summary.contains("4 bytes"),
            "{summary}"
        );
        assert!(!summary.contains("YWJj"));
        assert_eq!(read.mime_type.as_deref(), Some("image/png"));
    }

    #[test]
    fn text_parts_are_joined_and_mixed_blobs_described() {
        let read = summarize_contents(
            "x://t",
            &[
                text("one", Some("text/plain")),
                text("two", None),
                blob("YQ==", "application/octet-stream"),
            ],
        );
        let ResourceContent::Text { text } = read.content else {
            panic!("expected text")
        };
        assert!(text.starts_with("one\n\ntwo"), "{text}");
        assert!(
            text.contains("1 bytes") && text.contains("application/octet-stream"),
            "{text}"
        );
        assert_eq!(read.mime_type.as_deref(), Some("text/plain"));
    }

    #[test]
    fn manual_clock_moves_only_when_advanced() {
        let start = Utc::now();
        let clock = ManualClock::new(start);
        assert_eq!(clock.now(), start);
        clock.advance(std::time::Duration::from_secs(3600));
        assert_eq!(clock.now() - start, chrono::Duration::hours(1));
    }
}
