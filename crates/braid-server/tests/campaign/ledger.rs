//! What the campaign's clients saw, and the figures of what went wrong.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::fmt;

use serde_json::Value;

/// The campaign's figures; every one but `kills`, `contexts` and `events_checked` must stay 0.
#[derive(Clone, Debug, Default)]
pub struct Figures {
    pub store: &'static str,
    pub seed: u64,
    pub kills: u32,
    pub contexts: usize,
    /// Events compared with another sighting of the same id (live, replayed, or in the log).
    pub events_checked: u64,
    /// Messages reported complete that vanished or changed, and accepted sends that vanished.
    pub lost_messages: u64,
    /// Events a resumed client never got, or got that the log does not hold.
    pub gaps: u64,
    /// Ids that named two different events, and events delivered twice on one stream.
    pub duplicated_ids: u64,
    /// Tool calls whose side effect happened more than once.
    pub duplicated_tool_runs: u64,
    /// Contexts that did not load (GET not 200).
    pub load_failures: u64,
    /// Contexts or messages left mid-operation after the server settled.
    pub unsettled: u64,
}

impl Figures {
    /// The figures that must stay 0, by name.
    pub fn must_be_zero(&self) -> [(&'static str, u64); 6] {
        [
            ("lost_messages", self.lost_messages),
            ("gaps", self.gaps),
            ("duplicated_ids", self.duplicated_ids),
            ("duplicated_tool_runs", self.duplicated_tool_runs),
            ("load_failures", self.load_failures),
            ("unsettled", self.unsettled),
        ]
    }

    /// The names of the figures that are not 0, leaving out `reported_only`.
    pub fn failing(&self, reported_only: &[&str]) -> Vec<&'static str> {
        self.must_be_zero()
            .into_iter()
            .filter(|(name, n)| *n > 0 && !reported_only.contains(name))
            .map(|(name, _)| name)
            .collect()
    }
}

impl fmt::Display for Figures {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "chaos summary: store={} kills={} contexts={} events_checked={} lost_messages={} gaps={} duplicated_ids={} duplicated_tool_runs={} load_failures={} unsettled={} seed={}",
            self.store,
            self.kills,
            self.contexts,
            self.events_checked,
            self.lost_messages,
            self.gaps,
            self.duplicated_ids,
            self.duplicated_tool_runs,
            self.load_failures,
            self.unsettled,
            self.seed
        )
    }
}

/// Which figure a problem counts in.
#[derive(Clone, Copy, Debug)]
pub enum Problem {
    LostMessage,
    Gap,
    DuplicatedId,
    DuplicatedToolRun,
    LoadFailure,
    Unsettled,
}

/// One event as a client saw it.
#[derive(Clone, Debug, PartialEq)]
pub struct Seen {
    pub event: String,
    pub data: Value,
}

/// One SSE connection of a client: the ids it got, in order, since the last check.
#[derive(Clone, Debug)]
pub struct Connection {
    /// The id it resumed from, then the last one checked.
    pub after: u64,
    /// The ids got after `after`.
    pub ids: Vec<u64>,
    /// The last id it got (or resumed from).
    pub last: u64,
    /// The server generation it was made to.
    pub generation: u32,
    /// Checked for the last time (its server is gone, or its context retired).
    pub done: bool,
}

impl Connection {
    /// A connection resuming after `after`.
    pub fn new(after: u64, generation: u32) -> Connection {
        Connection {
            after,
            ids: Vec::new(),
            last: after,
            generation,
            done: false,
        }
    }
}

/// A send the server answered 202.
#[derive(Clone, Debug)]
pub struct Accepted {
    pub message_id: String,
    pub text: String,
}

/// Everything known about one context.
#[derive(Debug, Default)]
pub struct ContextRecord {
    pub id: String,
    /// Every event id seen, with the event (all sightings must agree).
    pub seen: BTreeMap<u64, Seen>,
    /// The last id the client got.
    pub last_seen: u64,
    /// Every connection its client made.
    pub connections: Vec<Connection>,
    /// The log is checked up to here.
    pub log_checked: u64,
    pub accepted: Vec<Accepted>,
    /// Messages seen complete, as they were (see [`normalize`]).
    pub complete: HashMap<String, Value>,
    /// Messages an event said were complete.
    pub reported_complete: HashSet<String>,
    /// Streamed pieces by message and sequence.
    pub deltas: HashMap<String, BTreeMap<u64, String>>,
    /// Messages whose pieces were streamed twice under one sequence (a resumed answer).
    pub restreamed: HashSet<String>,
    /// No longer driven (too many messages); checked again at the end.
    pub retired: bool,
    /// A new context took its place.
    pub replaced: bool,
}

/// The campaign's shared record.
#[derive(Debug, Default)]
pub struct Ledger {
    pub figures: Figures,
    pub contexts: Vec<ContextRecord>,
    /// The first problems, described.
    pub problems: Vec<String>,
    pub tool_runs_reported: HashSet<String>,
}

/// How many problem descriptions are kept.
const PROBLEMS_KEPT: usize = 60;

impl Ledger {
    /// Counts a problem and keeps its description.
    pub fn problem(&mut self, kind: Problem, detail: String) {
        let f = &mut self.figures;
        match kind {
            Problem::LostMessage => f.lost_messages += 1,
            Problem::Gap => f.gaps += 1,
            Problem::DuplicatedId => f.duplicated_ids += 1,
            Problem::DuplicatedToolRun => f.duplicated_tool_runs += 1,
            Problem::LoadFailure => f.load_failures += 1,
            Problem::Unsettled => f.unsettled += 1,
        }
        if self.problems.len() < PROBLEMS_KEPT {
            eprintln!("chaos: {kind:?} (after kill {}): {detail}", f.kills);
            self.problems
                .push(format!("{kind:?} (after kill {}): {detail}", f.kills));
        }
    }

    /// Records one sighting of event `id` of context `ctx`: it must agree with every earlier
    /// sighting of that id.
    pub fn sighting(&mut self, ctx: usize, id: u64, seen: Seen) {
        let record = &mut self.contexts[ctx];
        match record.seen.get(&id) {
            Some(before) => {
                self.figures.events_checked += 1;
                if *before != seen {
                    let detail = format!(
                        "context {} event id {id} named two events: {} {} and later {} {}",
                        record.id, before.event, before.data, seen.event, seen.data
                    );
                    self.problem(Problem::DuplicatedId, detail);
                }
            }
            None => {
                record.seen.insert(id, seen);
            }
        }
    }

    /// Records an event a client got on connection `conn` of context `ctx`.
    pub fn received(&mut self, ctx: usize, conn: usize, id: u64, seen: Seen) {
        let record = &mut self.contexts[ctx];
        let c = &mut record.connections[conn];
        let last = c.last;
        c.ids.push(id);
        c.last = id;
        if id <= last {
            let detail = format!(
                "context {} delivered id {id} after {last} on one stream",
                record.id
            );
            self.problem(Problem::DuplicatedId, detail);
        }
        let record = &mut self.contexts[ctx];
        record.last_seen = record.last_seen.max(id);
        let message = seen.data["message_id"].as_str().map(str::to_owned);
        match (seen.event.as_str(), message) {
            ("content_delta", Some(m)) => {
                let sequence = seen.data["sequence"].as_u64().unwrap_or(0);
                let piece = seen.data["delta"].as_str().unwrap_or("").to_owned();
                let pieces = record.deltas.entry(m.clone()).or_default();
                if pieces.get(&sequence).is_some_and(|p| *p != piece) {
                    record.restreamed.insert(m);
                } else {
                    pieces.insert(sequence, piece);
                }
            }
            ("content_final", Some(m)) => {
                record.reported_complete.insert(m);
            }
            _ => {}
        }
        if seen.data["message_update"]["type"] == "completed"
            && let Some(m) = seen.data["message_update"]["message_id"].as_str()
        {
            record.reported_complete.insert(m.to_owned());
        }
        self.sighting(ctx, id, seen);
    }
}

/// A message as it must stay once complete: what it says, not when it was touched. A tool
/// request's approval statuses change as people decide, so they are left out.
pub fn normalize(message: &Value) -> Value {
    let mut data = message["data"].clone();
    if let Some(calls) = data.get_mut("calls").and_then(Value::as_array_mut) {
        for call in calls {
            if let Some(call) = call.as_object_mut() {
                call.remove("approval_status");
            }
        }
    }
    if let Some(d) = data.as_object_mut() {
        d.remove("approval_status");
    }
    serde_json::json!({
        "role": message["role"],
        "kind": message["kind"],
        "status": message["status"],
        "data": data,
    })
}

/// The text of a text message (its parts joined).
pub fn text_of(message: &Value) -> String {
    message["data"]["parts"]
        .as_array()
        .map(|parts| {
            parts
                .iter()
                .filter_map(|p| p["text"].as_str())
                .collect::<Vec<_>>()
                .join("")
        })
        .unwrap_or_default()
}
