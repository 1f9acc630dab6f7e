//! Context ownership: one owner per context at a time, so a context's actor runs in one place.
//!
//! Ownership is a lease row per context in the `leases` table (both backends): the owner's
//! replica id and advertised address, an expiry on the database's clock, and a fencing token
//! that grows with each new owner. The owner's heartbeat renews its leases; every write of the
//! owner carries its token and the store refuses (in the same transaction) a write whose token
//! is not the lease's. A lease that cannot be renewed before it runs out is lost: its
//! [`ContextLock`] says so at once ([`ContextLock::lost`]), and the owner must stop.
//!
//! This module keeps what a store instance holds; the SQL lives beside the other statements in
//! `sql.rs`.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use braid_protocol::ContextId;
use tokio_util::sync::CancellationToken;

/// How long a lease lasts without a heartbeat. Another replica may take a context over once its
/// owner has missed heartbeats for this long, so a dead owner's contexts move within about
/// this time plus the adoption scan.
pub const LEASE_TTL: Duration = Duration::from_secs(3);

/// Who this store instance is, as other replicas see it in the lease table.
#[derive(Clone, Debug)]
pub struct ReplicaIdentity {
    /// Unique per process: a restarted replica is a new owner.
    pub id: String,
    /// Where other replicas forward requests for contexts this replica owns (`http://host:port`).
    pub address: Option<String>,
    /// How long a lease lasts without a heartbeat.
    pub lease_ttl: Duration,
}

impl Default for ReplicaIdentity {
    fn default() -> Self {
        Self {
            id: uuid::Uuid::now_v7().to_string(),
            address: None,
            lease_ttl: LEASE_TTL,
        }
    }
}

/// A context's lease as stored: who owns it and whether it is still in force.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Lease {
    /// The owner's replica id.
    pub owner: String,
    /// Where the owner takes forwarded requests, when it advertised an address.
    pub address: Option<String>,
    /// The fencing token of the current owner.
    pub token: u64,
    /// Held and not expired (on the database's clock).
    pub live: bool,
    /// Held by the store instance that answered.
    pub mine: bool,
}

/// Proof that this store instance owns a context. Ownership ends when it is dropped.
pub struct ContextLock {
    context: ContextId,
    token: u64,
    lost: CancellationToken,
    release: Option<Box<dyn FnOnce() + Send + Sync>>,
}

impl ContextLock {
    /// The owned context.
    pub fn context(&self) -> ContextId {
        self.context
    }

    /// The fencing token every write of this owner carries.
    pub fn token(&self) -> u64 {
        self.token
    }

    /// Cancelled when the lease is lost (not renewed in time, or another replica took the
    /// context over): the owner must stop at once, its writes are refused from then on.
    pub fn lost(&self) -> CancellationToken {
        self.lost.clone()
    }
}

impl std::fmt::Debug for ContextLock {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ContextLock")
            .field("context", &self.context)
            .field("token", &self.token)
            .finish()
    }
}

impl Drop for ContextLock {
    fn drop(&mut self) {
        if let Some(release) = self.release.take() {
            release();
        }
    }
}

/// A lease this store instance holds.
struct Held {
    token: u64,
    /// The lease is certainly in force until then (renewal start plus the lease's time, less a
    /// margin for clock rates).
    valid_until: Instant,
    lost: CancellationToken,
}

/// The leases one store instance holds.
pub(crate) struct Leases {
    pub identity: ReplicaIdentity,
    held: Mutex<HashMap<ContextId, Held>>,
}

impl Leases {
    pub fn new(identity: ReplicaIdentity) -> Arc<Self> {
        Arc::new(Self {
            identity,
            held: Mutex::new(HashMap::new()),
        })
    }

    fn held(&self) -> std::sync::MutexGuard<'_, HashMap<ContextId, Held>> {
        // The map holds plain values: a panic elsewhere cannot leave it half-changed.
        self.held.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The lease time in milliseconds, as bound into SQL.
    pub fn ttl_ms(&self) -> i64 {
        i64::try_from(self.identity.lease_ttl.as_millis()).unwrap_or(i64::MAX)
    }

    fn margin(&self) -> Duration {
        self.identity.lease_ttl / 6
    }

    /// Whether this instance already holds the context (a second claim is refused in memory).
    pub fn holds(&self, context: ContextId) -> bool {
        self.held().contains_key(&context)
    }

    /// The token this instance writes the context with (0: it holds no lease).
    pub fn token(&self, context: ContextId) -> u64 {
        self.held().get(&context).map(|h| h.token).unwrap_or(0)
    }

    /// Records a lease just taken at `started` with `token`; `release` runs when the lock drops.
    pub fn hold(
        self: &Arc<Self>,
        context: ContextId,
        token: u64,
        started: Instant,
        release: impl FnOnce(u64) + Send + Sync + 'static,
    ) -> ContextLock {
        let lost = CancellationToken::new();
        self.held().insert(
            context,
            Held {
                token,
                valid_until: started + self.identity.lease_ttl - self.margin(),
                lost: lost.clone(),
            },
        );
        let leases = Arc::clone(self);
        ContextLock {
            context,
            token,
            lost,
            release: Some(Box::new(move || {
                let mut held = leases.held();
                if held.get(&context).is_some_and(|h| h.token == token) {
                    held.remove(&context);
                }
                drop(held);
                release(token);
            })),
        }
    }

    /// The leases to renew: context and token.
    pub fn snapshot(&self) -> Vec<(ContextId, u64)> {
        self.held().iter().map(|(c, h)| (*c, h.token)).collect()
    }

    /// A renewal that started at `started` succeeded for `renewed`; every other lease held
    /// since before it is gone (taken over or released behind this store's back) and is lost.
    pub fn renewed(
        &self,
        started: Instant,
        asked: &[(ContextId, u64)],
        renewed: &[(ContextId, u64)],
    ) {
        let mut held = self.held();
        for (context, token) in asked {
            let ok = renewed.contains(&(*context, *token));
            if ok {
                if let Some(h) = held.get_mut(context).filter(|h| h.token == *token) {
                    h.valid_until = started + self.identity.lease_ttl - self.margin();
                }
            } else if held.get(context).is_some_and(|h| h.token == *token)
                && let Some(h) = held.remove(context)
            {
                tracing::warn!(context = %context, token, "lease taken over by another replica; its actor stops");
                h.lost.cancel();
            }
        }
    }

    /// A renewal failed (the database is unreachable): leases that ran out are lost.
    pub fn expire(&self, now: Instant) {
        let mut held = self.held();
        let expired: Vec<ContextId> = held
            .iter()
            .filter(|(_, h)| h.valid_until <= now)
            .map(|(c, _)| *c)
            .collect();
        for context in expired {
            if let Some(h) = held.remove(&context) {
                tracing::warn!(context = %context, token = h.token, "lease not renewed in time; its actor stops");
                h.lost.cancel();
            }
        }
    }

    /// A write with `token` was refused: the lease is someone else's now.
    pub fn fenced(&self, context: ContextId, token: u64) {
        let mut held = self.held();
        if held.get(&context).is_some_and(|h| h.token == token)
            && let Some(h) = held.remove(&context)
        {
            h.lost.cancel();
        }
    }

    /// Forgets every lease (the store closes); their owners are told they are lost.
    pub fn clear(&self) {
        for (_, h) in self.held().drain() {
            h.lost.cancel();
        }
    }
}
