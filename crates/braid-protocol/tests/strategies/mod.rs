//! Strategies that generate valid messages of every kind, shared by the round-trip, fuzz and
//! defaults property tests.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use braid_protocol::merge::{ConflictResolution, MergeStrategyName, Resolution};
use braid_protocol::*;
use chrono::{DateTime, TimeZone, Utc};
use proptest::collection::vec;
use proptest::option;
use proptest::prelude::*;
use serde_json::{Value, json};

pub fn text() -> impl Strategy<Value = String> {
    // Printable text including non-ASCII and JSON-escaped characters.
    "[a-zA-Z0-9 _\\-\\.\"\\\\/\n\té漢🙂]{0,24}"
}

pub fn name() -> impl Strategy<Value = String> {
    "[a-z][a-z0-9_]{0,12}"
}

pub fn timestamp() -> impl Strategy<Value = DateTime<Utc>> {
    (0i64..4_000_000_000, 0u32..1_000_000_000)
        .prop_map(|(s, n)| Utc.timestamp_opt(s, n).single().unwrap())
}

pub fn json_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(|n| json!(n)),
        (-1000i32..1000).prop_map(|n| json!(f64::from(n) / 8.0)),
        text().prop_map(Value::String),
    ];
    leaf.prop_recursive(3, 16, 4, |inner| {
        prop_oneof![
            vec(inner.clone(), 0..4).prop_map(Value::Array),
            vec((name(), inner), 0..4).prop_map(|kv| Value::Object(kv.into_iter().collect())),
        ]
    })
}

pub fn json_object() -> impl Strategy<Value = Value> {
    vec((name(), json_value()), 0..4).prop_map(|kv| Value::Object(kv.into_iter().collect()))
}

pub fn error_detail() -> impl Strategy<Value = ErrorDetail> {
    (
        text(),
        option::of(name()),
        option::of(text()),
        any::<bool>(),
        option::of(json_object()),
    )
        .prop_map(
            |(message, code, stack_trace, recoverable, details)| ErrorDetail {
                message,
                code,
                stack_trace,
                recoverable,
                details,
            },
        )
}

pub fn approval() -> impl Strategy<Value = ApprovalStatus> {
    prop_oneof![
        Just(ApprovalStatus::Pending),
        Just(ApprovalStatus::Approved),
        Just(ApprovalStatus::Denied)
    ]
}

pub fn line_range() -> impl Strategy<Value = LineRange> {
    (1u32..500, 0u32..50).prop_map(|(s, len)| LineRange {
        start_line: s,
        end_line: s + len,
    })
}

pub fn file_info() -> impl Strategy<Value = FileInfo> {
    (text(), any::<u64>(), name(), option::of(name())).prop_map(|(path, size, mime, language)| {
        FileInfo {
            path,
            size,
            mime_type: mime,
            language,
        }
    })
}

pub fn directory() -> impl Strategy<Value = DirectoryNode> {
    let leaf =
        (name(), text(), vec(file_info(), 0..3)).prop_map(|(name, path, files)| DirectoryNode {
            name,
            path,
            directories: vec![],
            files,
        });
    leaf.prop_recursive(2, 8, 3, |inner| {
        (name(), text(), vec(inner, 0..3), vec(file_info(), 0..2)).prop_map(
            |(name, path, directories, files)| DirectoryNode {
                name,
                path,
                directories,
                files,
            },
        )
    })
}

pub fn dependency_graph() -> impl Strategy<Value = DependencyGraph> {
    let node = (name(), name(), option::of(name()), 0..3usize, 0..3usize).prop_map(
        |(id, name, version, eco, rel)| DependencyNode {
            id,
            name,
            version,
            ecosystem: [Ecosystem::Cargo, Ecosystem::Npm, Ecosystem::Python][eco],
            relation: [
                DependencyRelation::Root,
                DependencyRelation::Direct,
                DependencyRelation::Transitive,
            ][rel],
        },
    );
    let edge = (name(), name(), 0..4usize).prop_map(|(from, to, scope)| DependencyEdge {
        from,
        to,
        scope: [
            DependencyScope::Normal,
            DependencyScope::Dev,
            DependencyScope::Build,
            DependencyScope::Optional,
        ][scope],
    });
    (vec(text(), 0..2), vec(node, 0..4), vec(edge, 0..4)).prop_map(|(sources, packages, edges)| {
        DependencyGraph {
            sources,
            packages,
            edges,
        }
    })
}

pub fn kind() -> impl Strategy<Value = MessageKind> {
    let text_kind = vec(
        prop_oneof![
            text().prop_map(|text| TextPart::Text { text }),
            text().prop_map(|text| TextPart::Reasoning { text }),
        ],
        0..3,
    )
    .prop_map(|parts| MessageKind::Text(TextMessage { parts }));

    let image = (
        prop_oneof![
            text().prop_map(|url| ImageSource::Url { url }),
            (name(), text())
                .prop_map(|(media_type, data)| ImageSource::Base64 { media_type, data }),
            text().prop_map(|path| ImageSource::FilePath { path }),
        ],
        0..3usize,
        option::of(text()),
        option::of((
            any::<bool>(),
            option::of(text()),
            option::of(text()),
            option::of((0u8..=100).prop_map(f32::from)),
            option::of(name()),
            option::of(text()),
            timestamp(),
        )),
        option::of(error_detail()),
    )
        .prop_map(|(source, mode, caption, rec, error)| {
            MessageKind::Image(Box::new(ImageMessage {
                source,
                recognition_mode: [
                    RecognitionMode::Vision,
                    RecognitionMode::Ocr,
                    RecognitionMode::Auto,
                ][mode],
                caption,
                recognition: rec.map(|(vision, va, rt, confidence, language, notice, at)| {
                    RecognitionResult {
                        method: if vision {
                            RecognitionMethod::Vision
                        } else {
                            RecognitionMethod::Ocr
                        },
                        vision_analysis: va,
                        recognized_text: rt,
                        confidence,
                        language,
                        notice,
                        recognized_at: at,
                    }
                }),
                error,
                prepared: None,
            }))
        });

    let file_reference = (
        text(),
        option::of(line_range()),
        option::of(text()),
        prop_oneof![
            Just(FileResolution::Pending),
            (text(), any::<u32>(), any::<u64>(), timestamp()).prop_map(
                |(content, total_lines, size_bytes, resolved_at)| {
                    FileResolution::Resolved {
                        content,
                        total_lines,
                        size_bytes,
                        resolved_at,
                    }
                }
            ),
            text().prop_map(|error| FileResolution::Failed { error }),
        ],
    )
        .prop_map(|(path, range, display_text, resolution)| {
            MessageKind::FileReference(Box::new(FileReferenceMessage {
                path,
                range,
                display_text,
                resolution,
            }))
        });

    let project = (
        text(),
        prop_oneof![
            directory().prop_map(ProjectStructureContent::Tree),
            vec(file_info(), 0..4).prop_map(ProjectStructureContent::FileList),
            dependency_graph().prop_map(ProjectStructureContent::Dependencies),
        ],
        timestamp(),
        vec(text(), 0..3),
    )
        .prop_map(|(root_path, content, generated_at, excluded_patterns)| {
            MessageKind::ProjectStructure(Box::new(ProjectStructureMessage {
                root_path,
                content,
                generated_at,
                excluded_patterns,
            }))
        });

    let tool_request = vec((name(), name(), json_value(), approval()), 0..4).prop_map(|calls| {
        MessageKind::ToolRequest(ToolRequestMessage {
            calls: calls
                .into_iter()
                .map(|(id, name, arguments, approval_status)| ToolCall {
                    id: ToolCallId(id),
                    name,
                    arguments,
                    approval_status,
                })
                .collect(),
        })
    });

    let outcome = prop_oneof![
        json_value().prop_map(|output| ToolOutcome::Success { output }),
        error_detail().prop_map(|error| ToolOutcome::Error { error }),
    ];
    let tool_result = (
        name(),
        name(),
        outcome,
        any::<u64>(),
        option::of(timestamp()),
        option::of(timestamp()),
    )
        .prop_map(
            |(call_id, tool_name, outcome, duration_ms, started_at, completed_at)| {
                MessageKind::ToolResult(Box::new(ToolResultMessage {
                    call_id: ToolCallId(call_id),
                    tool_name,
                    outcome,
                    duration_ms,
                    started_at,
                    completed_at,
                }))
            },
        );

    let mcp_request = (
        name(),
        name(),
        name(),
        json_object(),
        name(),
        approval(),
        timestamp(),
    )
        .prop_map(
            |(
                server_name,
                tool_name,
                called_as,
                arguments,
                request_id,
                approval_status,
                requested_at,
            )| {
                MessageKind::McpToolRequest(Box::new(McpToolRequestMessage {
                    server_name,
                    tool_name,
                    called_as,
                    arguments,
                    request_id: ToolCallId(request_id),
                    approval_status,
                    requested_at,
                }))
            },
        );
    let mcp_outcome = prop_oneof![
        json_value().prop_map(|result| McpOutcome::Success { result }),
        (error_detail(), json_value())
            .prop_map(|(error, result)| McpOutcome::Error { error, result }),
    ];
    let mcp_result = (
        name(),
        name(),
        name(),
        mcp_outcome,
        timestamp(),
        any::<u64>(),
    )
        .prop_map(
            |(server_name, tool_name, request_id, outcome, executed_at, duration_ms)| {
                MessageKind::McpToolResult(Box::new(McpToolResultMessage {
                    server_name,
                    tool_name,
                    request_id: ToolCallId(request_id),
                    outcome,
                    executed_at,
                    duration_ms,
                }))
            },
        );
    let mcp_resource = (
        name(),
        text(),
        option::of(text()),
        prop_oneof![
            text().prop_map(|text| ResourceContent::Text { text }),
            (any::<u64>(), text()).prop_map(|(size_bytes, summary)| ResourceContent::Binary {
                size_bytes,
                summary
            }),
        ],
        option::of(name()),
        timestamp(),
    )
        .prop_map(
            |(server_name, resource_uri, name, content, mime_type, retrieved_at)| {
                MessageKind::McpResource(Box::new(McpResourceMessage {
                    server_name,
                    resource_uri,
                    name,
                    content,
                    mime_type,
                    retrieved_at,
                }))
            },
        );

    let workflow = (
        name(),
        name(),
        0..6usize,
        option::of(text()),
        any::<u32>(),
        any::<u32>(),
        timestamp(),
        timestamp(),
        option::of(json_value()),
        option::of(error_detail()),
    )
        .prop_map(
            |(
                workflow_name,
                execution_id,
                status,
                current_step,
                total_steps,
                completed_steps,
                started_at,
                updated_at,
                result,
                error,
            )| {
                MessageKind::WorkflowExecution(Box::new(WorkflowExecutionMessage {
                    workflow_name,
                    execution_id,
                    status: [
                        WorkflowStatus::Pending,
                        WorkflowStatus::Running,
                        WorkflowStatus::Paused,
                        WorkflowStatus::Completed,
                        WorkflowStatus::Failed,
                        WorkflowStatus::Cancelled,
                    ][status],
                    current_step,
                    total_steps,
                    completed_steps,
                    started_at,
                    updated_at,
                    // `Some(null)` and `None` are the same JSON: generate only the distinguishable one.
                    result: result.filter(|v| !v.is_null()),
                    awaiting_approval: None,
                    error,
                }))
            },
        );

    let mode = prop_oneof![Just(Mode::Plan), Just(Mode::Act)];
    let control = prop_oneof![
        (mode.clone(), mode).prop_map(|(from, to)| SystemControlMessage::ModeChange { from, to }),
        (any::<bool>(), any::<bool>()).prop_map(|(f, t)| {
            let role = |planner| {
                if planner {
                    AgentRole::Planner
                } else {
                    AgentRole::Actor
                }
            };
            SystemControlMessage::RoleChange {
                from: role(f),
                to: role(t),
            }
        }),
        (
            name(),
            0..4usize,
            any::<u32>(),
            any::<u32>(),
            any::<u32>(),
            vec((name(), 0..4usize), 0..3)
        )
            .prop_map(|(source, s, moved, skipped, removed, resolutions)| {
                SystemControlMessage::BranchMerge {
                    source: BranchName(source),
                    strategy: [
                        MergeStrategyName::Append,
                        MergeStrategyName::CherryPick,
                        MergeStrategyName::Rebase,
                        MergeStrategyName::Summary,
                    ][s],
                    moved,
                    skipped,
                    removed,
                    resolutions: resolutions
                        .into_iter()
                        .map(|(conflict, r)| ConflictResolution {
                            conflict,
                            resolution: [
                                Resolution::KeepTarget,
                                Resolution::TakeSource,
                                Resolution::KeepBoth,
                                Resolution::Skip,
                            ][r],
                        })
                        .collect(),
                }
            }),
        (name(), name()).prop_map(|(f, t)| SystemControlMessage::BranchSwitch {
            from: BranchName(f),
            to: BranchName(t)
        }),
        (text(), vec(Just(()), 0..3), any::<u32>(), any::<u32>()).prop_map(
            |(text, ids, tokens_before, tokens_after)| {
                SystemControlMessage::Summary {
                    text,
                    replaces: ids.into_iter().map(|()| MessageId::new()).collect(),
                    tokens_before,
                    tokens_after,
                }
            }
        ),
        (0..4usize, any::<u32>(), any::<u32>(), text()).prop_map(
            |(r, depth, tools_executed, detail)| {
                SystemControlMessage::LoopStopped {
                    reason: [
                        LoopStopReason::DepthLimit,
                        LoopStopReason::Timeout,
                        LoopStopReason::Interrupted,
                        LoopStopReason::CycleDetected,
                    ][r],
                    depth,
                    tools_executed,
                    detail,
                }
            }
        ),
        (name(), text()).prop_map(
            |(interrupted_state, detail)| SystemControlMessage::Recovered {
                interrupted_state,
                detail
            }
        ),
        text().prop_map(|error| SystemControlMessage::FailureResolved { error }),
    ]
    .prop_map(MessageKind::SystemControl);

    let processing = (
        text(),
        option::of(text()),
        option::of((any::<u32>(), any::<u32>())),
    )
        .prop_map(|(activity, detail, p)| {
            MessageKind::Processing(ProcessingMessage {
                activity,
                detail,
                progress: p.map(|(done, total)| Progress { done, total }),
            })
        });

    let plan = (
        text(),
        vec(
            (
                any::<u32>(),
                text(),
                text(),
                vec(name(), 0..3),
                option::of(text()),
                vec(text(), 0..3),
            ),
            0..4,
        ),
    )
        .prop_map(|(goal, steps)| {
            MessageKind::Plan(PlanMessage {
                goal,
                steps: steps
                    .into_iter()
                    .map(
                        |(step_number, action, reason, tools_needed, estimated_time, risks)| {
                            PlanStep {
                                step_number,
                                action,
                                reason,
                                tools_needed,
                                estimated_time,
                                risks,
                            }
                        },
                    )
                    .collect(),
            })
        });

    let question = (
        text(),
        vec((text(), text()), 0..4),
        option::of(text()),
        0..3usize,
        option::of(text()),
        option::of((text(), timestamp())),
    )
        .prop_map(|(question, options, context, severity, default, answer)| {
            MessageKind::Question(Box::new(QuestionMessage {
                question,
                options: options
                    .into_iter()
                    .map(|(label, value)| QuestionOption { label, value })
                    .collect(),
                context,
                severity: [Severity::Critical, Severity::Major, Severity::Minor][severity],
                default,
                answer: answer.map(|(value, answered_at)| QuestionAnswer { value, answered_at }),
            }))
        });

    prop_oneof![
        text_kind,
        image,
        file_reference,
        project,
        tool_request,
        tool_result,
        mcp_request,
        mcp_result,
        mcp_resource,
        workflow,
        control,
        processing,
        plan,
        question,
    ]
}

pub fn message() -> impl Strategy<Value = Message> {
    (
        kind(),
        0..4usize,
        0..6usize,
        timestamp(),
        timestamp(),
        json_object(),
        option::of(error_detail()),
    )
        .prop_map(
            |(kind, role, status, created_at, updated_at, metadata, error)| Message {
                id: MessageId::new(),
                role: Role::ALL[role],
                kind,
                status: [
                    MessageStatus::Pending,
                    MessageStatus::Processing,
                    MessageStatus::Streaming,
                    MessageStatus::Complete,
                    MessageStatus::Failed,
                    MessageStatus::Incomplete,
                ][status],
                created_at,
                updated_at,
                metadata: match metadata {
                    Value::Object(m) => m,
                    _ => unreachable!(),
                },
                error: error.map(Box::new),
            },
        )
}
