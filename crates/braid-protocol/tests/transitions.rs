//! The transition table: every allowed move, a sample of forbidden ones, and the flows of
//! DESIGN.md walking only through allowed moves.

use braid_protocol::*;
use std::collections::HashSet;

fn sample(kind: StateKind) -> ContextState {
    match kind {
        StateKind::Idle => ContextState::Idle,
        StateKind::ProcessingUserMessage => ContextState::ProcessingUserMessage,
        StateKind::ResolvingFileReferences => ContextState::ResolvingFileReferences { total: 2 },
        StateKind::RecognizingImages => ContextState::RecognizingImages { total: 1 },
        StateKind::EnhancingSystemPrompt => ContextState::EnhancingSystemPrompt,
        StateKind::OptimizingContext => ContextState::OptimizingContext,
        StateKind::PreparingLlmRequest => ContextState::PreparingLlmRequest,
        StateKind::ConnectingToLlm => ContextState::ConnectingToLlm {
            attempt: 1,
            reason: None,
            wait_ms: None,
        },
        StateKind::AwaitingLlmFirstChunk => ContextState::AwaitingLlmFirstChunk,
        StateKind::StreamingLlmResponse => ContextState::StreamingLlmResponse {
            chunks: 1,
            chars: 5,
        },
        StateKind::ProcessingLlmResponse => ContextState::ProcessingLlmResponse,
        StateKind::ParsingToolCalls => ContextState::ParsingToolCalls,
        StateKind::ToolAutoLoop => ContextState::ToolAutoLoop {
            depth: 1,
            tools_executed: 0,
        },
        StateKind::AwaitingToolApproval => ContextState::AwaitingToolApproval {
            pending_requests: vec![ToolCallId::from("c1")],
            tool_names: vec!["write_file".into()],
            offered_rules: Vec::new(),
        },
        StateKind::ExecutingTool => ContextState::ExecutingTool {
            tool_name: "read_file".into(),
            index: 2,
            total: 5,
            attempt: 1,
            finished: 0,
        },
        StateKind::CollectingToolResults => ContextState::CollectingToolResults,
        StateKind::ProcessingToolResults => ContextState::ProcessingToolResults,
        StateKind::AwaitingUserAnswer => ContextState::AwaitingUserAnswer {
            question_id: MessageId::new(),
        },
        StateKind::ExecutingWorkflow => ContextState::ExecutingWorkflow {
            workflow_name: "w".into(),
            execution_id: "e".into(),
            step: 1,
            total: 3,
        },
        StateKind::Paused => ContextState::Paused {
            reason: LoopStopReason::DepthLimit,
            depth: 3,
            tools_executed: 4,
        },
        StateKind::Failed => ContextState::Failed {
            error: "boom".into(),
            recoverable: true,
        },
    }
}

#[test]
fn every_state_kind_has_a_sample_of_that_kind() {
    for k in StateKind::ALL {
        assert_eq!(sample(k).kind(), k);
    }
}

#[test]
fn every_allowed_transition_is_accepted() {
    let mut count = 0;
    for from in StateKind::ALL {
        for &to in from.successors() {
            assert!(
                sample(from).check_transition(&sample(to)).is_ok(),
                "{from} -> {to}"
            );
            count += 1;
        }
    }
    assert!(count > 60, "the table has {count} moves");
}

#[test]
fn every_state_may_fail_and_a_failure_may_replace_a_failure() {
    for from in StateKind::ALL {
        assert!(from.can_move_to(StateKind::Failed), "{from}");
    }
}

#[test]
fn moves_outside_the_table_are_refused() {
    let allowed: HashSet<(StateKind, StateKind)> = StateKind::ALL
        .iter()
        .flat_map(|&f| StateKind::ALL.iter().map(move |&t| (f, t)))
        .filter(|(f, t)| f.can_move_to(*t))
        .collect();
    let mut refused = 0;
    for from in StateKind::ALL {
        for to in StateKind::ALL {
            if !allowed.contains(&(from, to)) {
                let err = sample(from).check_transition(&sample(to)).unwrap_err();
                assert_eq!((err.from, err.to), (from, to));
                refused += 1;
            }
        }
    }
    assert!(refused > 300);
}

#[test]
fn sample_forbidden_transitions() {
    use StateKind::*;
    for (from, to) in [
        (Idle, StreamingLlmResponse),
        (Idle, ExecutingTool),
        (Idle, Idle),
        (StreamingLlmResponse, ExecutingTool),
        (AwaitingToolApproval, ConnectingToLlm),
        (ExecutingTool, Idle),
        (CollectingToolResults, Idle),
        (Failed, StreamingLlmResponse),
        (ConnectingToLlm, Idle),
        (AwaitingUserAnswer, ExecutingTool),
    ] {
        assert!(!from.can_move_to(to), "{from} -> {to} should be refused");
    }
    let err = ContextState::Idle
        .check_transition(&ContextState::ExecutingTool {
            tool_name: "x".into(),
            index: 1,
            total: 1,
            attempt: 1,
            finished: 0,
        })
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "a context cannot move from `idle` to `executing_tool`"
    );
}

fn walk(path: &[StateKind]) {
    for pair in path.windows(2) {
        assert!(pair[0].can_move_to(pair[1]), "{} -> {}", pair[0], pair[1]);
    }
}

#[test]
fn simple_text_turn_is_a_legal_walk() {
    use StateKind::*;
    walk(&[
        Idle,
        ProcessingUserMessage,
        ResolvingFileReferences,
        EnhancingSystemPrompt,
        OptimizingContext,
        PreparingLlmRequest,
        ConnectingToLlm,
        AwaitingLlmFirstChunk,
        StreamingLlmResponse,
        StreamingLlmResponse,
        ProcessingLlmResponse,
        Idle,
    ]);
}

#[test]
fn tool_loop_with_approval_is_a_legal_walk() {
    use StateKind::*;
    walk(&[
        StreamingLlmResponse,
        ProcessingLlmResponse,
        ParsingToolCalls,
        ToolAutoLoop,
        AwaitingToolApproval,
        ExecutingTool,
        ExecutingTool,
        CollectingToolResults,
        ProcessingToolResults,
        EnhancingSystemPrompt,
        PreparingLlmRequest,
        ConnectingToLlm,
        ConnectingToLlm,
        AwaitingLlmFirstChunk,
        ProcessingLlmResponse,
        Idle,
    ]);
}

#[test]
fn interruption_question_and_failure_recovery_are_legal_walks() {
    use StateKind::*;
    walk(&[
        ToolAutoLoop,
        ExecutingTool,
        CollectingToolResults,
        ProcessingToolResults,
        Paused,
        ToolAutoLoop,
    ]);
    walk(&[
        ProcessingLlmResponse,
        AwaitingUserAnswer,
        ProcessingUserMessage,
    ]);
    walk(&[StreamingLlmResponse, Failed, ProcessingUserMessage]);
    walk(&[ExecutingWorkflow, ExecutingWorkflow, Idle]);
}

#[test]
fn resting_states_are_those_that_wait_for_a_person() {
    let resting: Vec<StateKind> = StateKind::ALL
        .into_iter()
        .filter(|k| k.is_resting())
        .collect();
    assert_eq!(
        resting,
        vec![
            StateKind::Idle,
            StateKind::AwaitingToolApproval,
            StateKind::AwaitingUserAnswer,
            StateKind::Paused,
            StateKind::Failed
        ]
    );
}

#[test]
fn state_kind_names_match_state_json() {
    for k in StateKind::ALL {
        let state = sample(k);
        let v = serde_json::to_value(&state).unwrap();
        assert_eq!(v["type"], k.as_str());
        assert_eq!(serde_json::to_value(k).unwrap(), k.as_str());
        let back: ContextState = serde_json::from_value(v).unwrap();
        assert_eq!(back, state);
    }
}
