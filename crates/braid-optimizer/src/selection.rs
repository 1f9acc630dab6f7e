//! Choosing what a request keeps: the history grouped into units that are kept or dropped
//! whole (a model turn with its tool calls and their results; any other message alone), and
//! the strategies that choose among them (seed 001, "Intelligent message prioritization").

use std::collections::{BTreeMap, HashMap};

use braid_protocol::{
    MessageId, MessageKind, OptimizationStrategy, Role, TextMessage, ToolCallId, ToolOutcome,
};
use serde::Serialize;

use super::tokens::{REPLY_PRIMING, TokenCounter, calibration_ratio, reported_prompt_tokens};
use super::{Budget, RequestParts, summary_replaces};
use braid_protocol::Message;

/// The newest messages every strategy but `recent_n` keeps, for continuity.
pub const KEEP_RECENT_MESSAGES: usize = 6;
/// A file reference or MCP resource counts as recently used while it, or a mention of its path
/// or URI, is among this many newest messages.
pub const RECENT_USE_MESSAGES: usize = 20;
/// Tokens the truncation note takes, with room to spare.
const TRUNCATION_NOTE_TOKENS: u32 = 24;

/// The strategy's name, for events and logs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum StrategyName {
    /// `recent_n`.
    RecentN,
    /// `intelligent`.
    Intelligent,
    /// `importance_scoring`.
    ImportanceScoring,
}

impl StrategyName {
    /// The name of a configured strategy.
    pub fn of(strategy: &OptimizationStrategy) -> Self {
        match strategy {
            OptimizationStrategy::RecentN { .. } => Self::RecentN,
            OptimizationStrategy::Intelligent => Self::Intelligent,
            OptimizationStrategy::ImportanceScoring { .. } => Self::ImportanceScoring,
        }
    }
}

/// One place of the request's message list.
#[derive(Clone, Debug, PartialEq)]
pub enum Slot {
    /// A message of the input, sent as stored.
    Message(usize),
    /// A stored summary (index into the input), sent as text standing in for what it replaces.
    Summary(usize),
    /// A message of the input cut down to fit, and the copy that is sent.
    Truncated(usize, Box<Message>),
    /// A tool result of the input sent without its output ([`elided_copy`]); `Plan::elided`
    /// has its tokens.
    Elided(usize),
}

/// Why no request fits.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PlanError {
    /// The system prompt and tool definitions alone are over the budget.
    #[error(
        "the system prompt and tool definitions need {needed} tokens, more than the {limit} the model's context window leaves"
    )]
    FixedPartTooLarge {
        /// Their tokens.
        needed: u32,
        /// The budget.
        limit: u32,
    },
    /// The newest message cannot be cut down enough (not text, or nothing would be left).
    #[error(
        "the newest message needs {needed} tokens and cannot be shortened to the {limit} the model's context window leaves"
    )]
    NewestTooLarge {
        /// Its tokens with the rest of the request.
        needed: u32,
        /// The budget.
        limit: u32,
    },
}

/// What the optimizer decided for one request.
#[derive(Clone, Debug)]
pub struct Plan {
    /// The strategy applied.
    pub strategy: StrategyName,
    /// The budget's limit.
    pub limit: u32,
    /// Tokens of the whole request (summaries applied), calibrated.
    pub tokens_before: u32,
    /// Tokens of the request as planned, calibrated.
    pub tokens_after: u32,
    /// The factor reported usage calibrated counts with (1 when nothing was reported).
    pub calibration: f64,
    /// What is sent, in order.
    pub slots: Vec<Slot>,
    /// Messages left out, oldest first.
    pub dropped: Vec<MessageId>,
    /// Messages cut down, with their tokens before and after.
    pub truncated: Vec<(MessageId, u32, u32)>,
    /// Tool results sent without their output (`intelligent`, when the tool exchanges alone
    /// are over the budget), with their tokens before and after. Their slots are
    /// [`Slot::Elided`].
    pub elided: Vec<(MessageId, u32, u32)>,
    /// Dropped units that may be summarized instead, oldest first (text or tool exchanges;
    /// never a summary).
    pub summarizable: Vec<DroppedUnit>,
}

/// A unit the plan dropped: messages kept or dropped together.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DroppedUnit {
    /// Their indices in the input, in order.
    pub messages: Vec<usize>,
    /// Their tokens, uncalibrated.
    pub tokens: u32,
}

impl Plan {
    /// Whether anything was dropped or cut.
    pub fn optimized(&self) -> bool {
        !self.dropped.is_empty() || !self.truncated.is_empty() || !self.elided.is_empty()
    }

    /// The request's messages: stored ones as they are, summaries as a user text that says
    /// what it is, truncated ones as cut.
    pub fn request_messages(&self, input: &[Message]) -> Vec<Message> {
        self.slots
            .iter()
            .filter_map(|slot| match slot {
                Slot::Message(i) => input.get(*i).cloned(),
                Slot::Summary(i) => input.get(*i).and_then(summary_stand_in),
                Slot::Truncated(_, m) => Some((**m).clone()),
                Slot::Elided(i) => input.get(*i).and_then(elided_copy),
            })
            .collect()
    }

    /// What `view=optimized` lists: the stored messages sent, each summary (the marker) where
    /// it stands in, cut messages as cut.
    pub fn shown(&self, input: &[Message]) -> Vec<Message> {
        self.slots
            .iter()
            .filter_map(|slot| match slot {
                Slot::Message(i) | Slot::Summary(i) => input.get(*i).cloned(),
                Slot::Truncated(_, m) => Some((**m).clone()),
                Slot::Elided(i) => input.get(*i).and_then(elided_copy),
            })
            .collect()
    }
}

/// The text a summary is sent as, in place of the messages it replaces.
pub fn summary_stand_in(summary: &Message) -> Option<Message> {
    let MessageKind::SystemControl(braid_protocol::SystemControlMessage::Summary {
        text,
        replaces,
        ..
    }) = &summary.kind
    else {
        return None;
    };
    let mut m = Message::new(
        Role::User,
        MessageKind::Text(TextMessage::plain(format!(
            "[Summary of {} earlier messages of this conversation, left out to fit the context window]\n{text}",
            replaces.len()
        ))),
    );
    m.id = summary.id;
    m.created_at = summary.created_at;
    m.updated_at = summary.updated_at;
    Some(m)
}

/// What a unit is, for the strategies' priorities.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum UnitClass {
    Text,
    ToolExchange,
    FileReference,
    Resource,
    Summary,
}

#[derive(Clone, Debug)]
struct Unit {
    /// Positions in the effective list, in order.
    slots: Vec<usize>,
    tokens: u32,
    class: UnitClass,
    role: Role,
    /// The person pinned one of its messages: never dropped.
    pinned: bool,
}

/// The history as requests see it: summaries in place of what they replace, unsent kinds left
/// out. Each entry is (input index, whether it is a summary).
fn effective(messages: &[Message]) -> Vec<(usize, bool)> {
    let mut replaced_by: HashMap<MessageId, usize> = HashMap::new();
    let summaries: std::collections::HashSet<MessageId> = messages
        .iter()
        .filter(|m| summary_replaces(m).is_some())
        .map(|m| m.id)
        .collect();
    for (i, m) in messages.iter().enumerate() {
        if let Some(ids) = summary_replaces(m) {
            for id in ids {
                // Never recursive: a summary is not replaced by another.
                if !summaries.contains(id) {
                    replaced_by.entry(*id).or_insert(i);
                }
            }
        }
    }
    let mut placed = std::collections::HashSet::new();
    let mut out = Vec::with_capacity(messages.len());
    for (i, m) in messages.iter().enumerate() {
        // A message pinned after it was summarized goes back in whole; the summary still
        // stands in for the others.
        if let Some(s) = replaced_by.get(&m.id).filter(|_| !m.is_pinned()) {
            if placed.insert(*s) {
                out.push((*s, true));
            }
        } else if m.kind_name().is_sent_to_model() {
            out.push((i, false));
        }
    }
    out
}

/// The history's units, and each input message's tokens as a request sends it whole (a
/// summary's: its stand-in's; `None` for what is not sent).
fn units(
    messages: &[Message],
    effective: &[(usize, bool)],
    counter: &TokenCounter,
) -> (Vec<Unit>, Vec<Option<u32>>) {
    let mut units: Vec<Unit> = Vec::new();
    let mut counts: Vec<Option<u32>> = vec![None; messages.len()];
    let mut by_turn: HashMap<braid_protocol::TurnId, usize> = HashMap::new();
    let mut by_call: HashMap<ToolCallId, usize> = HashMap::new();
    for (position, (index, is_summary)) in effective.iter().enumerate() {
        let message = &messages[*index];
        if *is_summary {
            let tokens = summary_stand_in(message)
                .map(|m| counter.message(&m))
                .unwrap_or_default();
            counts[*index] = Some(tokens);
            units.push(Unit {
                slots: vec![position],
                tokens,
                class: UnitClass::Summary,
                role: Role::User,
                pinned: false,
            });
            continue;
        }
        let tokens = counter.message(message);
        counts[*index] = Some(tokens);
        let calls: Vec<ToolCallId> = match &message.kind {
            MessageKind::ToolRequest(r) => r.calls.iter().map(|c| c.id.clone()).collect(),
            MessageKind::McpToolRequest(r) => vec![r.request_id.clone()],
            _ => Vec::new(),
        };
        let answers = match &message.kind {
            MessageKind::ToolResult(r) => Some(&r.call_id),
            MessageKind::McpToolResult(r) => Some(&r.request_id),
            _ => None,
        };
        let joined = answers.and_then(|id| by_call.get(id).copied()).or_else(|| {
            match (message.role, message.turn_id()) {
                (Role::Assistant, Some(turn)) => by_turn.get(&turn).copied(),
                _ => None,
            }
        });
        let at = match joined {
            Some(u) => {
                let unit = &mut units[u];
                unit.slots.push(position);
                unit.tokens += tokens;
                unit.pinned |= message.is_pinned();
                u
            }
            None => {
                units.push(Unit {
                    slots: vec![position],
                    tokens,
                    class: match &message.kind {
                        MessageKind::FileReference(_) => UnitClass::FileReference,
                        MessageKind::McpResource(_) => UnitClass::Resource,
                        _ => UnitClass::Text,
                    },
                    role: message.role,
                    pinned: message.is_pinned(),
                });
                units.len() - 1
            }
        };
        if !calls.is_empty() {
            units[at].class = UnitClass::ToolExchange;
        }
        for call in calls {
            by_call.insert(call, at);
        }
        if let (Role::Assistant, Some(turn)) = (message.role, message.turn_id()) {
            by_turn.entry(turn).or_insert(at);
        }
    }
    (units, counts)
}

/// What a file reference or resource is known by, when the message is one.
fn reference_key(message: &Message) -> Option<&str> {
    match &message.kind {
        MessageKind::FileReference(f) => Some(f.path.as_str()),
        MessageKind::McpResource(r) => Some(r.resource_uri.as_str()),
        _ => None,
    }
}

/// Text in which a recent message may mention a path or URI: its text and tool arguments.
fn mention_text(message: &Message) -> String {
    match &message.kind {
        MessageKind::Text(t) => t.text(),
        MessageKind::ToolRequest(r) => r
            .calls
            .iter()
            .map(|c| c.arguments.to_string())
            .collect::<Vec<_>>()
            .join("\n"),
        MessageKind::McpToolRequest(r) => r.arguments.to_string(),
        MessageKind::ToolResult(r) => match &r.outcome {
            ToolOutcome::Success { output } => match output {
                serde_json::Value::String(s) => s.clone(),
                other => other.to_string(),
            },
            ToolOutcome::Error { .. } => String::new(),
        },
        _ => String::new(),
    }
}

/// Which units are file references or resources used lately.
fn recently_used(messages: &[Message], effective: &[(usize, bool)], units: &[Unit]) -> Vec<bool> {
    let recent_from = effective.len().saturating_sub(RECENT_USE_MESSAGES);
    let mut mentions: Option<String> = None;
    units
        .iter()
        .map(|u| {
            if !matches!(u.class, UnitClass::FileReference | UnitClass::Resource) {
                return false;
            }
            if u.slots.iter().any(|s| *s >= recent_from) {
                return true;
            }
            let Some(key) = u
                .slots
                .first()
                .and_then(|s| reference_key(&messages[effective[*s].0]))
            else {
                return false;
            };
            let text = mentions.get_or_insert_with(|| {
                effective[recent_from..]
                    .iter()
                    .filter(|(_, summary)| !summary)
                    .map(|(i, _)| mention_text(&messages[*i]))
                    .collect::<Vec<_>>()
                    .join("\n")
            });
            !key.is_empty() && text.contains(key)
        })
        .collect()
}

/// What the newest answer whose request can be estimated reported: its prompt tokens and the
/// estimate of its messages (the request's fixed part is added when a plan is made).
fn reported_prefix(messages: &[Message], counter: &TokenCounter) -> Option<(u32, u32)> {
    let (at, reported) = messages
        .iter()
        .enumerate()
        .rev()
        .find_map(|(i, m)| reported_prompt_tokens(m).map(|r| (i, r)))?;
    // The request that produced the answer held everything before its turn's first message.
    let start = match messages[at].turn_id() {
        Some(turn) => messages[..at]
            .iter()
            .position(|m| m.turn_id() == Some(turn))
            .unwrap_or(at),
        None => at,
    };
    let prefix = &messages[..start];
    let estimated: u32 = effective(prefix)
        .iter()
        .map(|(i, summary)| {
            if *summary {
                summary_stand_in(&prefix[*i])
                    .map(|m| counter.message(&m))
                    .unwrap_or_default()
            } else {
                counter.message(&prefix[*i])
            }
        })
        .sum();
    Some((reported, estimated))
}

/// The calibration factor: reported / estimated prompt tokens of the newest answer whose
/// request was sent whole.
fn calibration(reported: Option<(u32, u32)>, fixed: u32, limit: u32) -> f64 {
    let Some((reported, prefix)) = reported else {
        return 1.0;
    };
    let estimated = fixed + prefix;
    if estimated > limit {
        // That request was optimized itself: its size is not known here.
        return 1.0;
    }
    calibration_ratio(reported, estimated).unwrap_or(1.0)
}

fn scaled(tokens: u32, ratio: f64) -> u32 {
    (f64::from(tokens) * ratio).ceil().min(f64::from(u32::MAX)) as u32
}

/// Plans the request for `parts` under `budget` with `strategy`.
pub fn plan(
    parts: &RequestParts<'_>,
    strategy: &OptimizationStrategy,
    budget: Budget,
    counter: &TokenCounter,
) -> Result<Plan, PlanError> {
    Prepared::new(parts, counter).plan(0, strategy, budget, counter)
}

/// What every plan of one request's parts starts from, worked out once: the history as
/// requests see it, grouped into units with their tokens, and what calibrates the counts. A
/// plan made again around more reserved room (the ledger's: [`crate::ledger::fit`]) starts
/// from here instead of walking the history again.
#[derive(Clone, Debug)]
pub struct Prepared<'a> {
    messages: &'a [Message],
    /// The system prompt, the tool definitions, the parts' reserve and the reply priming.
    fixed: u32,
    effective: Vec<(usize, bool)>,
    units: Vec<Unit>,
    /// Each input message's tokens as sent whole, by input index (see `units`).
    counts: Vec<Option<u32>>,
    reported: Option<(u32, u32)>,
    /// Which units are references used lately: searched for on the first plan that asks.
    used_refs: std::sync::OnceLock<Vec<bool>>,
}

impl<'a> Prepared<'a> {
    /// Counts and groups `parts` for planning.
    pub fn new(parts: &RequestParts<'a>, counter: &TokenCounter) -> Self {
        Self::of(
            parts.messages,
            parts.system_prompt,
            parts.tool_tokens + parts.reserved_tokens,
            counter,
        )
    }

    /// Counts and groups `messages` for planning, beside a system prompt and `other_tokens`
    /// (tool definitions, reserves) that are only counted, not kept.
    pub fn of(
        messages: &'a [Message],
        system_prompt: Option<&str>,
        other_tokens: u32,
        counter: &TokenCounter,
    ) -> Self {
        let effective = effective(messages);
        let (units, counts) = units(messages, &effective, counter);
        Self {
            messages,
            fixed: counter.system_prompt(system_prompt) + other_tokens + REPLY_PRIMING,
            effective,
            units,
            counts,
            reported: reported_prefix(messages, counter),
            used_refs: std::sync::OnceLock::new(),
        }
    }

    /// Which units are file references or resources used lately (they do not depend on the
    /// budget, and finding them searches the newest messages for every reference).
    fn used_refs(&self) -> &[bool] {
        self.used_refs
            .get_or_init(|| recently_used(self.messages, &self.effective, &self.units))
    }

    /// The history planned over.
    pub fn messages(&self) -> &'a [Message] {
        self.messages
    }

    /// Tokens of input message `index` as a request sends it whole (a summary: as its
    /// stand-in), counted as it was prepared; `None` for a message no request sends.
    pub fn tokens_of(&self, index: usize) -> Option<u32> {
        self.counts.get(index).copied().flatten()
    }

    /// Plans the request with `reserved_tokens` set aside besides the parts' own reserve.
    pub fn plan(
        &self,
        reserved_tokens: u32,
        strategy: &OptimizationStrategy,
        budget: Budget,
        counter: &TokenCounter,
    ) -> Result<Plan, PlanError> {
        select(self, reserved_tokens, strategy, budget, counter)
    }

    /// Whether the whole history is over `budget` with nothing set aside: only then does a
    /// plan leave anything out.
    pub fn over_budget(&self, budget: Budget) -> bool {
        let whole = self.whole(0, budget.limit());
        whole.total > whole.raw_limit && !self.units.is_empty()
    }

    /// Tokens of the whole request before anything is left out, with nothing set aside: the
    /// `tokens_before` of a plan with no reserve.
    pub fn tokens_before(&self, budget: Budget) -> u32 {
        let whole = self.whole(0, budget.limit());
        scaled(whole.total, whole.ratio)
    }

    fn whole(&self, reserved_tokens: u32, limit: u32) -> Whole {
        let fixed = self.fixed.saturating_add(reserved_tokens);
        let ratio = calibration(self.reported, fixed, limit);
        Whole {
            fixed,
            total: fixed + self.units.iter().map(|u| u.tokens).sum::<u32>(),
            ratio,
            raw_limit: (f64::from(limit) / ratio).floor() as u32,
        }
    }
}

/// The whole request before anything is left out, in the counter's own tokens.
struct Whole {
    /// The system prompt, the tool definitions and every reserve.
    fixed: u32,
    /// `fixed` and every unit of the history.
    total: u32,
    /// What calibrates the counter's tokens to the provider's.
    ratio: f64,
    /// The budget's limit in the counter's own tokens.
    raw_limit: u32,
}

fn select(
    prepared: &Prepared<'_>,
    reserved_tokens: u32,
    strategy: &OptimizationStrategy,
    budget: Budget,
    counter: &TokenCounter,
) -> Result<Plan, PlanError> {
    let messages = prepared.messages;
    let limit = budget.limit();
    let Whole {
        fixed,
        total,
        ratio,
        raw_limit,
    } = prepared.whole(reserved_tokens, limit);
    let effective = &prepared.effective;
    let units = &prepared.units;
    let name = StrategyName::of(strategy);
    let mut plan = Plan {
        strategy: name,
        limit,
        tokens_before: scaled(total, ratio),
        tokens_after: scaled(total, ratio),
        calibration: ratio,
        slots: Vec::new(),
        dropped: Vec::new(),
        truncated: Vec::new(),
        elided: Vec::new(),
        summarizable: Vec::new(),
    };
    if fixed > raw_limit {
        return Err(PlanError::FixedPartTooLarge {
            needed: scaled(fixed, ratio),
            limit,
        });
    }
    let slot_of = |(i, summary): (usize, bool)| {
        if summary {
            Slot::Summary(i)
        } else {
            Slot::Message(i)
        }
    };
    if total <= raw_limit || units.is_empty() {
        plan.slots = effective.iter().copied().map(slot_of).collect();
        return Ok(plan);
    }

    let mut keep = vec![true; units.len()];
    let mut used = total;
    // Copied only when outputs are elided (which changes units' tokens).
    let mut units = std::borrow::Cow::Borrowed(units.as_slice());
    // Indices of the results sent without their output.
    let mut elided_results: std::collections::HashSet<usize> = std::collections::HashSet::new();
    let newest = units.len() - 1;
    match strategy {
        OptimizationStrategy::RecentN { n } => {
            let from = effective.len().saturating_sub(*n as usize);
            for (u, unit) in units.iter().enumerate() {
                if u != newest && !unit.pinned && unit.slots.iter().all(|s| *s < from) {
                    keep[u] = false;
                    used -= unit.tokens;
                }
            }
            drop_in_order(&units, &mut keep, &mut used, raw_limit, 0..newest);
        }
        OptimizationStrategy::Intelligent => {
            let recent_from = effective.len().saturating_sub(KEEP_RECENT_MESSAGES);
            let used_refs = prepared.used_refs();
            let tiers: Vec<u8> = (0..units.len())
                .map(|u| {
                    let unit = &units[u];
                    if unit.slots.iter().any(|s| *s >= recent_from) {
                        return 5;
                    }
                    match unit.class {
                        UnitClass::Text => 0,
                        UnitClass::FileReference | UnitClass::Resource if !used_refs[u] => 1,
                        UnitClass::ToolExchange => 2,
                        // After what it could summarize next, so a new summary never costs it.
                        UnitClass::Summary => 3,
                        UnitClass::FileReference | UnitClass::Resource => 4,
                    }
                })
                .collect();
            let tier = |u: usize| tiers[u];
            // Older text first (and references no longer used); tool exchanges stay, and only
            // when they alone are over the budget do the oldest results lose their output
            // (the call, its status and its ledger line stay) before whole exchanges go.
            let order: Vec<usize> = (0..newest).filter(|u| tier(*u) <= 1).collect();
            let mut order = order;
            order.sort_by_key(|u| tier(*u));
            drop_in_order(&units, &mut keep, &mut used, raw_limit, order);
            if used > raw_limit {
                let exchanges: Vec<usize> = (0..newest)
                    .filter(|u| tier(*u) == 2 && keep[*u] && !units[*u].pinned)
                    .collect();
                elide_outputs(
                    &mut plan,
                    &mut elided_results,
                    Elision {
                        messages,
                        effective,
                        exchanges: &exchanges,
                        counter,
                        limit: raw_limit,
                    },
                    units.to_mut(),
                    &mut used,
                );
            }
            let mut order: Vec<usize> = (0..newest).filter(|u| tier(*u) >= 2).collect();
            order.sort_by_key(|u| match tier(*u) {
                3 => 0,
                2 => 1,
                t => t,
            });
            drop_in_order(&units, &mut keep, &mut used, raw_limit, order);
            for (u, unit) in units.iter().enumerate() {
                if !keep[u] && matches!(unit.class, UnitClass::Text | UnitClass::ToolExchange) {
                    let mut indices: Vec<usize> =
                        unit.slots.iter().map(|s| effective[*s].0).collect();
                    indices.sort_unstable();
                    plan.summarizable.push(DroppedUnit {
                        messages: indices,
                        tokens: unit.tokens,
                    });
                }
            }
        }
        OptimizationStrategy::ImportanceScoring { weights } => {
            let used_refs = prepared.used_refs();
            let weight = |factor: &str| weights.get(factor).copied().unwrap_or(1.0);
            for factor in weights.keys() {
                if !FACTORS.contains(&factor.as_str()) {
                    tracing::warn!(factor = %factor, known = ?FACTORS, "unknown importance weight ignored");
                }
            }
            let scores: Vec<f64> = units
                .iter()
                .enumerate()
                .map(|(u, unit)| {
                    let recency = (u + 1) as f64 / units.len() as f64;
                    let kind = match (unit.class, unit.role) {
                        (UnitClass::ToolExchange, _) => 1.0,
                        (UnitClass::Summary, _) => 0.8,
                        (UnitClass::FileReference | UnitClass::Resource, _) => 0.7,
                        (UnitClass::Text, Role::User) => 0.6,
                        (UnitClass::Text, _) => 0.5,
                    };
                    let references = if used_refs[u] { 1.0 } else { 0.0 };
                    let size =
                        1.0 - (f64::from(unit.tokens) / f64::from(raw_limit.max(1))).min(1.0);
                    weight("recency") * recency
                        + weight("kind") * kind
                        + weight("references") * references
                        + weight("size") * size
                })
                .collect();
            let mut order: Vec<usize> = (0..newest).collect();
            // Highest score first; ties go to the newer unit.
            order.sort_by(|a, b| scores[*b].total_cmp(&scores[*a]).then(b.cmp(a)));
            keep = vec![false; units.len()];
            keep[newest] = true;
            used = fixed + units[newest].tokens;
            // Pinned units count against the budget first.
            for (u, unit) in units.iter().enumerate() {
                if unit.pinned && u != newest {
                    keep[u] = true;
                    used += unit.tokens;
                }
            }
            for u in order {
                if !keep[u] && used + units[u].tokens <= raw_limit {
                    keep[u] = true;
                    used += units[u].tokens;
                }
            }
        }
    }

    let mut kept_positions: Vec<usize> = units
        .iter()
        .enumerate()
        .filter(|(u, _)| keep[*u])
        .flat_map(|(_, unit)| unit.slots.iter().copied())
        .collect();
    kept_positions.sort_unstable();
    let mut elided = elided_results;
    plan.slots = kept_positions
        .iter()
        .map(|p| match elided.remove(&effective[*p].0) {
            true => Slot::Elided(effective[*p].0),
            false => slot_of(effective[*p]),
        })
        .collect();
    // An exchange elided and then dropped whole is reported as dropped only.
    let dropped_elided: std::collections::HashSet<MessageId> =
        elided.iter().map(|i| messages[*i].id).collect();
    plan.elided
        .retain(|(id, _, _)| !dropped_elided.contains(id));
    let mut dropped_positions: Vec<usize> = units
        .iter()
        .enumerate()
        .filter(|(u, _)| !keep[*u])
        .flat_map(|(_, unit)| unit.slots.iter().copied())
        .collect();
    dropped_positions.sort_unstable();
    plan.dropped = dropped_positions
        .iter()
        .map(|p| messages[effective[*p].0].id)
        .collect();
    log_dropped_references(prepared, &keep, name);

    if used > raw_limit {
        used = truncate_newest(
            &mut plan,
            messages,
            &units[newest],
            effective,
            counter,
            used,
            raw_limit,
        )?;
    }
    plan.tokens_after = scaled(used, ratio);
    Ok(plan)
}

/// Logs each file reference and MCP resource a plan leaves out, with why (seed 000: resource
/// removal is logged), so an operator can tell a forgotten resource from a lost one.
fn log_dropped_references(prepared: &Prepared<'_>, keep: &[bool], strategy: StrategyName) {
    let (messages, effective, units) = (prepared.messages, &prepared.effective, &prepared.units);
    let is_reference = |u: &Unit| matches!(u.class, UnitClass::FileReference | UnitClass::Resource);
    if !units.iter().zip(keep).any(|(u, k)| !k && is_reference(u)) {
        return;
    }
    let used = prepared.used_refs();
    for (u, unit) in units.iter().enumerate() {
        if keep[u] || !is_reference(unit) {
            continue;
        }
        let Some(m) = unit.slots.first().map(|s| &messages[effective[*s].0]) else {
            continue;
        };
        let reason = match (strategy, used[u]) {
            (StrategyName::RecentN, _) => "older than the newest messages `recent_n` keeps",
            (_, false) => "not used among the newest messages, and the request was over its budget",
            (_, true) => {
                "used lately, but the request was over its budget even without older messages"
            }
        };
        match &m.kind {
            MessageKind::McpResource(r) => tracing::info!(
                message = %m.id,
                server = %r.server_name,
                uri = %r.resource_uri,
                ?strategy,
                reason,
                "MCP resource left out of the request"
            ),
            MessageKind::FileReference(f) => tracing::info!(
                message = %m.id,
                path = %f.path,
                ?strategy,
                reason,
                "file reference left out of the request"
            ),
            _ => {}
        }
    }
}

/// The factors `importance_scoring` weighs.
pub const FACTORS: [&str; 4] = ["recency", "kind", "references", "size"];

/// Drops units in `order` until the request fits.
fn drop_in_order(
    units: &[Unit],
    keep: &mut [bool],
    used: &mut u32,
    limit: u32,
    order: impl IntoIterator<Item = usize>,
) {
    for u in order {
        if *used <= limit {
            return;
        }
        if keep[u] && !units[u].pinned {
            keep[u] = false;
            *used -= units[u].tokens;
        }
    }
}

/// What [`elide_outputs`] works over.
struct Elision<'a> {
    messages: &'a [Message],
    effective: &'a [(usize, bool)],
    /// The exchanges that may lose outputs, oldest first.
    exchanges: &'a [usize],
    counter: &'a TokenCounter,
    limit: u32,
}

/// Sends the oldest exchanges' successful results without their output until the request
/// fits or none is left: their input indices go into `elided`, the units' tokens shrink, and
/// `plan.elided` lists them. No copy is made here: a plan may be made again (around the
/// ledger's room), and only the request's messages need the copies.
fn elide_outputs(
    plan: &mut Plan,
    elided: &mut std::collections::HashSet<usize>,
    over: Elision<'_>,
    units: &mut [Unit],
    used: &mut u32,
) {
    for u in over.exchanges {
        for position in units[*u].slots.clone() {
            if *used <= over.limit {
                return;
            }
            let index = over.effective[position].0;
            let message = &over.messages[index];
            let Some(after) = over.counter.elided(message, || elided_copy(message)) else {
                continue;
            };
            let before = over.counter.message(message);
            if after >= before {
                continue;
            }
            *used -= before - after;
            units[*u].tokens -= before - after;
            plan.elided.push((message.id, before, after));
            elided.insert(index);
        }
    }
}

/// The note an elided result is sent with.
pub const ELIDED_OUTPUT: &str = "[output left out to fit the context window; the call and its status are kept, and the ledger lists the paths and commands it touched]";

/// A successful tool result with its output replaced by [`ELIDED_OUTPUT`]; `None` for any other
/// message.
pub fn elided_copy(message: &Message) -> Option<Message> {
    // Asked of every message of an exchange on every plan: the others are not copied.
    let eligible = match &message.kind {
        MessageKind::ToolResult(r) => r.outcome.is_success(),
        MessageKind::McpToolResult(r) => {
            matches!(r.outcome, braid_protocol::McpOutcome::Success { .. })
        }
        _ => false,
    };
    if !eligible {
        return None;
    }
    let mut copy = message.clone();
    match &mut copy.kind {
        MessageKind::ToolResult(r) if r.outcome.is_success() => {
            r.outcome = ToolOutcome::Success {
                output: serde_json::Value::String(ELIDED_OUTPUT.to_owned()),
            };
        }
        MessageKind::McpToolResult(r)
            if matches!(r.outcome, braid_protocol::McpOutcome::Success { .. }) =>
        {
            r.outcome = braid_protocol::McpOutcome::Success {
                result: serde_json::json!({
                    "content": [{"type": "text", "text": ELIDED_OUTPUT}]
                }),
            };
        }
        _ => return None,
    }
    Some(copy)
}

/// Cuts the newest unit's largest texts down until the request fits. Each message is cut at
/// most once, so this ends.
fn truncate_newest(
    plan: &mut Plan,
    messages: &[Message],
    unit: &Unit,
    effective: &[(usize, bool)],
    counter: &TokenCounter,
    mut used: u32,
    limit: u32,
) -> Result<u32, PlanError> {
    let needed = used;
    let mut candidates: Vec<(usize, u32)> = unit
        .slots
        .iter()
        .filter(|p| !effective[**p].1)
        .map(|p| {
            let i = effective[*p].0;
            (i, counter.message(&messages[i]))
        })
        .collect();
    // Largest first; ties: the older one.
    candidates.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    for (index, tokens) in candidates {
        if used <= limit {
            break;
        }
        let excess = used - limit;
        let Some(target) = tokens
            .checked_sub(excess)
            .and_then(|t| t.checked_sub(TRUNCATION_NOTE_TOKENS))
            .filter(|t| *t > 0)
        else {
            continue;
        };
        let Some(cut) = truncated_copy(&messages[index], counter, target) else {
            continue;
        };
        let after = counter.message_uncached(&cut);
        if after >= tokens {
            continue;
        }
        used = used - tokens + after;
        plan.truncated.push((messages[index].id, tokens, after));
        if let Some(slot) = plan
            .slots
            .iter_mut()
            .find(|s| matches!(s, Slot::Message(i) if *i == index))
        {
            *slot = Slot::Truncated(index, Box::new(cut));
        }
    }
    if used > limit {
        return Err(PlanError::NewestTooLarge { needed, limit });
    }
    Ok(used)
}

/// A copy of a text or tool-result message whose content is cut to about `tokens` tokens, with
/// a note saying so.
fn truncated_copy(message: &Message, counter: &TokenCounter, tokens: u32) -> Option<Message> {
    let encoding = counter.encoding();
    let note = |removed: u32| {
        format!("\n[... {removed} tokens of this message were cut to fit the context window]")
    };
    let mut copy = message.clone();
    match &message.kind {
        MessageKind::Text(t) => {
            let text = t.text();
            let whole = encoding.count(&text);
            let kept = encoding.truncate(&text, tokens);
            let removed = whole.saturating_sub(encoding.count(&kept));
            copy.kind = MessageKind::Text(TextMessage::plain(format!("{kept}{}", note(removed))));
        }
        MessageKind::ToolResult(r) => {
            let ToolOutcome::Success { output } = &r.outcome else {
                return None;
            };
            let text = match output {
                serde_json::Value::String(s) => s.clone(),
                other => other.to_string(),
            };
            let whole = encoding.count(&text);
            let kept = encoding.truncate(&text, tokens);
            let removed = whole.saturating_sub(encoding.count(&kept));
            let mut r = r.clone();
            r.outcome = ToolOutcome::Success {
                output: serde_json::Value::String(format!("{kept}{}", note(removed))),
            };
            copy.kind = MessageKind::ToolResult(r);
        }
        _ => return None,
    }
    Some(copy)
}

/// The weights `importance_scoring` uses, defaults filled in (for events).
pub fn effective_weights(weights: &BTreeMap<String, f64>) -> BTreeMap<String, f64> {
    FACTORS
        .iter()
        .map(|f| ((*f).to_owned(), weights.get(*f).copied().unwrap_or(1.0)))
        .collect()
}
