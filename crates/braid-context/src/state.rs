//! The state machine of one context: the current state, the checked move to the next one, and
//! the history of moves that tests and `GET .../state?history=true` read. The actor emits the
//! `context_update` for each move.

use std::collections::VecDeque;

use braid_protocol::{ContextState, InvalidTransition, StateTransition};
use chrono::Utc;

/// How many transitions the history keeps.
pub const HISTORY_LIMIT: usize = 10_000;

/// A context's state and its recent transitions.
#[derive(Debug, Default)]
pub struct StateMachine {
    current: ContextState,
    history: VecDeque<StateTransition>,
}

impl StateMachine {
    /// A machine starting in `state` (the persisted one when a context is loaded).
    pub fn new(state: ContextState) -> Self {
        Self {
            current: state,
            history: VecDeque::new(),
        }
    }

    /// The current state.
    pub fn current(&self) -> &ContextState {
        &self.current
    }

    /// Moves to `to` if the protocol's transition table allows it, recording the move. Answers
    /// the previous state.
    pub fn move_to(&mut self, to: ContextState) -> Result<ContextState, InvalidTransition> {
        self.current.check_transition(&to)?;
        let from = std::mem::replace(&mut self.current, to);
        if self.history.len() == HISTORY_LIMIT {
            self.history.pop_front();
        }
        self.history.push_back(StateTransition {
            from: from.clone(),
            to: self.current.clone(),
            at: Utc::now(),
        });
        Ok(from)
    }

    /// The recorded transitions, oldest first.
    pub fn history(&self) -> Vec<StateTransition> {
        self.history.iter().cloned().collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn allowed_moves_are_recorded_in_order() {
        let mut m = StateMachine::default();
        m.move_to(ContextState::ProcessingUserMessage).unwrap();
        m.move_to(ContextState::EnhancingSystemPrompt).unwrap();
        let h = m.history();
        assert_eq!(h.len(), 2);
        assert_eq!(h[0].from, ContextState::Idle);
        assert_eq!(h[1].to, ContextState::EnhancingSystemPrompt);
    }

    #[test]
    fn forbidden_moves_change_nothing() {
        let mut m = StateMachine::default();
        let err = m
            .move_to(ContextState::StreamingLlmResponse {
                chunks: 1,
                chars: 1,
            })
            .unwrap_err();
        assert_eq!(err.to.as_str(), "streaming_llm_response");
        assert_eq!(m.current(), &ContextState::Idle);
        assert!(m.history().is_empty());
    }

    #[test]
    fn a_newer_failure_replaces_the_recorded_one_as_a_move() {
        let mut m = StateMachine::default();
        m.move_to(ContextState::Failed {
            error: "a".into(),
            recoverable: true,
        })
        .unwrap();
        m.move_to(ContextState::Failed {
            error: "b".into(),
            recoverable: false,
        })
        .unwrap();
        assert_eq!(
            m.current(),
            &ContextState::Failed {
                error: "b".into(),
                recoverable: false
            }
        );
        assert_eq!(m.history().len(), 2);
    }
}
