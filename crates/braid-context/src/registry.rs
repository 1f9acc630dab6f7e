//! The registry of live contexts: loads a context from the store on first use, starts its actor,
//! hands out handles, and unloads contexts that have been idle.

use std::collections::HashMap;
use std::sync::{Arc, MutexGuard, PoisonError};
use std::time::Instant;

use braid_protocol::api::{ContextListEntry, CreateContextRequest};
use braid_protocol::{ContextId, Validate};
use braid_store::ContextRecord;
use tokio::sync::{mpsc, watch};

use crate::actor::Actor;
use crate::context::ContextData;
use crate::error::EngineError;
use crate::events::EventBus;
use crate::handle::ContextHandle;
use crate::services::Services;

/// How many commands may wait for a context's actor.
const COMMAND_BUFFER: usize = 256;

struct Live {
    handle: ContextHandle,
    last_used: Instant,
}

/// Every live context, by id.
pub struct ContextRegistry {
    services: Arc<Services>,
    /// Held only for a lookup or an insert, never across an await: with a thousand streams,
    /// an async lock held by whoever loaded a context made every request queue behind the
    /// others, each hand-over waiting for its task to be scheduled.
    live: std::sync::Mutex<HashMap<ContextId, Live>>,
    /// Loads (and deletes) one at a time, so a context is loaded once however many requests
    /// ask for it together; requests for live contexts never wait for it.
    loading: tokio::sync::Mutex<()>,
}

impl ContextRegistry {
    /// A registry over these services. The tokenizers' tables start loading on a thread of
    /// their own, so that the first context read (which counts its history) does not wait for
    /// them once the server has been up a moment.
    pub fn new(services: Services) -> Arc<Self> {
        if let Err(error) = std::thread::Builder::new()
            .name("braid-tokenizers".to_owned())
            .spawn(braid_optimizer::Encoding::load_all)
        {
            // The first count loads them instead.
            tracing::warn!(%error, "could not start loading the tokenizers ahead");
        }
        Arc::new(Self {
            services: Arc::new(services),
            live: std::sync::Mutex::new(HashMap::new()),
            loading: tokio::sync::Mutex::new(()),
        })
    }

    /// The services contexts run on.
    pub fn services(&self) -> &Services {
        &self.services
    }

    /// Creates and starts a context.
    pub async fn create(
        &self,
        request: CreateContextRequest,
    ) -> Result<ContextHandle, EngineError> {
        request.config.validate()?;
        self.services
            .settings
            .workspace_roots
            .open_configured(request.config.workspace.as_deref())
            .map_err(EngineError::Workspace)?;
        let record = ContextRecord::new(request.title.unwrap_or_default(), request.config);
        self.services.store.create_context(&record).await?;
        tracing::info!(context = %record.id, "context created");
        self.get(record.id).await
    }

    /// The live contexts (a short critical section: never held across an await).
    fn live(&self) -> MutexGuard<'_, HashMap<ContextId, Live>> {
        self.live.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The handle of a live context, marked used.
    fn live_handle(&self, id: ContextId) -> Option<ContextHandle> {
        let mut live = self.live();
        let l = live.get_mut(&id).filter(|l| l.handle.is_alive())?;
        l.last_used = Instant::now();
        Some(l.handle.clone())
    }

    /// The handle of a context, loading it when it is not live.
    pub async fn get(&self, id: ContextId) -> Result<ContextHandle, EngineError> {
        if let Some(handle) = self.live_handle(id) {
            return Ok(handle);
        }
        let _loading = self.loading.lock().await;
        // Another request may have loaded it while this one waited.
        if let Some(handle) = self.live_handle(id) {
            return Ok(handle);
        }
        // One owner per context: with PostgreSQL, one replica (an advisory lock held for the
        // actor's life).
        let lock = self
            .services
            .store
            .try_lock_context(id)
            .await?
            .ok_or_else(|| {
                EngineError::Conflict(format!("context {id} is open on another replica"))
            })?;
        let data = ContextData::load(self.services.store.as_ref(), id).await?;
        let kept_counts = crate::token_counts::take_back(self.services.store.as_ref(), id).await;
        self.discover_in_background(&data.record.config.model);
        let events = EventBus::new(id, self.services.store.clone());
        let (commands, inbox) = mpsc::channel(COMMAND_BUFFER);
        let (listing, listed) = watch::channel(data.listing(data.record.state.clone()));
        let handle = ContextHandle::new(
            id,
            commands,
            events.clone(),
            self.services.settings.workspace_roots.clone(),
            listed,
        );
        // A lost lease stops the actor at once, wherever it is in a turn: another replica
        // owns the context now, and this one's writes are refused anyway.
        let lost = lock.lost();
        let actor = Actor::new(
            data,
            self.services.clone(),
            events,
            inbox,
            lock,
            listing,
            kept_counts,
        );
        tokio::spawn(async move {
            tokio::select! {
                () = actor.run() => {}
                () = lost.cancelled() => {
                    tracing::warn!(context = %id, "lease lost: the context's actor stops");
                }
            }
        });
        self.live().insert(
            id,
            Live {
                handle: handle.clone(),
                last_used: Instant::now(),
            },
        );
        Ok(handle)
    }

    /// Takes over contexts whose owner (another replica) stopped renewing its lease, running
    /// the same recovery as after a crash. Answers how many were taken over.
    pub async fn adopt_orphans(&self) -> usize {
        let orphans = match self.services.store.orphaned_contexts().await {
            Ok(orphans) => orphans,
            Err(error) => {
                tracing::warn!(%error, "orphaned contexts not looked up");
                return 0;
            }
        };
        let mut adopted = 0;
        for id in orphans {
            // Another replica may win the lease first: that is not an error.
            match self.get(id).await {
                Ok(_) => {
                    adopted += 1;
                    tracing::info!(context = %id, "context taken over from a replica that stopped");
                }
                Err(error) => tracing::debug!(context = %id, %error, "orphan not taken over"),
            }
        }
        adopted
    }

    /// Whether the context's actor runs in this process.
    pub async fn is_live(&self, id: ContextId) -> bool {
        self.live().get(&id).is_some_and(|l| l.handle.is_alive())
    }

    /// Asks the model server about the context's model (or the default model) without waiting,
    /// so the figures a read shows are the server's before the first turn needs them. The
    /// client asks once per model; later calls return at once.
    fn discover_in_background(&self, configured: &str) {
        let Some(llm) = self.services.llm.clone() else {
            return;
        };
        let model = self.services.settings.model_in_use(configured);
        tokio::spawn(async move {
            llm.discover(&model).await;
        });
    }

    /// Every stored context, most recently updated first. Live ones are listed as their actors
    /// last published them (current state included), without waiting for any actor.
    pub async fn list(&self) -> Result<Vec<ContextListEntry>, EngineError> {
        let order = self.services.store.list_context_ids().await?;
        let mut live: HashMap<ContextId, ContextListEntry> = self
            .live()
            .iter()
            .filter(|(_, l)| l.handle.is_alive())
            .map(|(id, l)| (*id, l.handle.listing()))
            .collect();
        // Stored records are read only for contexts that are not loaded: on a busy server
        // every context is, and parsing each one's record for nothing was most of a list.
        let mut stored: HashMap<ContextId, ContextRecord> =
            if order.iter().all(|id| live.contains_key(id)) {
                HashMap::new()
            } else {
                self.services
                    .store
                    .list_contexts()
                    .await?
                    .into_iter()
                    .filter(|r| !live.contains_key(&r.id))
                    .map(|r| (r.id, r))
                    .collect()
            };
        let mut out = Vec::with_capacity(order.len());
        for id in order {
            if let Some(entry) = live.remove(&id) {
                out.push(entry);
                continue;
            }
            // Created or deleted between the two reads: listed by the next list.
            let Some(record) = stored.remove(&id) else {
                continue;
            };
            let count = self
                .services
                .store
                .count_messages(record.id, &record.active_branch)
                .await?;
            let branches = self.services.store.list_branches(record.id).await?;
            out.push(ContextListEntry {
                id: record.id,
                title: (!record.title.is_empty()).then(|| record.title.clone()),
                config: record.config,
                state: record.state,
                active_branch: record.active_branch,
                branches: branches.into_iter().map(|b| b.name).collect(),
                message_count: count,
                created_at: record.created_at,
                updated_at: record.updated_at,
            });
        }
        Ok(out)
    }

    /// Stops a context and deletes it with everything it holds.
    pub async fn delete(&self, id: ContextId) -> Result<(), EngineError> {
        let _loading = self.loading.lock().await;
        let removed = self.live().remove(&id);
        if let Some(l) = removed {
            l.handle.shutdown().await;
            self.release_workspaces().await;
        }
        if self.services.store.delete_context(id).await? {
            Ok(())
        } else {
            Err(EngineError::ContextNotFound(id))
        }
    }

    /// Unloads contexts unused for longer than the configured idle time and at rest. Answers
    /// how many were unloaded.
    pub async fn unload_idle(&self) -> usize {
        let limit = self.services.settings.idle_unload_after;
        let candidates: Vec<(ContextId, ContextHandle)> = self
            .live()
            .iter()
            .filter(|(_, l)| l.last_used.elapsed() >= limit || !l.handle.is_alive())
            .map(|(id, l)| (*id, l.handle.clone()))
            .collect();
        let mut unloaded = 0;
        for (id, handle) in candidates {
            let resting = match handle.state(false).await {
                Ok(s) => s.state.kind().is_resting(),
                Err(_) => true,
            };
            if resting {
                self.live().remove(&id);
                handle.shutdown().await;
                unloaded += 1;
                tracing::debug!(context = %id, "idle context unloaded");
            }
        }
        if unloaded > 0 {
            self.release_workspaces().await;
        }
        unloaded
    }

    /// Releases the code index and file watcher of every workspace no live context uses.
    async fn release_workspaces(&self) {
        let Some(indexes) = self.services.tools.codebase_indexes() else {
            return;
        };
        let handles: Vec<ContextHandle> = self.live().values().map(|l| l.handle.clone()).collect();
        let roots = &self.services.settings.workspace_roots;
        let mut in_use = std::collections::HashSet::new();
        for handle in handles {
            if let Ok(summary) = handle.summary().await
                && let Ok(Some(workspace)) =
                    roots.open_configured(summary.config.workspace.as_deref())
            {
                in_use.insert(workspace.root().to_path_buf());
            }
        }
        let released = indexes.release_unused(&in_use);
        if released > 0 {
            tracing::debug!(released, "code indexes of unused workspaces released");
        }
    }

    /// How many contexts are live.
    pub async fn live_count(&self) -> usize {
        self.live().len()
    }

    /// Stops every live context (graceful shutdown).
    pub async fn shutdown(&self) {
        let all: Vec<ContextHandle> = self.live().drain().map(|(_, l)| l.handle).collect();
        for h in all {
            h.shutdown().await;
        }
        if let Err(error) = self.services.store.flush_events().await {
            tracing::error!(%error, "events not flushed at shutdown");
        }
    }
}
