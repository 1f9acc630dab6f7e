//! The table of `Idempotency-Key`s (IETF httpapi draft "The Idempotency-Key HTTP Header
//! Field"): a request sent again with the key of an earlier one gets the earlier answer, and
//! its work is done once, also across a restart or on another replica.

use std::time::Duration;

/// One request that carries an `Idempotency-Key`.
#[derive(Clone, Copy, Debug)]
pub struct IdempotentRequest<'a> {
    /// Where it was sent (method and path): a key counts per route.
    pub scope: &'a str,
    /// The client's key.
    pub key: &'a str,
    /// A digest of its body: the same key with another body is a client's mistake.
    pub fingerprint: &'a str,
}

/// How long the table keeps what.
#[derive(Clone, Copy, Debug)]
pub struct IdempotencyWindow {
    /// An answer is given again for this long after its request arrived (a day).
    pub answers_kept: Duration,
    /// A claim whose request never recorded an answer (the server stopped mid-request) is
    /// given to the next request with the key after this long.
    pub claim_abandoned_after: Duration,
}

impl Default for IdempotencyWindow {
    fn default() -> Self {
        Self {
            answers_kept: Duration::from_secs(24 * 60 * 60),
            claim_abandoned_after: Duration::from_secs(60),
        }
    }
}

/// An answer as it was sent, to send again.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoredAnswer {
    /// The HTTP status.
    pub status: u16,
    /// The `Content-Type` header, when it had one.
    pub content_type: Option<String>,
    /// The body.
    pub body: Vec<u8>,
}

/// What the table says about a request with a key.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum IdempotencyClaim {
    /// The key is new (or its earlier use expired): the caller runs the request and then
    /// records its answer, or releases the claim.
    Claimed,
    /// The first request with this key is still running.
    InProgress,
    /// The key was first used with another body.
    OtherBody,
    /// The first request's answer.
    Answered(StoredAnswer),
}
