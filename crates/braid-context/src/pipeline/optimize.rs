//! `OptimizeContext`: fits the history to the model's context window (DESIGN.md
//! "Optimization"). The request is counted as the provider will receive it; when it is over the
//! budget the context's strategy chooses what is sent, and with `intelligent` the oldest dropped
//! messages are summarized by the model. Every optimization is logged and reported in the
//! draft, for the actor's `context_update`.

use std::sync::Arc;

use async_trait::async_trait;
use braid_llm::{LlmClient, ModelCapabilities, ToolDefinition};
use braid_protocol::{ContextState, Message, MessageId, Metadata, OptimizationStrategy};
use serde::Serialize;
use serde_json::{Value, json};

use super::frame::{Frame, PlanKey};
use super::system_prompt::{ToolOffer, offered_tool_count, request_frame, tool_calling};
use super::{Draft, PipelineContext, PipelineError, ProcessResult, Processor, ProcessorName};
use braid_optimizer::summary::{self, MAX_SUMMARY_TOKENS, SUMMARY_PROMPT};
use braid_optimizer::{Budget, Plan, PlanError, RequestParts, Slot, TokenCounter, plan};

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
        let capabilities = discovered_capabilities(ctx).await;
        let counter = TokenCounter::new(&capabilities);
        let budget = Budget::for_config(&ctx.config, &capabilities);
        let strategy = &ctx.config.optimization.strategy;
        let mut input = ctx.history.clone();
        input.extend(draft.messages.iter().cloned());
        let (first, withheld) = plan_fitting(
            ctx,
            ctx.kept_frame.0.as_deref(),
            &mut draft.system_prompt,
            &mut draft.tools,
            &input,
            budget,
            &counter,
        )
        .map_err(|e| PipelineError::Request(e.to_string()))?;
        if !first.optimized() {
            // Stored summaries still stand in for what they replace.
            draft.optimized = Some(first.request_messages(&input));
            if let Some(withheld) = &withheld {
                let mut metadata = Metadata::new();
                metadata.insert(
                    "optimization".to_owned(),
                    json!({ "tools_withheld": withheld }),
                );
                draft.optimization = Some(metadata);
            }
            return Ok(ProcessResult::Continue);
        }
        let mut chosen = first.clone();
        let mut outcome = None;
        if let (OptimizationStrategy::Intelligent, Some(llm), false) =
            (strategy, &ctx.llm, first.summarizable.is_empty())
        {
            let attempt = summarize(llm.as_ref(), ctx, &first, &input, &counter, budget).await;
            if let SummaryOutcome::Used { message, .. } = &attempt {
                input.push((**message).clone());
                let with_summary = plan(
                    &RequestParts {
                        system_prompt: draft.system_prompt.as_deref(),
                        tool_tokens: tool_tokens(
                            ctx.kept_frame.0.as_deref(),
                            &draft.tools,
                            &counter,
                        ),
                        messages: &input,
                    },
                    strategy,
                    budget,
                    &counter,
                )
                .map_err(|e| PipelineError::Request(e.to_string()))?;
                let kept = with_summary
                    .slots
                    .iter()
                    .any(|s| matches!(s, Slot::Summary(i) if *i == input.len() - 1));
                if kept {
                    chosen = with_summary;
                    outcome = Some(attempt);
                } else {
                    input.pop();
                    outcome = Some(SummaryOutcome::FellBack(
                        "the summary did not fit beside the newest messages: the oldest messages were dropped instead".to_owned(),
                    ));
                }
            } else {
                outcome = Some(attempt);
            }
        }
        let mut report = report(&first, &chosen, &counter, outcome.as_ref());
        if let (Some(withheld), Some(Value::Object(details))) =
            (&withheld, report.get_mut("optimization"))
        {
            details.insert("tools_withheld".to_owned(), json!(withheld));
        }
        tracing::info!(
            strategy = ?chosen.strategy,
            tokens_before = first.tokens_before,
            tokens_after = chosen.tokens_after,
            limit = chosen.limit,
            dropped = chosen.dropped.len(),
            truncated = chosen.truncated.len(),
            summarized = matches!(outcome, Some(SummaryOutcome::Used { .. })),
            fallback = outcome.as_ref().and_then(|o| match o {
                SummaryOutcome::FellBack(reason) => Some(reason.as_str()),
                SummaryOutcome::Used { .. } => None,
            }),
            "context optimized"
        );
        draft.optimized = Some(chosen.request_messages(&input));
        if let Some(SummaryOutcome::Used { message, .. }) = outcome {
            draft.notes.push(*message);
        }
        draft.optimization = Some(report);
        Ok(ProcessResult::Continue)
    }
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

/// Plans the request; when the system prompt and the tool definitions alone are over the
/// budget, the tools are withheld (and the prompt rebuilt to say so) and the request planned
/// again before it is refused.
fn plan_fitting(
    ctx: &PipelineContext,
    frame: Option<&Frame>,
    system_prompt: &mut Option<String>,
    tools: &mut Arc<[ToolDefinition]>,
    messages: &[Message],
    budget: Budget,
    counter: &TokenCounter,
) -> Result<(Plan, Option<Withheld>), PlanError> {
    let strategy = &ctx.config.optimization.strategy;
    let parts = |system_prompt: &Option<String>, tools: &Arc<[ToolDefinition]>| {
        plan(
            &RequestParts {
                system_prompt: system_prompt.as_deref(),
                tool_tokens: tool_tokens(frame, tools, counter),
                messages,
            },
            strategy,
            budget,
            counter,
        )
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
            parts(system_prompt, tools).map(|plan| (plan, Some(withheld)))
        }
        other => other.map(|plan| (plan, None)),
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

/// The `context_update` metadata of an optimization.
fn report(
    first: &Plan,
    chosen: &Plan,
    counter: &TokenCounter,
    outcome: Option<&SummaryOutcome>,
) -> Metadata {
    let mut details = json!({
        "strategy": chosen.strategy,
        "tokens_before": first.tokens_before,
        "tokens_after": chosen.tokens_after,
        "limit": chosen.limit,
        "encoding": counter.encoding(),
        "exactness": counter.exactness(),
        "calibration": chosen.calibration,
        "dropped": chosen.dropped,
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
/// `ctx.history` under the frame `key` was made for. For `view=optimized` and the token budget.
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
    .map(|(plan, _)| plan)
}
