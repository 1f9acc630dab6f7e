//! `OptimizeContext`: fits the history to the model's context window (DESIGN.md
//! "Optimization"). The request is counted as the provider will receive it; when it is over the
//! budget the context's strategy chooses what is sent, and with `intelligent` the oldest dropped
//! messages are summarized by the model. Every optimization is logged and reported in the
//! draft, for the actor's `context_update`.

use std::sync::Arc;

use async_trait::async_trait;
use braid_llm::{LlmClient, ModelCapabilities, ToolDefinition};
use std::collections::{HashMap, HashSet};

use braid_protocol::{
    CompactionRecord, ContextState, LedgerPart, Message, MessageId, MessageKind, Metadata,
    ModelRequestId, ModelRequestRecord, OptimizationStrategy, RequestBudget, Role, SentAs,
    SentMessage, SystemControlMessage, ToolsPart,
};
use serde::Serialize;
use serde_json::{Value, json};

use super::frame::{Frame, PlanKey};
use super::system_prompt::{ToolOffer, offered_tool_count, request_frame, tool_calling};
use super::{Draft, PipelineContext, PipelineError, ProcessResult, Processor, ProcessorName};
use braid_optimizer::summary::{self, MAX_SUMMARY_TOKENS, SUMMARY_PROMPT};
use braid_optimizer::{
    Budget, LedgerBlock, Plan, PlanError, Prepared, RequestParts, Slot, TokenCounter, plan,
};

/// Fits the history to the budget.
pub struct OptimizeContext;

/// What happened to a summarization attempt.
#[derive(Debug)]
enum SummaryOutcome {
    /// The summary is used and will be stored.
    Used {
        message: Box<Message>,
        replaced: Vec<MessageId>,
    },
    /// No summary: the oldest messages are dropped instead, for this reason.
    FellBack(String),
}

#[async_trait]
impl Processor for OptimizeContext {
    fn name(&self) -> ProcessorName {
        ProcessorName::OptimizeContext
    }

    fn state(&self, _: &Draft) -> Option<ContextState> {
        Some(ContextState::OptimizingContext)
    }

    async fn process(
        &self,
        draft: &mut Draft,
        ctx: &PipelineContext,
    ) -> Result<ProcessResult, PipelineError> {
        let started = std::time::Instant::now();
        let capabilities = discovered_capabilities(ctx).await;
        let counter = TokenCounter::new(&capabilities);
        let budget = Budget::for_config(&ctx.config, &capabilities);
        let strategy = &ctx.config.optimization.strategy;
        let mut input = ctx.history.clone();
        input.extend(draft.messages.iter().cloned());
        let Fitting {
            plan: first,
            withheld,
            prepared,
            tools_tokens,
            reserved,
        } = plan_fitting(
            ctx,
            ctx.kept_frame.0.as_deref(),
            &mut draft.system_prompt,
            &mut draft.tools,
            &input,
            budget,
            &counter,
        )
        .map_err(|e| PipelineError::Request(e.to_string()))?;
        let tokens_before = prepared.tokens_before(budget);
        let first_optimized = first.optimized();
        let mut outcome = None;
        // The input with the new summary and its plan, when the request uses it.
        let mut summarized: Option<(Vec<Message>, Plan)> = None;
        if let (true, OptimizationStrategy::Intelligent, Some(llm), false) = (
            first_optimized,
            strategy,
            &ctx.llm,
            first.summarizable.is_empty(),
        ) {
            let attempt = summarize(llm.as_ref(), ctx, &first, &input, &counter, budget).await;
            if let SummaryOutcome::Used { message, .. } = &attempt {
                let mut with = input.clone();
                with.push((**message).clone());
                let with_summary = plan(
                    &RequestParts {
                        system_prompt: draft.system_prompt.as_deref(),
                        tool_tokens: tools_tokens,
                        reserved_tokens: 0,
                        messages: &with,
                    },
                    strategy,
                    budget,
                    &counter,
                )
                .map_err(|e| PipelineError::Request(e.to_string()))?;
                let kept = with_summary
                    .slots
                    .iter()
                    .any(|s| matches!(s, Slot::Summary(i) if *i == with.len() - 1));
                if kept {
                    outcome = Some(attempt);
                    summarized = Some((with, with_summary));
                } else {
                    outcome = Some(SummaryOutcome::FellBack(
                        "the summary did not fit beside the newest messages: the oldest messages were dropped instead".to_owned(),
                    ));
                }
            } else {
                outcome = Some(attempt);
            }
        }
        let with_summary;
        let prepared_with_summary;
        // The plan chosen, with the room it was made around.
        let (input, chosen, prepared) = match summarized {
            Some((with, plan)) => {
                with_summary = with;
                prepared_with_summary = Prepared::of(
                    &with_summary,
                    draft.system_prompt.as_deref(),
                    tools_tokens,
                    &counter,
                );
                (with_summary.as_slice(), (plan, 0), &prepared_with_summary)
            }
            None => (input.as_slice(), (first, reserved), &prepared),
        };
        let (chosen, ledger) = with_ledger(ctx, chosen, prepared, budget, &counter);
        let mut messages = Vec::with_capacity(chosen.slots.len() + 1);
        if let Some(block) = &ledger {
            messages.push(block.message());
        }
        messages.extend(chosen.request_messages(input));
        let mut record = describe(
            ctx,
            draft,
            Sent {
                plan: &chosen,
                prepared,
                ledger: ledger.as_ref(),
                messages: &messages,
                tools_tokens,
            },
            budget,
            &counter,
        );
        let compaction = compaction(
            &chosen,
            tokens_before,
            input,
            outcome.as_ref(),
            &record,
            started.elapsed(),
        );
        if chosen.optimized() || compaction.is_some() {
            tracing::info!(
                strategy = ?chosen.strategy,
                tokens_before,
                tokens_after = chosen.tokens_after,
                limit = chosen.limit,
                dropped = chosen.dropped.len(),
                truncated = chosen.truncated.len(),
                elided = chosen.elided.len(),
                ledger_tokens = record.ledger.as_ref().map(|l| l.tokens),
                summarized = matches!(outcome, Some(SummaryOutcome::Used { .. })),
                fallback = outcome.as_ref().and_then(|o| match o {
                    SummaryOutcome::FellBack(reason) => Some(reason.as_str()),
                    SummaryOutcome::Used { .. } => None,
                }),
                "context optimized"
            );
        }
        draft.optimized = Some(messages);
        if first_optimized {
            let mut report = report(
                tokens_before,
                &chosen,
                &counter,
                outcome.as_ref(),
                record.id,
            );
            if let (Some(withheld), Some(Value::Object(details))) =
                (&withheld, report.get_mut("optimization"))
            {
                details.insert("tools_withheld".to_owned(), json!(withheld));
            }
            draft.optimization = Some(report);
        } else if let Some(withheld) = &withheld {
            let mut metadata = Metadata::new();
            metadata.insert(
                "optimization".to_owned(),
                json!({ "tools_withheld": withheld }),
            );
            draft.optimization = Some(metadata);
        }
        if let Some(SummaryOutcome::Used { message, .. }) = outcome {
            draft.notes.push(*message);
        }
        if let Some(note) = compaction {
            record.compaction_id = Some(note.id);
            draft.notes.push(note);
        }
        draft.record = Some(record);
        Ok(ProcessResult::Continue)
    }
}

/// [`braid_optimizer::ledger::fit`] for this request (`plan` is a plan of `prepared` around the
/// room it was made with), keeping the room the ledger took for the branch's next request; a
/// prompt with no room for the ledger goes without it, said in the log.
fn with_ledger(
    ctx: &PipelineContext,
    (plan, reserved): (Plan, u32),
    prepared: &Prepared<'_>,
    budget: Budget,
    counter: &TokenCounter,
) -> (Plan, Option<LedgerBlock>) {
    let strategy = &ctx.config.optimization.strategy;
    let percent = ctx.config.optimization.ledger_percent;
    let mut kept = ctx.kept_ledger.lock();
    let fitted = braid_optimizer::ledger::fit(
        (plan, reserved),
        prepared,
        strategy,
        budget,
        counter,
        percent,
        &mut kept.start,
    );
    match fitted {
        Ok(fitted) => {
            kept.room = fitted.room;
            (fitted.plan, fitted.block)
        }
        Err((plan, error)) => {
            kept.room = 0;
            tracing::warn!(%error, "no room for the ledger beside the newest messages: this request goes without it");
            (*plan, None)
        }
    }
}

/// What a request sends: the plan of the input (as prepared: its messages counted), the
/// ledger block, and the messages they make.
struct Sent<'a> {
    plan: &'a Plan,
    prepared: &'a Prepared<'a>,
    ledger: Option<&'a LedgerBlock>,
    /// The ledger block and the plan's messages, in order.
    messages: &'a [Message],
    /// Tokens of the tool definitions sent.
    tools_tokens: u32,
}

/// The record of the request `sent` describes (see [`ModelRequestRecord`]).
fn describe(
    ctx: &PipelineContext,
    draft: &Draft,
    sent: Sent<'_>,
    budget: Budget,
    counter: &TokenCounter,
) -> ModelRequestRecord {
    let Sent {
        plan,
        prepared,
        ledger,
        messages: request,
        tools_tokens,
    } = sent;
    let input = prepared.messages();
    // Counted as the plan was made: every slot is of a message the plan counted (one no
    // request sends counts 0, as the counter gives it).
    let counted = |i: usize| prepared.tokens_of(i).unwrap_or_default();
    let system_prompt_tokens = counter.system_prompt(draft.system_prompt.as_deref());
    let tools = ToolsPart {
        names: draft.tools.iter().map(|t| t.name.clone()).collect(),
        tokens: tools_tokens,
    };
    let ledger = ledger.map(|block| LedgerPart {
        tokens: block.tokens,
        listed: block.listed,
        collapsed: block.collapsed,
        text: block.text.clone(),
    });
    let elided: HashMap<MessageId, u32, foldhash::fast::RandomState> = plan
        .elided
        .iter()
        .map(|(id, _, after)| (*id, *after))
        .collect();
    let messages: Vec<SentMessage> = plan
        .slots
        .iter()
        .filter_map(|slot| {
            Some(match slot {
                Slot::Message(i) => {
                    let m = input.get(*i)?;
                    SentMessage {
                        id: m.id,
                        sent_as: SentAs::Whole,
                        tokens: counted(*i),
                    }
                }
                Slot::Summary(i) => {
                    let m = input.get(*i)?;
                    SentMessage {
                        id: m.id,
                        sent_as: SentAs::Summary {
                            replaces: braid_optimizer::summary_replaces(m)
                                .map(<[MessageId]>::to_vec)
                                .unwrap_or_default(),
                        },
                        tokens: counted(*i),
                    }
                }
                Slot::Truncated(i, copy) => {
                    let m = input.get(*i)?;
                    SentMessage {
                        id: m.id,
                        sent_as: SentAs::Truncated {
                            tokens_before: counted(*i),
                        },
                        tokens: counter.message_uncached(copy),
                    }
                }
                Slot::Elided(i) => {
                    let m = input.get(*i)?;
                    SentMessage {
                        id: m.id,
                        sent_as: SentAs::Elided {
                            tokens_before: counted(*i),
                        },
                        tokens: elided.get(&m.id).copied().unwrap_or_default(),
                    }
                }
            })
        })
        .collect();
    // As the provider receives it: adjacent user texts (the ledger and the message after it)
    // and a turn's messages are joined, so this is not the sum of the parts. A message sent
    // alone is not counted again: its entry above has its count (none when the entry has no
    // count). The request is the ledger block (counted from its text), then one message per
    // entry, in order.
    let first = usize::from(ledger.is_some());
    let known = |i: usize| {
        let entry = messages.get(i.checked_sub(first)?)?;
        (entry.id == request.get(i)?.id && entry.tokens > 0).then_some(entry.tokens)
    };
    let tokens = counter.request_with(
        draft.system_prompt.as_deref(),
        request,
        tool_calling(ctx),
        known,
    ) + tools.tokens
        + braid_optimizer::tokens::REPLY_PRIMING;
    ModelRequestRecord {
        id: ModelRequestId::new(),
        branch: ctx.branch.clone(),
        answer_turn_id: None,
        created_at: chrono::Utc::now(),
        model: ctx.model.clone(),
        encoding: counter.encoding().name().to_owned(),
        budget: RequestBudget {
            window: budget.window,
            reserve_output: budget.reserve_output,
            margin: budget.margin,
            limit: budget.limit(),
        },
        tokens,
        calibrated_tokens: (f64::from(tokens) * plan.calibration)
            .ceil()
            .min(f64::from(u32::MAX)) as u32,
        system_prompt_tokens,
        tools,
        ledger,
        messages,
        dropped: plan.dropped.clone(),
        compaction_id: None,
    }
}

/// A compaction note when this request leaves out messages no earlier compaction of the branch
/// recorded (dropped, summarized or elided): the conversation shows every one.
fn compaction(
    plan: &Plan,
    tokens_before: u32,
    input: &[Message],
    outcome: Option<&SummaryOutcome>,
    record: &ModelRequestRecord,
    took: std::time::Duration,
) -> Option<Message> {
    let mut recorded: HashSet<MessageId> = HashSet::new();
    for m in input {
        if let MessageKind::SystemControl(SystemControlMessage::Compaction { record }) = &m.kind {
            recorded.extend(record.dropped.iter().copied());
            recorded.extend(record.summarized.iter().copied());
            recorded.extend(record.elided.iter().copied());
        }
        // What a stored summary stands in for was recorded when it was written.
        if let Some(replaced) = braid_optimizer::summary_replaces(m) {
            recorded.extend(replaced.iter().copied());
        }
    }
    let summarized: Vec<MessageId> = match outcome {
        Some(SummaryOutcome::Used { replaced, .. }) => replaced.clone(),
        _ => Vec::new(),
    };
    let new = |ids: &mut dyn Iterator<Item = MessageId>| -> Vec<MessageId> {
        ids.filter(|id| !recorded.contains(id) && !summarized.contains(id))
            .collect()
    };
    let dropped = new(&mut plan.dropped.iter().copied());
    let elided = new(&mut plan.elided.iter().map(|(id, _, _)| *id));
    if dropped.is_empty() && elided.is_empty() && summarized.is_empty() {
        return None;
    }
    let compaction = CompactionRecord {
        strategy: serde_json::to_value(plan.strategy)
            .ok()
            .and_then(|v| v.as_str().map(str::to_owned))
            .unwrap_or_default(),
        // Before anything was left out: a summary's plan counts the summary already.
        tokens_before,
        tokens_after: plan.tokens_after,
        limit: plan.limit,
        duration_ms: u64::try_from(took.as_millis()).unwrap_or(u64::MAX),
        dropped,
        summarized,
        summary_id: match outcome {
            Some(SummaryOutcome::Used { message, .. }) => Some(message.id),
            _ => None,
        },
        elided,
        fallback: match outcome {
            Some(SummaryOutcome::FellBack(reason)) => Some(reason.clone()),
            _ => None,
        },
        request_id: Some(record.id),
    };
    Some(Message::new(
        Role::User,
        MessageKind::SystemControl(SystemControlMessage::Compaction {
            record: Box::new(compaction),
        }),
    ))
}

/// Tokens of `tools`: the frame's count when they are its tools, else counted now.
fn tool_tokens(
    frame: Option<&Frame>,
    tools: &Arc<[ToolDefinition]>,
    counter: &TokenCounter,
) -> u32 {
    frame
        .and_then(|f| f.tool_tokens(tools, counter))
        .unwrap_or_else(|| counter.tools(tools))
}

/// Tools a request goes without because the model's window cannot hold their definitions
/// beside the system prompt (reported in the optimization's `context_update`).
#[derive(Clone, Debug, Serialize)]
struct Withheld {
    /// How many tools were withheld.
    tools: usize,
    /// What the system prompt and the tool definitions needed.
    needed: u32,
    /// What the window leaves for the prompt.
    limit: u32,
}

/// A plan of the request, with what it was made from.
struct Fitting<'a> {
    /// The plan.
    plan: Plan,
    /// The tools withheld for want of room, if they were.
    withheld: Option<Withheld>,
    /// The history as planned, for the ledger's plan.
    prepared: Prepared<'a>,
    /// Tokens of the tool definitions offered.
    tools_tokens: u32,
    /// The room set aside for the ledger (the kept one, when the history is over the budget).
    reserved: u32,
}

/// Plans the request, around the ledger room `ctx` kept from the branch's last request when
/// the history is over the budget without it (a read's context keeps none); when the system
/// prompt and the tool definitions alone are over the budget, the tools are withheld (and the
/// prompt rebuilt to say so) and the request planned again before it is refused.
fn plan_fitting<'a>(
    ctx: &PipelineContext,
    frame: Option<&Frame>,
    system_prompt: &mut Option<String>,
    tools: &mut Arc<[ToolDefinition]>,
    messages: &'a [Message],
    budget: Budget,
    counter: &TokenCounter,
) -> Result<Fitting<'a>, PlanError> {
    let strategy = &ctx.config.optimization.strategy;
    let kept = ctx.kept_ledger.room();
    let parts = |system_prompt: &Option<String>, tools: &Arc<[ToolDefinition]>| {
        let tools_tokens = tool_tokens(frame, tools, counter);
        let prepared = Prepared::of(messages, system_prompt.as_deref(), tools_tokens, counter);
        // A history within the budget leaves nothing out, so it needs no ledger and no room.
        let mut reserved = match kept {
            Some(room) if prepared.over_budget(budget) => room,
            _ => 0,
        };
        let mut plan = prepared.plan(reserved, strategy, budget, counter);
        if plan.is_err() && reserved > 0 {
            // The kept room is more than the prompt can spare now (a smaller window, a longer
            // system prompt): the request is planned as a branch's first one is.
            reserved = 0;
            plan = prepared.plan(0, strategy, budget, counter);
        }
        plan.map(|plan| Fitting {
            plan,
            withheld: None,
            prepared,
            tools_tokens,
            reserved,
        })
    };
    match parts(system_prompt, tools) {
        // A prompted model's tools are in the prompt: withholding them shortens it.
        Err(PlanError::FixedPartTooLarge { needed, limit })
            if !tools.is_empty() || prompted_list(ctx) > 0 =>
        {
            let withheld = Withheld {
                tools: tools.len().max(prompted_list(ctx)),
                needed,
                limit,
            };
            tracing::warn!(
                model = %ctx.model,
                tools = withheld.tools,
                needed,
                limit,
                "the model's context window cannot hold the tool definitions: this request offers no tools"
            );
            let (prompt, _) = request_frame(ctx, ToolOffer::Withheld);
            if system_prompt.is_some() {
                *system_prompt = Some(prompt);
            }
            *tools = Arc::default();
            parts(system_prompt, tools).map(|fitting| Fitting {
                withheld: Some(withheld),
                ..fitting
            })
        }
        other => other,
    }
}

/// How many tools the system prompt lists (a prompted model's), else 0.
fn prompted_list(ctx: &PipelineContext) -> usize {
    match tool_calling(ctx) {
        braid_protocol::ToolCalling::Prompted => offered_tool_count(ctx),
        braid_protocol::ToolCalling::Native => 0,
    }
}

/// The model's capabilities as the client knows them (a server may report its window), else
/// from the built-in table.
pub(crate) fn capabilities(ctx: &PipelineContext) -> ModelCapabilities {
    match &ctx.llm {
        Some(llm) => llm.capabilities(&ctx.model),
        None => ModelCapabilities::for_model(&ctx.model),
    }
}

/// The model's capabilities, asking the model server first when the client has not asked it
/// about this model yet (once per base URL and model, with a short timeout; a server that does
/// not answer leaves the table's figures).
pub(crate) async fn discovered_capabilities(ctx: &PipelineContext) -> ModelCapabilities {
    match &ctx.llm {
        Some(llm) => llm.discover(&ctx.model).await,
        None => ModelCapabilities::for_model(&ctx.model),
    }
}

/// The capabilities in force for the context's model, with their sources (the context's own
/// `context_window` counts as an override); `None` when no model is named.
pub(crate) fn capabilities_view(
    ctx: &PipelineContext,
) -> Option<braid_protocol::ModelCapabilitiesView> {
    if ctx.model.trim().is_empty() {
        return None;
    }
    let mut view = capabilities(ctx).view(&ctx.model);
    if let Some(window) = ctx.config.context_window {
        view.context_window = braid_protocol::CountFigure {
            value: window,
            source: braid_protocol::CapabilitySource::Override,
        };
    }
    Some(view)
}

/// Summarizes the oldest summarizable units that fit one summarization request.
async fn summarize(
    llm: &dyn LlmClient,
    ctx: &PipelineContext,
    plan: &Plan,
    input: &[Message],
    counter: &TokenCounter,
    budget: Budget,
) -> SummaryOutcome {
    let max_tokens = MAX_SUMMARY_TOKENS.min(budget.limit() / 4).max(1);
    // The summarization request must fit the window itself: its prompt, the batch, the answer.
    let room = budget
        .window
        .saturating_sub(budget.margin)
        .saturating_sub(max_tokens)
        .saturating_sub(counter.system_prompt(Some(SUMMARY_PROMPT)) + 64);
    let mut indices = Vec::new();
    let mut tokens = 0u32;
    for unit in &plan.summarizable {
        if tokens + unit.tokens > room {
            break;
        }
        tokens += unit.tokens;
        indices.extend(unit.messages.iter().copied());
    }
    if indices.is_empty() {
        return SummaryOutcome::FellBack(
            "the oldest messages are too large to summarize in one request: they were dropped instead".to_owned(),
        );
    }
    indices.sort_unstable();
    let batch: Vec<Message> = indices.iter().map(|i| input[*i].clone()).collect();
    match summary::summarize(llm, &ctx.model, &batch, max_tokens).await {
        Ok(text) => {
            let replaced: Vec<MessageId> = batch.iter().map(|m| m.id).collect();
            let sized = summary::summary_message(text.clone(), replaced.clone(), tokens, 0);
            let after = braid_optimizer::selection::summary_stand_in(&sized)
                .map(|m| counter.message_uncached(&m))
                .unwrap_or_default();
            let message = summary::summary_message(text, replaced.clone(), tokens, after);
            SummaryOutcome::Used {
                message: Box::new(message),
                replaced,
            }
        }
        Err(error) => {
            tracing::warn!(%error, messages = batch.len(), "summarization failed; dropping instead");
            SummaryOutcome::FellBack(format!("{error}: the oldest messages were dropped instead"))
        }
    }
}

/// The `context_update` metadata of an optimization. It counts the messages left out instead
/// of naming them: a long session leaves out hundreds on every turn, and the request's record
/// (`request_id`) lists them.
fn report(
    tokens_before: u32,
    chosen: &Plan,
    counter: &TokenCounter,
    outcome: Option<&SummaryOutcome>,
    request: ModelRequestId,
) -> Metadata {
    let mut details = json!({
        "strategy": chosen.strategy,
        "tokens_before": tokens_before,
        "tokens_after": chosen.tokens_after,
        "limit": chosen.limit,
        "encoding": counter.encoding(),
        "exactness": counter.exactness(),
        "calibration": chosen.calibration,
        "dropped_count": chosen.dropped.len(),
        "request_id": request,
        "truncated": chosen.truncated.iter().map(|(id, before, after)| json!({
            "message_id": id, "tokens_before": before, "tokens_after": after,
        })).collect::<Vec<_>>(),
    });
    if let Some(object) = details.as_object_mut() {
        match outcome {
            Some(SummaryOutcome::Used { message, replaced }) => {
                object.insert("summary_id".to_owned(), json!(message.id));
                object.insert("summarized".to_owned(), json!(replaced));
            }
            Some(SummaryOutcome::FellBack(reason)) => {
                object.insert("fallback".to_owned(), json!(reason));
            }
            None => {}
        }
    }
    let mut metadata = Metadata::new();
    metadata.insert("optimization".to_owned(), details);
    metadata
}

/// What the next request of `ctx` would send, without summarizing anew: the plan of
/// `ctx.history` under the frame `key` was made for, with no room set aside for the ledger (a
/// read's context keeps none). For `view=optimized` and the token budget.
pub(crate) fn preview(ctx: &PipelineContext, key: &PlanKey) -> Result<Plan, PlanError> {
    let frame = &key.frame;
    let counter = TokenCounter::new(frame.capabilities());
    let budget = Budget::for_config(frame.config(), frame.capabilities());
    let mut prompt = Some(frame.prompt.clone());
    let mut tools = frame.tools.clone();
    plan_fitting(
        ctx,
        Some(frame),
        &mut prompt,
        &mut tools,
        &ctx.history,
        budget,
        &counter,
    )
    .map(|fitting| fitting.plan)
}

#[cfg(test)]
mod tests {
    use super::*;
    use braid_protocol::{
        ContextConfig, ToolCall, ToolOutcome, ToolRequestMessage, ToolResultMessage,
    };

    /// `n` exchanges reading a file each (call, result, answer).
    fn reads(n: usize) -> Vec<Message> {
        (0..n)
            .flat_map(|i| {
                let id = format!("c{i}");
                [
                    Message::new(
                        Role::Assistant,
                        MessageKind::ToolRequest(ToolRequestMessage {
                            calls: vec![ToolCall::new(
                                id.clone(),
                                "read_file",
                                json!({"path": format!("src/file_{i}.rs")}),
                            )],
                        }),
                    ),
                    Message::new(
                        Role::Tool,
                        MessageKind::ToolResult(Box::new(ToolResultMessage {
                            call_id: id.into(),
                            tool_name: "read_file".into(),
                            outcome: ToolOutcome::Success {
                                output: json!(format!("fn f{i}() {{ let x = {i}; }}\n").repeat(3)),
                            },
                            duration_ms: 1,
                            started_at: None,
                            completed_at: None,
                        })),
                    ),
                    Message::assistant_text(format!("File {i} read.")),
                ]
            })
            .collect()
    }

    fn context(
        history: Vec<Message>,
        kept_ledger: &crate::pipeline::KeptLedger,
    ) -> PipelineContext {
        let mut config = ContextConfig {
            context_window: Some(4_096),
            ..ContextConfig::default()
        };
        config.optimization.strategy = OptimizationStrategy::RecentN { n: 10_000 };
        PipelineContext {
            config,
            model: "gpt-4o".into(),
            branch: braid_protocol::BranchName::main(),
            branch_prompt: None,
            history,
            tools: Arc::new(braid_tools::ToolRegistry::new()),
            workspace: None,
            workspace_problem: None,
            instructions: None,
            llm: None,
            image_hosts: Default::default(),
            kept_frame: Default::default(),
            kept_ledger: kept_ledger.clone(),
            workflow_tools: vec![],
            ocr: braid_vision::OcrSettings::default(),
        }
    }

    async fn turn(ctx: &PipelineContext) -> Draft {
        let mut draft = Draft {
            system_prompt: Some("You are Braid.".to_owned()),
            messages: vec![Message::user_text("What next?")],
            ..Draft::default()
        };
        OptimizeContext.process(&mut draft, ctx).await.unwrap();
        draft
    }

    #[tokio::test]
    async fn a_branchs_next_request_is_planned_around_the_room_its_ledger_took() {
        let branch = crate::pipeline::KeptLedger::default();
        let mut rooms = Vec::new();
        for n in 150..166 {
            let draft = turn(&context(reads(n), &branch)).await;
            let record = draft.record.unwrap();
            let ledger = record.ledger.unwrap();
            let kept = branch
                .room()
                .expect("a room kept after a request with a ledger");
            // Every request fits the window, with its ledger in the room kept for the next.
            assert!(ledger.tokens <= kept);
            assert!(record.tokens <= record.budget.limit);
            // The oldest file the request still reads whole is the newest one the ledger
            // leaves out: it stands for every message the request leaves out.
            let oldest = draft
                .optimized
                .as_ref()
                .unwrap()
                .iter()
                .find_map(|m| match &m.kind {
                    MessageKind::ToolRequest(request) => {
                        request.calls[0].arguments["path"].as_str().and_then(|p| {
                            p.strip_prefix("src/file_")?
                                .strip_suffix(".rs")?
                                .parse::<usize>()
                                .ok()
                        })
                    }
                    _ => None,
                });
            let oldest = oldest.unwrap();
            assert!(ledger.text.contains(&format!("src/file_{}.rs", oldest - 1)));
            assert!(!ledger.text.contains(&format!("src/file_{oldest}.rs")));
            rooms.push(kept);
        }
        // Once the room settles, every later request keeps it.
        let settled = rooms.last().copied().unwrap();
        let from = rooms.iter().position(|r| *r == settled).unwrap();
        assert!(from <= 8, "the room settled after {from} turns: {rooms:?}");

        // The next request is planned around the kept room itself: a branch's first request
        // of a shorter history works out a room of its own, and one that kept the whole share
        // keeps it.
        let first = crate::pipeline::KeptLedger::default();
        turn(&context(reads(85), &first)).await;
        let own = first.room().unwrap();
        assert!(own < settled, "{own} >= {settled}");
        let kept = crate::pipeline::KeptLedger::default();
        kept.lock().room = settled;
        let ledger = turn(&context(reads(85), &kept))
            .await
            .record
            .unwrap()
            .ledger
            .unwrap();
        assert_eq!(kept.room(), Some(settled));
        assert!(ledger.tokens <= settled);

        // A room kept from a larger window, more than the prompt can spare now, is let go:
        // the request is planned as a first one is, not refused.
        branch.lock().room = 1_000_000;
        let draft = turn(&context(reads(160), &branch)).await;
        let ledger = draft.record.unwrap().ledger.unwrap();
        let kept = branch.room().unwrap();
        assert!(ledger.tokens <= kept && kept < 1_000_000);

        // A history back within the budget needs no ledger, and keeps no room.
        let short = turn(&context(reads(2), &branch)).await;
        assert!(short.record.unwrap().ledger.is_none());
        assert_eq!(branch.room(), None);
    }
}
