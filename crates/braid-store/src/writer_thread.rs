//! Where a store's writer task runs. SQLite has one writer connection, and every statement on it
//! is a round trip between the task and the connection's thread. On the server's runtime, each
//! of those round trips waited for its turn behind every other ready task: with a thousand
//! streams, a change set cost some 370 µs of the writer's time and first chunks came a second
//! and a half late. On a thread of its own, the writer is woken as soon as its statement is
//! done.

use std::future::Future;
use std::sync::{Arc, Mutex, PoisonError};

/// Where a writer task runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum WriterHome {
    /// On the runtime of whoever starts it (writers whose database serves many connections).
    Runtime,
    /// On a thread of its own, with this name, running a single-threaded runtime.
    OwnThread(&'static str),
}

/// Starts `task` where `home` says. A thread that cannot be started (the process is out of
/// threads) leaves the task on the current runtime, with a warning.
pub(crate) fn spawn_writer<F>(home: WriterHome, task: F)
where
    F: Future<Output = ()> + Send + 'static,
{
    let WriterHome::OwnThread(name) = home else {
        tokio::spawn(task);
        return;
    };
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(error) => {
            tracing::warn!(thread = name, %error, "no runtime for the writer's thread; it runs on the server's runtime");
            tokio::spawn(task);
            return;
        }
    };
    // The writer stops with the runtime that started it, as a task of that runtime would: a
    // process whose runtime is gone (a test's stand-in for a crash) leaves its queue unwritten
    // instead of writing on behind the back of the next one to open the database.
    let (alive, parent_gone) = tokio::sync::oneshot::channel::<std::convert::Infallible>();
    tokio::spawn(async move {
        let _alive = alive;
        std::future::pending::<()>().await;
    });
    let task = async move {
        tokio::select! {
            () = task => {}
            _ = parent_gone => {}
        }
    };
    // Shared so that the task can still be run here if the thread does not start.
    let slot = Arc::new(Mutex::new(Some(task)));
    let theirs = Arc::clone(&slot);
    let started = std::thread::Builder::new()
        .name(name.to_owned())
        .spawn(move || {
            let task = theirs.lock().unwrap_or_else(PoisonError::into_inner).take();
            if let Some(task) = task {
                runtime.block_on(task);
            }
        });
    if let Err(error) = started {
        tracing::warn!(thread = name, %error, "the writer's thread did not start; it runs on the server's runtime");
        let task = slot.lock().unwrap_or_else(PoisonError::into_inner).take();
        if let Some(task) = task {
            tokio::spawn(task);
        }
    }
}
