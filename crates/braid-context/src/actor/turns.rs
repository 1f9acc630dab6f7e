//! The actor's turns: the one under way (its id and branch stamp every event emitted
//! meanwhile), the turns queued sends were given, and each turn's record (saved running with
//! the first change set the turn commits, and ended by `close_turn`).

use braid_protocol::api::SendMessageResponse;
use braid_protocol::{ContextEvent, ContextState, ContextTurnId, MessageId};
use braid_store::ContextChanges;

use super::Actor;
use crate::host::Host;

/// A turn under way: every event emitted meanwhile carries its id and branch.
pub(crate) struct ActiveTurn {
    /// The turn.
    pub id: ContextTurnId,
    /// The branch it works on.
    pub branch: braid_protocol::BranchName,
    /// The id its send answered with, if a send started it.
    pub message_id: Option<MessageId>,
    /// The sequence of its first event, 0 until one is emitted (events are emitted through a
    /// shared reference).
    pub first_event: std::sync::atomic::AtomicU64,
    /// Its record once it ended, while that record is being saved.
    pub ended: Option<braid_protocol::api::TurnView>,
    /// Whether its `running` record still waits to be saved: it rides with the next change
    /// set committed (for a send, the one storing its input), so a crash after that leaves a
    /// record recovery marks interrupted, at no transaction of its own.
    pub start: TurnStart,
    /// How it ends when it leaves the context idle, when the state cannot say (a workflow run
    /// that failed, paused or was cancelled rests the context idle), with the error of a
    /// failure.
    pub idle_outcome: Option<(braid_protocol::TurnOutcome, Option<String>)>,
}

/// Whether a turn's `running` record is to be saved with the next commit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum TurnStart {
    /// Not saved yet: the next change set carries it.
    Unsaved,
    /// Saved, or not to be saved (a queued send's turn, until it runs).
    Settled,
}

impl Actor {
    /// Opens a turn (the events emitted from now on are its own) on the active branch: with
    /// id `id` when one was given out already (a queued send's), else a new one.
    pub(crate) fn open_turn(&mut self, id: Option<ContextTurnId>) -> ContextTurnId {
        let id = id.unwrap_or_default();
        self.turn = Some(ActiveTurn {
            id,
            branch: self.data.record.active_branch.clone(),
            message_id: None,
            first_event: std::sync::atomic::AtomicU64::new(0),
            ended: None,
            start: TurnStart::Unsaved,
            idle_outcome: None,
        });
        id
    }

    /// Says how the open turn ends if it leaves the context idle (`None`: as the state says).
    /// No turn open: nothing.
    pub(crate) fn set_idle_outcome(
        &mut self,
        outcome: Option<(braid_protocol::TurnOutcome, Option<String>)>,
    ) {
        if let Some(turn) = self.turn.as_mut() {
            turn.idle_outcome = outcome;
        }
    }

    /// The open turn's `running` record when it is still to be saved, taken for the change set
    /// about to be committed.
    pub(super) fn take_turn_start(&mut self) -> Option<braid_protocol::api::TurnView> {
        let turn = self.turn.as_mut()?;
        if turn.start == TurnStart::Settled {
            return None;
        }
        turn.start = TurnStart::Settled;
        let id = turn.id;
        self.turn_view(id)
    }

    /// Opens the turn of a send accepted while another turn runs: it is queued, so no
    /// `running` record is saved for it until it starts.
    pub(super) fn open_queued_turn(&mut self) -> ContextTurnId {
        let id = self.open_turn(None);
        if let Some(turn) = self.turn.as_mut() {
            turn.start = TurnStart::Settled;
        }
        id
    }

    /// Whether a turn is open.
    pub(crate) fn has_open_turn(&self) -> bool {
        self.turn.is_some()
    }

    /// Records that the send answered with `message` started the open turn.
    pub(crate) fn turn_started_by(&mut self, message: MessageId) {
        if let Some(turn) = self.turn.as_mut() {
            turn.message_id = Some(message);
        }
    }

    /// Drops the open turn without ending it (its send was refused: it never ran).
    pub(crate) fn forget_turn(&mut self) {
        self.turn = None;
    }

    /// The answer to an accepted send run as `turn`, which it now names.
    pub(crate) fn sent(
        &mut self,
        send: &crate::send::QueuedSend,
        turn: ContextTurnId,
        queued: bool,
    ) -> SendMessageResponse {
        let message_id = send.primary_id();
        let first = match &mut self.turn {
            Some(t) if t.id == turn => {
                t.message_id = Some(message_id);
                t.first_event.load(std::sync::atomic::Ordering::Relaxed)
            }
            _ => 0,
        };
        SendMessageResponse {
            message_id,
            queued,
            turn_id: turn,
            stream_after: first.checked_sub(1),
        }
    }

    /// The turn a queued send was given when it was accepted, taken as it starts.
    pub(crate) fn take_queued_turn(&mut self, message: MessageId) -> Option<ContextTurnId> {
        self.queued_turns.remove(&message)
    }

    /// Ends the open turn: emits its `turn_completed` with the outcome the state it left says,
    /// and saves its record (reads answered meanwhile see it ended). No turn open: nothing.
    pub(crate) async fn close_turn(&mut self) {
        let Some(turn) = self.turn.as_ref() else {
            return;
        };
        let state = self.machine.current();
        let interrupted = self.interrupt.is_cancelled();
        let (outcome, error) = match (state, &turn.idle_outcome) {
            (ContextState::Idle, Some(set)) => set.clone(),
            _ => (
                braid_protocol::TurnOutcome::of_rest(state, interrupted)
                    // Stopped in a working state (shutdown): it did not finish.
                    .unwrap_or(braid_protocol::TurnOutcome::Interrupted),
                match state {
                    ContextState::Failed { error, .. } => Some(error.clone()),
                    _ => None,
                },
            ),
        };
        let now = chrono::Utc::now();
        let view = braid_protocol::api::TurnView {
            turn_id: turn.id,
            context_id: self.id,
            branch: turn.branch.clone(),
            status: braid_protocol::api::TurnStatus::Completed,
            outcome: Some(outcome),
            error: error.clone(),
            message_id: turn.message_id,
            completed_at: Some(now),
        };
        let event = ContextEvent::TurnCompleted(braid_protocol::TurnCompleted {
            context_id: self.id,
            turn_id: turn.id,
            branch: turn.branch.clone(),
            outcome,
            error,
            timestamp: now,
        });
        tracing::debug!(context = %self.id, turn = %turn.id, outcome = ?outcome, "turn completed");
        if let Some(turn) = self.turn.as_mut() {
            turn.ended = Some(view.clone());
            turn.start = TurnStart::Settled;
        }
        // The record rides in the writer's next round, as a set of records only: it leaves the
        // context's row alone (a turn ending is no update of the context, and the list orders
        // contexts by their updates), and the event commits no earlier than it.
        let changes = ContextChanges::turn_record(view.clone());
        let store = self.services.store.clone();
        let queued = self
            .serve_reads_until(store.queue_changes(self.id, &changes))
            .await;
        self.emit(event).await;
        let saved = match queued {
            Ok(pending) => self.serve_reads_until(pending).await,
            Err(error) => Err(error),
        };
        if let Err(error) = saved {
            tracing::warn!(context = %self.id, turn = %view.turn_id, %error, "turn record not saved");
        }
        self.turn = None;
    }

    /// Where turn `id` is, as far as this actor knows (running, queued, or ending now).
    pub(crate) fn turn_view(&self, id: ContextTurnId) -> Option<braid_protocol::api::TurnView> {
        use braid_protocol::api::{TurnStatus, TurnView};
        if let Some(turn) = self.turn.as_ref().filter(|t| t.id == id) {
            return Some(turn.ended.clone().unwrap_or_else(|| TurnView {
                turn_id: id,
                context_id: self.id,
                branch: turn.branch.clone(),
                status: TurnStatus::Running,
                outcome: None,
                error: None,
                message_id: turn.message_id,
                completed_at: None,
            }));
        }
        self.queued_turns
            .iter()
            .find(|(_, turn)| **turn == id)
            .map(|(message, _)| TurnView {
                turn_id: id,
                context_id: self.id,
                branch: self.data.record.active_branch.clone(),
                status: TurnStatus::Queued,
                outcome: None,
                error: None,
                message_id: Some(*message),
                completed_at: None,
            })
    }
}
