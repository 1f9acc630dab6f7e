//! Branch merge (seed 001 "Branch Merging", DESIGN.md "Branch merge strategies"): which source
//! messages move to the target, what they depend on, where the branches conflict, what the
//! person's resolutions change, and a check of the result before anything is stored.
//!
//! [`plan`] is pure: it reads the pool and the two branches and answers the outcome and the
//! target's new order. The actor stores it in one change set (see `Actor::merge`).

use std::collections::{BTreeMap, HashMap, HashSet};

use braid_protocol::api::{
    ConflictKind, ConflictMessage, ConflictResolution, MergeConflict, MergeOutcome, MergeRequest,
    MergeStrategy, MergeWarning, Resolution, SkipReason, SkippedMessage, WarningKind,
};
use braid_protocol::{
    AgentRole, BranchName, FileResolution, Message, MessageId, MessageKind, Mode,
    SystemControlMessage, ToolCallId,
};
use serde_json::Value;

pub use crate::error::MergeError;

/// One branch of a merge: its name and its messages' ids in order.
#[derive(Clone, Copy, Debug)]
pub struct MergeSide<'a> {
    /// The branch.
    pub name: &'a BranchName,
    /// Its order.
    pub ids: &'a [MessageId],
}

/// What a merge is computed from.
pub struct MergeInput<'a> {
    /// Every message of the context.
    pub pool: &'a HashMap<MessageId, Message>,
    /// The branch merged from.
    pub source: MergeSide<'a>,
    /// The branch merged into.
    pub target: MergeSide<'a>,
    /// The request.
    pub request: &'a MergeRequest,
    /// Whether a call of the tool with this name can write a file (the registry knows; a tool
    /// it does not know counts as writing).
    pub writes: &'a dyn Fn(&str) -> bool,
    /// The context's mode and role now: what a branch without change notices ends in.
    pub mode: Mode,
    /// See `mode`.
    pub role: AgentRole,
}

/// A merge computed but not stored.
#[derive(Debug, Clone)]
pub struct MergePlan {
    /// What it does (`merged` is false until the actor stores it).
    pub outcome: MergeOutcome,
    /// The target's new order, without the `branch_merge` notice.
    pub target_ids: Vec<MessageId>,
    /// The mode the context takes when a resolution takes the source's mode.
    pub mode: Option<Mode>,
    /// The role the context takes when a resolution takes the source's role.
    pub role: Option<AgentRole>,
}

impl MergePlan {
    /// The change set that stores this merge on `target` with its `notice`. A merge that takes
    /// nothing off the target only appends (the store writes the new positions alone); one that
    /// does rewrites the target's order.
    pub fn changes(&self, target: &BranchName, notice: Message) -> braid_store::ContextChanges {
        let mut changes = braid_store::ContextChanges::new();
        if self.outcome.removed.is_empty() {
            changes.appends.push(braid_store::BranchIds {
                branch: target.clone(),
                message_ids: self.outcome.moved.clone(),
            });
            changes.push_message(target, notice);
        } else {
            let mut ids = self.target_ids.clone();
            ids.push(notice.id);
            changes.new_messages.push(notice);
            changes.replacements.push(braid_store::BranchIds {
                branch: target.clone(),
                message_ids: ids,
            });
        }
        changes
    }

    /// Whether the merge must wait: conflicts without a resolution, or warnings not accepted.
    pub fn is_held(&self, accept_warnings: bool) -> bool {
        self.outcome.unresolved().next().is_some()
            || (!self.outcome.warnings.is_empty() && !accept_warnings)
    }
}

/// A conflict and the messages each side would keep or lose by it.
struct Found {
    conflict: MergeConflict,
    target_side: Vec<MessageId>,
    source_side: Vec<MessageId>,
    mode: Option<Mode>,
    role: Option<AgentRole>,
}

/// Who asked for and who answered each tool call, over both branches.
#[derive(Default)]
struct Calls {
    requests: HashMap<ToolCallId, MessageId>,
    results: HashMap<ToolCallId, Vec<MessageId>>,
}

impl Calls {
    fn index<'a>(messages: impl Iterator<Item = &'a Message>) -> Self {
        let mut calls = Calls::default();
        for m in messages {
            for call in request_calls(m) {
                calls.requests.entry(call).or_insert(m.id);
            }
            if let Some(call) = result_call(m) {
                let results = calls.results.entry(call).or_default();
                if !results.contains(&m.id) {
                    results.push(m.id);
                }
            }
        }
        calls
    }

    /// `ids` with every message tied to them by a tool call: a request with its results, a
    /// result with its request and that request's other results.
    fn closure(&self, pool: &HashMap<MessageId, Message>, ids: &[MessageId]) -> HashSet<MessageId> {
        let mut out: HashSet<MessageId> = HashSet::new();
        let mut todo: Vec<MessageId> = ids.to_vec();
        while let Some(id) = todo.pop() {
            if !out.insert(id) {
                continue;
            }
            let Some(m) = pool.get(&id) else { continue };
            for call in request_calls(m) {
                todo.extend(self.results.get(&call).into_iter().flatten().copied());
            }
            if let Some(call) = result_call(m)
                && let Some(request) = self.requests.get(&call)
            {
                todo.push(*request);
            }
        }
        out
    }
}

/// The call ids a message asks for (built-in or MCP).
fn request_calls(m: &Message) -> Vec<ToolCallId> {
    match &m.kind {
        MessageKind::ToolRequest(r) => r.calls.iter().map(|c| c.id.clone()).collect(),
        MessageKind::McpToolRequest(r) => vec![r.request_id.clone()],
        _ => Vec::new(),
    }
}

/// The call id a message answers (built-in or MCP).
fn result_call(m: &Message) -> Option<ToolCallId> {
    match &m.kind {
        MessageKind::ToolResult(r) => Some(r.call_id.clone()),
        MessageKind::McpToolResult(r) => Some(r.request_id.clone()),
        _ => None,
    }
}

/// A workspace path as two branches would both name it.
fn normal_path(path: &str) -> String {
    let mut p = path.trim();
    while let Some(rest) = p.strip_prefix("./") {
        p = rest;
    }
    p.trim_end_matches('/').to_owned()
}

/// The workspace files a message's calls write.
fn written_paths(m: &Message, writes: &dyn Fn(&str) -> bool) -> Vec<String> {
    let path_of = |arguments: &Value| {
        arguments
            .get("path")
            .and_then(Value::as_str)
            .map(normal_path)
    };
    match &m.kind {
        MessageKind::ToolRequest(r) => r
            .calls
            .iter()
            .filter(|c| writes(&c.name))
            .filter_map(|c| path_of(&c.arguments))
            .collect(),
        MessageKind::McpToolRequest(r) if writes(&r.called_as) => {
            path_of(&r.arguments).into_iter().collect()
        }
        _ => Vec::new(),
    }
}

/// What makes two messages the same for `append`: role, kind and data.
fn same_content(a: &Message, b: &Message) -> bool {
    a.role == b.role
        && a.kind_name() == b.kind_name()
        && serde_json::to_value(&a.kind).ok() == serde_json::to_value(&b.kind).ok()
}

/// Notices about a branch itself, which mean nothing on another branch.
fn is_branch_notice(m: &Message) -> bool {
    matches!(
        m.kind,
        MessageKind::SystemControl(
            SystemControlMessage::BranchSwitch { .. } | SystemControlMessage::BranchMerge { .. }
        )
    )
}

/// Computes a merge without storing anything.
pub fn plan(input: &MergeInput<'_>) -> Result<MergePlan, MergeError> {
    let MergeInput {
        pool,
        source,
        target,
        request,
        ..
    } = *input;
    if source.name == target.name {
        return Err(MergeError::SameBranch(source.name.clone()));
    }
    let shared = source
        .ids
        .iter()
        .zip(target.ids)
        .take_while(|(a, b)| a == b)
        .count();
    let common_ancestor = shared.checked_sub(1).map(|i| source.ids[i]);
    let in_target: HashSet<MessageId> = target.ids.iter().copied().collect();
    let target_new: Vec<&Message> = target.ids[shared..]
        .iter()
        .filter_map(|id| pool.get(id))
        .collect();

    let mut skipped = Vec::new();
    let mut candidates: Vec<MessageId> = Vec::new();
    let considered: Vec<MessageId> = match &request.strategy {
        MergeStrategy::Append => source.ids.to_vec(),
        MergeStrategy::Rebase | MergeStrategy::Summary { .. } => source.ids[shared..].to_vec(),
        MergeStrategy::CherryPick { message_ids } => {
            let position: HashMap<MessageId, usize> = source
                .ids
                .iter()
                .enumerate()
                .map(|(i, id)| (*id, i))
                .collect();
            let mut picked = Vec::new();
            for (index, id) in message_ids.iter().enumerate() {
                let Some(at) = position.get(id) else {
                    return Err(MergeError::NotOnSource {
                        index,
                        id: *id,
                        source_branch: source.name.clone(),
                    });
                };
                picked.push((*at, *id));
            }
            picked.sort();
            picked.dedup();
            picked.into_iter().map(|(_, id)| id).collect()
        }
    };
    for id in considered {
        let Some(m) = pool.get(&id) else { continue };
        let reason = if in_target.contains(&id) {
            Some(SkipReason::AlreadyInTarget)
        } else if is_branch_notice(m) {
            Some(SkipReason::BranchNotice)
        } else if m.is_held_input() {
            Some(SkipReason::HeldInput)
        } else if matches!(request.strategy, MergeStrategy::Append)
            && target_new.iter().any(|t| same_content(t, m))
        {
            Some(SkipReason::SameContent)
        } else {
            None
        };
        match reason {
            Some(reason) => skipped.push(SkippedMessage { id, reason }),
            None => candidates.push(id),
        }
    }

    let calls = Calls::index(
        source
            .ids
            .iter()
            .chain(target.ids)
            .filter_map(|id| pool.get(id)),
    );
    let warnings = if matches!(request.strategy, MergeStrategy::CherryPick { .. }) {
        dependency_warnings(pool, &calls, &in_target, &candidates)
    } else {
        Vec::new()
    };

    let source_new: Vec<&Message> = candidates.iter().filter_map(|id| pool.get(id)).collect();
    let found = find_conflicts(input, &target_new, &source_new, &in_target, &candidates);

    // Resolutions: each names a conflict once, with a choice it offers.
    let mut chosen: HashMap<&str, Resolution> = HashMap::new();
    for (index, r) in request.resolutions.iter().enumerate() {
        let Some(f) = found.iter().find(|f| f.conflict.id == r.conflict) else {
            return Err(MergeError::UnknownConflict {
                index,
                conflict: r.conflict.clone(),
            });
        };
        if !f.conflict.suggestions.contains(&r.resolution) {
            return Err(MergeError::ResolutionNotOffered {
                index,
                conflict: r.conflict.clone(),
                resolution: r.resolution.as_str(),
                offered: f
                    .conflict
                    .suggestions
                    .iter()
                    .map(|s| s.as_str())
                    .collect::<Vec<_>>()
                    .join(", "),
            });
        }
        if chosen.insert(r.conflict.as_str(), r.resolution).is_some() {
            return Err(MergeError::DuplicateResolution {
                index,
                conflict: r.conflict.clone(),
            });
        }
    }

    let mut leave_out: HashSet<MessageId> = HashSet::new();
    let mut take_off: HashSet<MessageId> = HashSet::new();
    let (mut mode, mut role) = (None, None);
    for f in &found {
        let Some(resolution) = chosen.get(f.conflict.id.as_str()) else {
            continue;
        };
        let (drop_source, drop_target) = match resolution {
            Resolution::KeepTarget => (true, false),
            Resolution::TakeSource => (false, true),
            Resolution::KeepBoth => (false, false),
            Resolution::Skip => (true, true),
        };
        if drop_source {
            leave_out.extend(calls.closure(pool, &f.source_side));
        }
        if drop_target {
            take_off.extend(calls.closure(pool, &f.target_side));
        }
        if *resolution == Resolution::TakeSource {
            mode = mode.or(f.mode);
            role = role.or(f.role);
        }
    }
    // Only what the target gained after the ancestor can be taken off.
    let own: HashSet<MessageId> = target.ids[shared..].iter().copied().collect();
    take_off.retain(|id| own.contains(id));

    let mut moved: Vec<MessageId> = Vec::new();
    for id in candidates {
        if leave_out.contains(&id) {
            skipped.push(SkippedMessage {
                id,
                reason: SkipReason::Resolution,
            });
        } else {
            moved.push(id);
        }
    }
    // Within what is appended, order is by creation (ids are UUIDv7, so they break ties).
    moved.sort_by_key(|id| (pool.get(id).map(|m| m.created_at), *id));
    let removed: Vec<MessageId> = target
        .ids
        .iter()
        .filter(|id| take_off.contains(id))
        .copied()
        .collect();
    let target_ids: Vec<MessageId> = target
        .ids
        .iter()
        .filter(|id| !take_off.contains(id))
        .chain(&moved)
        .copied()
        .collect();

    let resolutions: Vec<ConflictResolution> = request
        .resolutions
        .iter()
        .filter(|r| chosen.contains_key(r.conflict.as_str()))
        .cloned()
        .collect();
    let outcome = MergeOutcome {
        source: source.name.clone(),
        target: target.name.clone(),
        strategy: request.strategy.name(),
        merged: false,
        common_ancestor,
        moved,
        removed,
        skipped,
        warnings,
        conflicts: found.into_iter().map(|f| f.conflict).collect(),
        resolutions,
        notice_id: None,
        summary: None,
    };
    let plan = MergePlan {
        outcome,
        target_ids,
        mode,
        role,
    };
    if !plan.is_held(request.accept_warnings) {
        validate(
            pool,
            &calls,
            target.name,
            target.ids.len() - plan.outcome.removed.len(),
            &plan,
        )?;
    }
    Ok(plan)
}

/// The dependencies picked messages leave behind.
fn dependency_warnings(
    pool: &HashMap<MessageId, Message>,
    calls: &Calls,
    in_target: &HashSet<MessageId>,
    picked: &[MessageId],
) -> Vec<MergeWarning> {
    let present = |id: &MessageId| in_target.contains(id) || picked.contains(id);
    let mut warnings = Vec::new();
    for id in picked {
        let Some(m) = pool.get(id) else { continue };
        let mut warn = |kind: WarningKind, missing: Vec<MessageId>, detail: String| {
            warnings.push(MergeWarning {
                kind,
                message_id: *id,
                missing,
                detail,
            });
        };
        match &m.kind {
            MessageKind::ToolResult(_) | MessageKind::McpToolResult(_) => {
                let Some(call) = result_call(m) else { continue };
                let request = calls.requests.get(&call).copied();
                if request.is_none_or(|r| !present(&r)) {
                    let (kind, what) = if matches!(m.kind, MessageKind::ToolResult(_)) {
                        (WarningKind::ResultWithoutRequest, "tool result")
                    } else {
                        (WarningKind::McpResultWithoutRequest, "MCP tool result")
                    };
                    warn(
                        kind,
                        request.into_iter().collect(),
                        format!(
                            "the {what} for call `{call}` is picked without the request that asked for it"
                        ),
                    );
                }
            }
            MessageKind::ToolRequest(_) | MessageKind::McpToolRequest(_) => {
                let missing: Vec<MessageId> = request_calls(m)
                    .iter()
                    .flat_map(|call| calls.results.get(call).into_iter().flatten())
                    .filter(|r| !present(r))
                    .copied()
                    .collect();
                if !missing.is_empty() {
                    let kind = if matches!(m.kind, MessageKind::ToolRequest(_)) {
                        WarningKind::RequestWithoutResult
                    } else {
                        WarningKind::McpRequestWithoutResult
                    };
                    warn(
                        kind,
                        missing,
                        "a tool request is picked without its result".to_owned(),
                    );
                }
            }
            _ => {
                let reference = |key: &str, field: Option<&str>| {
                    let v = m.metadata.get(key)?;
                    let v = match field {
                        Some(f) => v.get(f)?,
                        None => v,
                    };
                    serde_json::from_value::<MessageId>(v.clone()).ok()
                };
                if let Some(plan) = reference("plan_id", None)
                    && !present(&plan)
                {
                    warn(
                        WarningKind::ExecutionWithoutPlan,
                        pool.contains_key(&plan)
                            .then_some(plan)
                            .into_iter()
                            .collect(),
                        format!("the execution of plan {plan} is picked without the plan"),
                    );
                }
                if let Some(question) = reference("answer_to", Some("question_id"))
                    && !present(&question)
                {
                    warn(
                        WarningKind::AnswerWithoutQuestion,
                        pool.contains_key(&question)
                            .then_some(question)
                            .into_iter()
                            .collect(),
                        format!("an answer to question {question} is picked without the question"),
                    );
                }
            }
        }
    }
    warnings
}

fn side(ms: &[&Message], branch: &BranchName) -> Vec<ConflictMessage> {
    ms.iter()
        .map(|m| ConflictMessage {
            id: m.id,
            branch: branch.clone(),
            created_at: m.created_at,
        })
        .collect()
}

/// Where the two sides after the ancestor disagree.
fn find_conflicts(
    input: &MergeInput<'_>,
    target_new: &[&Message],
    source_new: &[&Message],
    in_target: &HashSet<MessageId>,
    candidates: &[MessageId],
) -> Vec<Found> {
    let (t, s) = (input.target.name, input.source.name);
    let mut found = Vec::new();
    let make = |id: String,
                kind: ConflictKind,
                target_side: Vec<&Message>,
                source_side: Vec<&Message>,
                detail: String,
                suggestions: Vec<Resolution>| {
        let mut messages = side(&target_side, t);
        messages.extend(side(&source_side, s));
        Found {
            conflict: MergeConflict {
                id,
                kind,
                messages,
                detail,
                suggestions,
            },
            target_side: target_side.iter().map(|m| m.id).collect(),
            source_side: source_side.iter().map(|m| m.id).collect(),
            mode: None,
            role: None,
        }
    };

    // Both sides wrote the same file.
    let target_writes = writes_by_path(target_new, input.writes);
    let source_writes = writes_by_path(source_new, input.writes);
    for (path, tw) in &target_writes {
        if let Some(sw) = source_writes.get(path) {
            found.push(make(
                format!("file_write:{path}"),
                ConflictKind::FileWrite,
                tw.clone(),
                sw.clone(),
                format!(
                    "both branches wrote `{path}` after they diverged ({} on `{t}`, {} on `{s}`); the conversations disagree on what the file holds",
                    tw.len(),
                    sw.len()
                ),
                vec![
                    Resolution::KeepTarget,
                    Resolution::TakeSource,
                    Resolution::KeepBoth,
                    Resolution::Skip,
                ],
            ));
        }
    }

    // The branches end in different modes or roles.
    let target_all: Vec<&Message> = input
        .target
        .ids
        .iter()
        .filter_map(|id| input.pool.get(id))
        .collect();
    let mode_of = |m: &Message| match &m.kind {
        MessageKind::SystemControl(SystemControlMessage::ModeChange { to, .. }) => Some(*to),
        _ => None,
    };
    let role_of = |m: &Message| match &m.kind {
        MessageKind::SystemControl(SystemControlMessage::RoleChange { to, .. }) => Some(*to),
        _ => None,
    };
    let target_mode = target_all
        .iter()
        .rev()
        .find_map(|m| mode_of(m))
        .unwrap_or(input.mode);
    if let Some(source_mode) = source_new.iter().rev().find_map(|m| mode_of(m))
        && source_mode != target_mode
    {
        let mut f = make(
            "mode".to_owned(),
            ConflictKind::Mode,
            target_new
                .iter()
                .copied()
                .filter(|m| mode_of(m).is_some())
                .collect(),
            source_new
                .iter()
                .copied()
                .filter(|m| mode_of(m).is_some())
                .collect(),
            format!("`{t}` ends in {target_mode} mode and `{s}` in {source_mode} mode"),
            vec![Resolution::KeepTarget, Resolution::TakeSource],
        );
        f.mode = Some(source_mode);
        found.push(f);
    }
    let target_role = target_all
        .iter()
        .rev()
        .find_map(|m| role_of(m))
        .unwrap_or(input.role);
    if let Some(source_role) = source_new.iter().rev().find_map(|m| role_of(m))
        && source_role != target_role
    {
        let mut f = make(
            "role".to_owned(),
            ConflictKind::Role,
            target_new
                .iter()
                .copied()
                .filter(|m| role_of(m).is_some())
                .collect(),
            source_new
                .iter()
                .copied()
                .filter(|m| role_of(m).is_some())
                .collect(),
            format!("`{t}` ends with the {target_role} role and `{s}` with the {source_role} role"),
            vec![Resolution::KeepTarget, Resolution::TakeSource],
        );
        f.role = Some(source_role);
        found.push(f);
    }

    // A moved summary stands for messages the merged target would not have.
    for m in source_new {
        if let MessageKind::SystemControl(SystemControlMessage::Summary { replaces, .. }) = &m.kind
        {
            let absent = replaces
                .iter()
                .filter(|id| !in_target.contains(id) && !candidates.contains(id))
                .count();
            if absent > 0 {
                found.push(make(
                    format!("summary:{}", m.id),
                    ConflictKind::Summary,
                    Vec::new(),
                    vec![m],
                    format!(
                        "a summary on `{s}` stands for {absent} of its {} messages that `{t}` would not have",
                        replaces.len()
                    ),
                    vec![Resolution::KeepTarget, Resolution::KeepBoth],
                ));
            }
        }
    }

    // The same file read with different contents on each side.
    let target_reads = reads(target_new);
    for (key, sr) in reads(source_new) {
        let Some(tr) = target_reads.get(&key) else {
            continue;
        };
        let differ = tr.iter().any(|(_, a)| sr.iter().any(|(_, b)| a != b));
        if differ {
            let path = key.split(':').next().unwrap_or(&key).to_owned();
            found.push(make(
                format!("file_reference:{key}"),
                ConflictKind::FileReference,
                tr.iter().map(|(m, _)| *m).collect(),
                sr.iter().map(|(m, _)| *m).collect(),
                format!("`{path}` was read on both branches and its contents differ"),
                vec![
                    Resolution::KeepBoth,
                    Resolution::TakeSource,
                    Resolution::KeepTarget,
                ],
            ));
        }
    }
    found
}

/// The messages of `ms` that write each file, by path.
fn writes_by_path<'a>(
    ms: &[&'a Message],
    writes: &dyn Fn(&str) -> bool,
) -> BTreeMap<String, Vec<&'a Message>> {
    let mut by: BTreeMap<String, Vec<&'a Message>> = BTreeMap::new();
    for m in ms {
        for path in written_paths(m, writes) {
            let list = by.entry(path).or_default();
            if !list.iter().any(|x| x.id == m.id) {
                list.push(m);
            }
        }
    }
    by
}

/// The file references of `ms` that were read, with what they read, by path and range.
fn reads<'a>(ms: &[&'a Message]) -> BTreeMap<String, Vec<(&'a Message, &'a str)>> {
    let mut by: BTreeMap<String, Vec<(&'a Message, &'a str)>> = BTreeMap::new();
    for m in ms {
        if let MessageKind::FileReference(r) = &m.kind
            && let FileResolution::Resolved { content, .. } = &r.resolution
        {
            let key = match &r.range {
                Some(range) => format!(
                    "{}:{}",
                    normal_path(&r.path),
                    serde_json::to_string(range).unwrap_or_default()
                ),
                None => normal_path(&r.path),
            };
            by.entry(key).or_default().push((m, content.as_str()));
        }
    }
    by
}

/// Checks the merged target before it is stored: every id in the pool, none twice, what was
/// appended in creation order, and every tool result after its request (a result whose request
/// is not on the branch only when the person accepted that warning).
fn validate(
    pool: &HashMap<MessageId, Message>,
    calls: &Calls,
    target: &BranchName,
    kept: usize,
    plan: &MergePlan,
) -> Result<(), MergeError> {
    let broken = |reason: String| MergeError::Broken {
        target: target.clone(),
        reason,
    };
    let mut seen: HashMap<MessageId, usize> = HashMap::new();
    for (at, id) in plan.target_ids.iter().enumerate() {
        if !pool.contains_key(id) {
            return Err(broken(format!(
                "message {id} is not stored in this context"
            )));
        }
        if seen.insert(*id, at).is_some() {
            return Err(broken(format!("message {id} would be on it twice")));
        }
    }
    let appended = &plan.target_ids[kept.min(plan.target_ids.len())..];
    for pair in appended.windows(2) {
        let (a, b) = (&pool[&pair[0]], &pool[&pair[1]]);
        if (a.created_at, a.id) > (b.created_at, b.id) {
            return Err(broken(format!(
                "appended message {} would come before the older {}",
                a.id, b.id
            )));
        }
    }
    let accepted: HashSet<MessageId> = plan
        .outcome
        .warnings
        .iter()
        .filter(|w| {
            matches!(
                w.kind,
                WarningKind::ResultWithoutRequest | WarningKind::McpResultWithoutRequest
            )
        })
        .map(|w| w.message_id)
        .collect();
    // What the target already held was valid before; only what the merge appends is checked.
    for (at, id) in plan.target_ids.iter().enumerate().skip(kept) {
        let Some(call) = result_call(&pool[id]) else {
            continue;
        };
        match calls.requests.get(&call).and_then(|r| seen.get(r)) {
            Some(request_at) if *request_at < at => {}
            Some(_) => {
                return Err(broken(format!(
                    "the result {id} of call `{call}` would come before its request"
                )));
            }
            None if accepted.contains(id) => {}
            None => {
                return Err(broken(format!(
                    "the result {id} of call `{call}` would be on it without its request"
                )));
            }
        }
    }
    Ok(())
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::panic)]
mod tests {
    use super::*;
    use braid_protocol::api::MergeStrategy;
    use braid_protocol::{Role, ToolRequestMessage, ToolResultMessage};
    use serde_json::json;

    /// A context's pool with two branches, built message by message.
    #[derive(Default)]
    struct Pool {
        pool: HashMap<MessageId, Message>,
    }

    impl Pool {
        fn add(&mut self, m: Message) -> MessageId {
            let id = m.id;
            self.pool.insert(id, m);
            id
        }
        fn text(&mut self, role: Role, text: &str) -> MessageId {
            self.add(match role {
                Role::Assistant => Message::assistant_text(text),
                _ => Message::user_text(text),
            })
        }
        fn request(&mut self, call: &str, tool: &str, path: &str) -> MessageId {
            let data: ToolRequestMessage = serde_json::from_value(json!({
                "calls": [{"id": call, "name": tool, "arguments": {"path": path}, "approval_status": "approved"}]
            }))
            .unwrap();
            self.add(Message::new(
                Role::Assistant,
                MessageKind::ToolRequest(data),
            ))
        }
        fn result(&mut self, call: &str, tool: &str) -> MessageId {
            let data: ToolResultMessage = serde_json::from_value(json!({
                "call_id": call, "tool_name": tool, "status": "success", "output": {"ok": true}, "duration_ms": 1
            }))
            .unwrap();
            self.add(Message::new(
                Role::Tool,
                MessageKind::ToolResult(Box::new(data)),
            ))
        }
        fn kind(&mut self, role: Role, kind: &str, data: Value) -> MessageId {
            let kind: MessageKind =
                serde_json::from_value(json!({"kind": kind, "data": data})).unwrap();
            self.add(Message::new(role, kind))
        }
        fn plan(
            &self,
            source: &[MessageId],
            target: &[MessageId],
            request: MergeRequest,
        ) -> Result<MergePlan, MergeError> {
            let (s, t) = (BranchName::from("alt"), BranchName::main());
            plan(&MergeInput {
                pool: &self.pool,
                source: MergeSide {
                    name: &s,
                    ids: source,
                },
                target: MergeSide {
                    name: &t,
                    ids: target,
                },
                request: &request,
                writes: &|name: &str| name != "read_file",
                mode: Mode::Act,
                role: AgentRole::Actor,
            })
        }
    }

    fn request(strategy: MergeStrategy) -> MergeRequest {
        MergeRequest {
            target: None,
            strategy,
            dry_run: false,
            accept_warnings: false,
            resolutions: Vec::new(),
        }
    }

    fn pick(ids: &[MessageId]) -> MergeRequest {
        request(MergeStrategy::CherryPick {
            message_ids: ids.to_vec(),
        })
    }

    fn kinds(plan: &MergePlan) -> Vec<WarningKind> {
        plan.outcome.warnings.iter().map(|w| w.kind).collect()
    }

    #[test]
    fn picked_result_without_its_request_warns_naming_the_request() {
        let mut p = Pool::default();
        let q = p.text(Role::User, "q");
        let req = p.request("c1", "read_file", "a.txt");
        let res = p.result("c1", "read_file");
        let plan = p.plan(&[q, req, res], &[q], pick(&[res])).unwrap();
        assert_eq!(kinds(&plan), vec![WarningKind::ResultWithoutRequest]);
        assert_eq!(plan.outcome.warnings[0].missing, vec![req]);
        assert!(plan.is_held(false));
        assert!(!plan.is_held(true));
    }

    #[test]
    fn picked_request_without_its_result_warns_naming_the_result() {
        let mut p = Pool::default();
        let req = p.request("c1", "read_file", "a.txt");
        let res = p.result("c1", "read_file");
        let plan = p.plan(&[req, res], &[], pick(&[req])).unwrap();
        assert_eq!(kinds(&plan), vec![WarningKind::RequestWithoutResult]);
        assert_eq!(plan.outcome.warnings[0].missing, vec![res]);
    }

    #[test]
    fn picked_mcp_result_and_request_without_their_partners_warn() {
        let mut p = Pool::default();
        let req = p.kind(
            Role::Assistant,
            "mcp_tool_request",
            json!({"server_name": "time", "tool_name": "now", "called_as": "time__now", "arguments": {}, "request_id": "m1", "approval_status": "approved", "requested_at": "2026-01-01T00:00:00Z"}),
        );
        let res = p.kind(
            Role::Tool,
            "mcp_tool_result",
            json!({"server_name": "time", "tool_name": "now", "request_id": "m1", "status": "success", "result": {}, "executed_at": "2026-01-01T00:00:01Z", "duration_ms": 3}),
        );
        let plan = p.plan(&[req, res], &[], pick(&[res])).unwrap();
        assert_eq!(kinds(&plan), vec![WarningKind::McpResultWithoutRequest]);
        let plan = p.plan(&[req, res], &[], pick(&[req])).unwrap();
        assert_eq!(kinds(&plan), vec![WarningKind::McpRequestWithoutResult]);
        let plan = p.plan(&[req, res], &[], pick(&[req, res])).unwrap();
        assert!(plan.outcome.warnings.is_empty());
    }

    #[test]
    fn picked_plan_execution_and_answer_without_plan_and_question_warn() {
        let mut p = Pool::default();
        let plan_msg = p.kind(
            Role::Assistant,
            "plan",
            json!({"goal": "g", "steps": [{"step_number": 1, "action": "a", "reason": "r"}]}),
        );
        let mut exec = Message::user_text("Execute the plan: g");
        exec.metadata.insert("plan_id".into(), json!(plan_msg));
        let exec = p.add(exec);
        let question = p.kind(
            Role::Assistant,
            "question",
            json!({"question": "Which?", "options": [{"label": "A", "value": "a"}]}),
        );
        let mut answer = Message::user_text("A");
        answer.metadata.insert(
            "answer_to".into(),
            json!({"question_id": question, "value": "a"}),
        );
        let answer = p.add(answer);
        let source = [plan_msg, exec, question, answer];
        let plan = p.plan(&source, &[], pick(&[exec, answer])).unwrap();
        assert_eq!(
            kinds(&plan),
            vec![
                WarningKind::ExecutionWithoutPlan,
                WarningKind::AnswerWithoutQuestion
            ]
        );
        assert_eq!(plan.outcome.warnings[0].missing, vec![plan_msg]);
        // A plan the target already has is no missing dependency.
        let plan = p.plan(&source, &[plan_msg], pick(&[exec])).unwrap();
        assert!(plan.outcome.warnings.is_empty());
    }

    #[test]
    fn a_summary_standing_for_messages_the_target_lacks_conflicts() {
        let mut p = Pool::default();
        let base = p.text(Role::User, "base");
        let old = p.text(Role::User, "only on alt");
        let summary = p.kind(
            Role::Assistant,
            "system_control",
            json!({"type": "summary", "text": "they talked", "replaces": [old]}),
        );
        let after = p.text(Role::User, "after the summary");
        let source = [base, old, summary, after];
        let plan = p.plan(&source, &[base], pick(&[summary, after])).unwrap();
        let c = &plan.outcome.conflicts[0];
        assert_eq!(c.kind, ConflictKind::Summary);
        assert_eq!(c.id, format!("summary:{summary}"));
        assert_eq!(c.messages[0].id, summary);
        // Keeping the target's side leaves the summary out.
        let mut r = pick(&[summary, after]);
        r.resolutions.push(ConflictResolution {
            conflict: c.id.clone(),
            resolution: Resolution::KeepTarget,
        });
        let plan = p.plan(&source, &[base], r).unwrap();
        assert_eq!(plan.target_ids, vec![base, after]);
        // With the messages it stands for, nothing conflicts.
        let plan = p
            .plan(&source, &[base], request(MergeStrategy::Rebase))
            .unwrap();
        assert!(plan.outcome.conflicts.is_empty());
    }

    #[test]
    fn a_file_read_differently_on_each_side_conflicts() {
        let mut p = Pool::default();
        let base = p.text(Role::User, "base");
        let read = |content: &str| json!({"path": "./src/lib.rs", "resolution": {"type": "resolved", "content": content, "total_lines": 1, "size_bytes": 3, "resolved_at": "2026-01-01T00:00:00Z"}});
        let on_main = p.kind(Role::User, "file_reference", read("1: a"));
        let on_alt = p.kind(Role::User, "file_reference", read("1: b"));
        let plan = p
            .plan(
                &[base, on_alt],
                &[base, on_main],
                request(MergeStrategy::Rebase),
            )
            .unwrap();
        let c = &plan.outcome.conflicts[0];
        assert_eq!(c.kind, ConflictKind::FileReference);
        assert_eq!(c.id, "file_reference:src/lib.rs");
        assert_eq!(
            c.messages.iter().map(|m| m.id).collect::<Vec<_>>(),
            vec![on_main, on_alt]
        );
        let same = p.kind(Role::User, "file_reference", read("1: a"));
        let plan = p
            .plan(
                &[base, same],
                &[base, on_main],
                request(MergeStrategy::Rebase),
            )
            .unwrap();
        assert!(plan.outcome.conflicts.is_empty());
    }

    #[test]
    fn resolutions_must_name_a_conflict_once_with_a_choice_it_offers() {
        let mut p = Pool::default();
        let base = p.text(Role::User, "base");
        let main_write = p.request("c1", "write_file", "a.txt");
        let main_result = p.result("c1", "write_file");
        let alt_write = p.request("c2", "write_file", "a.txt");
        let alt_result = p.result("c2", "write_file");
        let source = [base, alt_write, alt_result];
        let target = [base, main_write, main_result];
        let with = |resolutions: Vec<(&str, Resolution)>| {
            let mut r = request(MergeStrategy::Rebase);
            r.resolutions = resolutions
                .into_iter()
                .map(|(c, resolution)| ConflictResolution {
                    conflict: c.into(),
                    resolution,
                })
                .collect();
            p.plan(&source, &target, r)
        };
        let e = with(vec![("file_write:b.txt", Resolution::KeepBoth)]).unwrap_err();
        assert_eq!(e.field().as_deref(), Some("resolutions[0].conflict"));
        let e = with(vec![
            ("file_write:a.txt", Resolution::KeepBoth),
            ("file_write:a.txt", Resolution::Skip),
        ])
        .unwrap_err();
        assert!(matches!(
            e,
            MergeError::DuplicateResolution { index: 1, .. }
        ));
        let plan = with(vec![("file_write:a.txt", Resolution::Skip)]).unwrap();
        assert_eq!(plan.target_ids, vec![base]);
        assert_eq!(plan.outcome.removed, vec![main_write, main_result]);
    }

    #[test]
    fn a_mode_conflict_offers_only_one_side_or_the_other() {
        let mut p = Pool::default();
        let base = p.text(Role::User, "base");
        let to_plan = p.kind(
            Role::User,
            "system_control",
            json!({"type": "mode_change", "from": "act", "to": "plan"}),
        );
        let mut r = request(MergeStrategy::Rebase);
        r.resolutions.push(ConflictResolution {
            conflict: "mode".into(),
            resolution: Resolution::KeepBoth,
        });
        let e = p.plan(&[base, to_plan], &[base], r).unwrap_err();
        assert_eq!(e.field().as_deref(), Some("resolutions[0].resolution"));
        assert!(e.to_string().contains("keep_target, take_source"), "{e}");
    }

    #[test]
    fn cherry_picking_a_message_not_on_the_source_names_it() {
        let mut p = Pool::default();
        let base = p.text(Role::User, "base");
        let elsewhere = p.text(Role::User, "elsewhere");
        let e = p.plan(&[base], &[], pick(&[base, elsewhere])).unwrap_err();
        assert_eq!(e.field().as_deref(), Some("strategy.message_ids[1]"));
    }

    #[test]
    fn a_result_that_would_precede_its_request_is_refused() {
        let mut p = Pool::default();
        let base = p.text(Role::User, "base");
        let req = p.request("c1", "read_file", "a.txt");
        let res = p.result("c1", "read_file");
        // Written elsewhere with a clock that ran behind: the result looks older than its
        // request, so creation order would put it first.
        let earlier = p.pool[&req].created_at - chrono::Duration::seconds(5);
        p.pool.get_mut(&res).unwrap().created_at = earlier;
        let e = p
            .plan(&[base, req, res], &[base], request(MergeStrategy::Rebase))
            .unwrap_err();
        assert!(matches!(e, MergeError::Broken { .. }), "{e}");
        assert!(e.to_string().contains("before its request"), "{e}");
    }

    #[test]
    fn a_picked_result_without_its_request_is_allowed_only_once_accepted() {
        let mut p = Pool::default();
        let req = p.request("c1", "read_file", "a.txt");
        let res = p.result("c1", "read_file");
        let mut r = pick(&[res]);
        r.accept_warnings = true;
        let plan = p.plan(&[req, res], &[], r).unwrap();
        assert_eq!(plan.target_ids, vec![res]);
    }
}
