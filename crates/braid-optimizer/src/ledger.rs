//! The `Ledger`: what the messages a request leaves out (dropped or summarized) did, extracted
//! without a model so nothing depends on a summary keeping it: the workspace paths read,
//! written, listed or searched; every command run with its exit status; tool errors; MCP
//! resources read; image URLs; and the person's pinned facts. It rides in each later request
//! as one block, bounded by a share of the window: entries deduplicated and newest first,
//! older ones collapsed to counts when the share is full, never cut without saying so.

use std::collections::HashMap;

/// The ledger's maps by path, command line and call id: hashed with foldhash, seeded per
/// process, as the token counts are. Every message a request leaves out is noted in them, and
/// SipHash was a fifth of making the ledger of 800 such messages (profiled).
type Hasher = foldhash::fast::RandomState;

use braid_protocol::{
    ImageSource, McpOutcome, Message, MessageId, MessageKind, Role, SystemControlMessage,
    TextMessage, ToolOutcome,
};

use braid_protocol::OptimizationStrategy;

use crate::Budget;
use crate::selection::{Plan, PlanError, Prepared, Slot};
use crate::tokens::{Encoding, MESSAGE_OVERHEAD, TokenCounter};

/// The line the block starts with, telling the model what it is.
pub const LEDGER_HEADING: &str = "[Ledger: what earlier messages of this conversation did, kept here because they were left out of this request or summarized]";

/// What a tool did to a path, from its name.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum PathAction {
    /// Read.
    Read,
    /// Written, created, edited or deleted.
    Written,
    /// Listed.
    Listed,
    /// Searched.
    Searched,
}

impl PathAction {
    fn as_str(self) -> &'static str {
        match self {
            Self::Read => "read",
            Self::Written => "written",
            Self::Listed => "listed",
            Self::Searched => "searched",
        }
    }

    /// The action a tool of this name takes on the paths it is given (built-in tools and the
    /// usual MCP file servers name their tools by verb).
    fn of_tool(name: &str) -> Self {
        let name = name.to_ascii_lowercase();
        let has = |verbs: &[&str]| verbs.iter().any(|v| name.contains(v));
        if has(&[
            "write", "create", "replace", "edit", "delete", "remove", "move", "patch",
        ]) {
            Self::Written
        } else if has(&["list", "tree", "structure", "overview"]) {
            Self::Listed
        } else if has(&["search", "glob", "find", "grep"]) {
            Self::Searched
        } else {
            Self::Read
        }
    }
}

/// Which section an entry belongs to, in the order the block lists them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
enum Section {
    Fact,
    Path,
    Command,
    Error,
    Resource,
    Image,
}

impl Section {
    const ALL: [Self; 6] = [
        Self::Fact,
        Self::Path,
        Self::Command,
        Self::Error,
        Self::Resource,
        Self::Image,
    ];

    fn heading(self) -> &'static str {
        match self {
            Self::Fact => "Pinned facts",
            Self::Path => "Paths",
            Self::Command => "Commands run",
            Self::Error => "Tool errors",
            Self::Resource => "MCP resources read",
            Self::Image => "Images",
        }
    }

    fn noun(self) -> &'static str {
        match self {
            Self::Fact => "facts",
            Self::Path => "paths",
            Self::Command => "commands",
            Self::Error => "errors",
            Self::Resource => "resources",
            Self::Image => "images",
        }
    }
}

/// One line of the ledger.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Entry {
    section: Section,
    /// What identifies it (the path, the command line, ...): entries with the same key are one.
    key: String,
    /// Path actions, in order of first use.
    actions: Vec<PathAction>,
    /// Command outcomes (`exit 0`, `failed: ...`), newest last.
    outcome: Option<String>,
    /// Position of the newest message that mentioned it: newer entries come first.
    newest: usize,
    /// Its tokens in the block, once counted.
    tokens: KeptTokens,
}

/// An entry's tokens in the block, with the encoding they were counted in. A branch's kept
/// reading ([`LedgerStart`]) holds its entries from request to request, so each is counted
/// once instead of on every render. A cache, not part of the entry: entries that differ only
/// in it are equal.
#[derive(Clone, Debug, Default)]
struct KeptTokens(std::sync::OnceLock<(Encoding, u32)>);

impl PartialEq for KeptTokens {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

impl Eq for KeptTokens {}

impl Entry {
    /// Its tokens in the block: its line's and a line break (a path goes on its action
    /// group's line, comma-separated).
    fn tokens(&self, encoding: Encoding) -> u32 {
        if let Some((counted_in, n)) = self.tokens.0.get()
            && *counted_in == encoding
        {
            return *n;
        }
        let n = match self.section {
            Section::Path => encoding.count_by_lines(&self.key) + 1,
            _ => encoding.count_by_lines(&self.line()) + 1,
        };
        // Kept in the first encoding it was counted in; another one counts again.
        let _ = self.tokens.0.set((encoding, n));
        n
    }

    /// The entry's line (a path's is its group's: see `compose`).
    fn line(&self) -> String {
        match self.section {
            Section::Command => match &self.outcome {
                Some(outcome) => format!("- `{}`: {outcome}", self.key),
                None => format!("- `{}`: no result", self.key),
            },
            _ => format!("- {}", self.key),
        }
    }
}

/// What left-out messages did, and the pinned facts (see the module's doc).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Ledger {
    entries: Vec<Entry>,
    /// Each section's entries by key: one map per section, so a lookup borrows the key.
    index: [HashMap<String, usize, Hasher>; Section::ALL.len()],
}

/// The ledger as one request carries it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LedgerBlock {
    /// The block's text.
    pub text: String,
    /// Entries listed by name.
    pub listed: u32,
    /// Entries only counted, for want of room.
    pub collapsed: u32,
    /// Tokens of the block as the message a request carries ([`LedgerBlock::message`]).
    pub tokens: u32,
}

impl LedgerBlock {
    /// The block as the message a request carries (a user text before the history).
    pub fn message(&self) -> Message {
        Message::new(
            Role::User,
            MessageKind::Text(TextMessage::plain(self.text.clone())),
        )
    }
}

/// The plan a request goes with, the ledger block it carries, and the room the block was
/// given: a branch's next request is planned around that room first (see [`fit`]).
#[derive(Clone, Debug)]
pub struct Fitted {
    /// The plan of the request.
    pub plan: Plan,
    /// The ledger block, when the plan leaves out anything the ledger names.
    pub block: Option<LedgerBlock>,
    /// The room the branch's next request is planned around (0 without a block): what this
    /// plan set aside for the block, or, when the block fit beside a plan that set aside
    /// less, the block's tokens with a margin for what the next request adds.
    pub room: u32,
}

/// Fits the ledger of what `first` (a plan of `prepared` around `reserved` tokens set aside)
/// leaves out into the request, in at most `percent` of the budget's limit. The ledger starts
/// from what `start` kept of the branch's last request, and keeps its own start there.
///
/// `reserved` is the room the branch's previous request gave its ledger (0 when there was
/// none), which the caller planned `first` around. The ledger only grows as messages leave
/// the window, so that room usually still fits it: then `first` is the request, with no
/// second plan and one ledger. The room is taken when the ledger fits it whole with little to
/// spare, or fills it when it is the whole share; else the room is worked out afresh: the
/// request is planned again around the room the ledger takes (which may leave out a little
/// more: the ledger is then made of that, within the same room), from `prepared`, without
/// walking the history again. The same history may so get a room a little larger than a
/// first request of it would, never one its ledger does not fit. On error (no room beside
/// the newest messages) `first` comes back with it.
pub fn fit(
    (first, reserved): (Plan, u32),
    prepared: &Prepared<'_>,
    strategy: &OptimizationStrategy,
    budget: Budget,
    counter: &TokenCounter,
    percent: u32,
    start: &mut LedgerStart,
) -> Result<Fitted, (Box<Plan>, PlanError)> {
    let input = prepared.messages();
    // Counted in the kept reading, entries stay counted in every later request's copy of it.
    start.reading.ledger.count_entries(counter.encoding());
    let ledger = Ledger::of_plan(&first, input, start);
    let cap = (budget.limit() / 100 * percent).max(1);
    if ledger.is_empty() {
        return Ok(Fitted {
            plan: first,
            block: None,
            room: 0,
        });
    }
    if reserved > 0
        && reserved <= cap
        && let Some(block) = ledger.render(reserved, counter)
        && block.tokens <= reserved
        && (if block.collapsed == 0 {
            reserved <= block.tokens * 5 / 4 + 64
        } else {
            reserved == cap
        })
    {
        return Ok(Fitted {
            plan: first,
            block: Some(block),
            room: reserved,
        });
    }
    let Some(whole) = ledger.render(u32::MAX, counter) else {
        return Ok(Fitted {
            plan: first,
            block: None,
            room: 0,
        });
    };
    let needed = whole.tokens;
    // Room for what the new plan (or the next request) may leave out besides.
    let room = (needed * 11 / 10 + 32).min(cap);
    if first.tokens_after.saturating_add(needed) <= first.limit && needed <= cap {
        return Ok(Fitted {
            plan: first,
            block: Some(whole),
            room,
        });
    }
    let replanned = match prepared.plan(room, strategy, budget, counter) {
        Ok(replanned) => replanned,
        Err(error) => return Err((Box::new(first), error)),
    };
    let block = Ledger::of_plan(&replanned, input, start).render(room, counter);
    Ok(Fitted {
        plan: replanned,
        room: if block.is_some() { room } else { 0 },
        block,
    })
}

/// The messages of `input` a plan does not send as they are: dropped, standing behind a
/// summary, or sent with their output elided; oldest first.
pub fn left_out<'a>(plan: &Plan, input: &'a [Message]) -> impl Iterator<Item = &'a Message> {
    input
        .iter()
        .zip(sent_whole(plan, input.len()))
        .filter(|(m, whole)| !whole && m.kind_name().is_sent_to_model())
        .map(|(m, _)| m)
}

/// Whether each of `len` input messages is sent whole (or cut, but as itself) by `plan`.
fn sent_whole(plan: &Plan, len: usize) -> Vec<bool> {
    let mut whole = vec![false; len];
    for slot in &plan.slots {
        match slot {
            Slot::Message(i) | Slot::Truncated(i, _) => {
                if let Some(w) = whole.get_mut(*i) {
                    *w = true;
                }
            }
            Slot::Summary(_) | Slot::Elided(_) => {}
        }
    }
    whole
}

/// A message as a ledger has read it: its id and version.
type ReadKey = (MessageId, i64);

fn read_key(message: &Message) -> ReadKey {
    (message.id, crate::tokens::version_of(message))
}

/// What reading a branch's left-out messages gave, up to the first message its last request
/// sent whole. Those messages stay left out while the history grows at its end, so the next
/// request's ledger starts from here instead of reading them again: a long session leaves
/// out hundreds of messages and adds a few a turn. Anything else (another pin, an edit, a
/// message back in the window) and the ledger is read from the start, as [`Ledger::of`] does.
#[derive(Clone, Debug, Default)]
pub struct LedgerStart {
    /// The pinned facts it was read with.
    pins: Vec<ReadKey>,
    /// The messages read, oldest first.
    read: Vec<ReadKey>,
    /// What they gave.
    reading: Reading,
}

/// A ledger being read: the ledger so far, the command line of each call read (its result
/// comes later), and the position of the message read last.
#[derive(Clone, Debug, Default)]
struct Reading {
    ledger: Ledger,
    commands: HashMap<String, String, Hasher>,
    position: usize,
}

impl Reading {
    /// A reading that has noted the pinned facts among `history` (first, in order).
    fn pinned<'a>(history: impl IntoIterator<Item = &'a Message>) -> Self {
        let mut reading = Self::default();
        for (_, text) in pinned(history) {
            reading
                .ledger
                .note(Section::Fact, text.trim(), reading.position, None, None);
            reading.position += 1;
        }
        reading
    }

    /// Notes what `message`, the next left-out message, did.
    fn read(&mut self, message: &Message) {
        self.position += 1;
        let position = self.position;
        let Self {
            ledger, commands, ..
        } = self;
        // Calls are named in the request and their outcome in the result that follows.
        match &message.kind {
            MessageKind::ToolRequest(request) => {
                for call in &request.calls {
                    if let Some(line) = command_line(&call.name, &call.arguments) {
                        ledger.note(Section::Command, &line, position, None, None);
                        commands.insert(call.id.as_str().to_owned(), line);
                    }
                    ledger.note_paths(&call.name, &call.arguments, position);
                }
            }
            MessageKind::McpToolRequest(request) => {
                ledger.note_paths(&request.tool_name, &request.arguments, position);
            }
            MessageKind::ToolResult(result) => {
                let command = commands.get(result.call_id.as_str());
                match &result.outcome {
                    ToolOutcome::Success { output } => {
                        if let Some(line) = command {
                            let outcome = match output.get("exit_code") {
                                Some(serde_json::Value::Number(code)) => format!("exit {code}"),
                                _ if output.get("timed_out").and_then(|v| v.as_bool())
                                    == Some(true) =>
                                {
                                    "timed out".to_owned()
                                }
                                _ => "killed by a signal".to_owned(),
                            };
                            ledger.note(Section::Command, line, position, None, Some(outcome));
                        }
                    }
                    ToolOutcome::Error { error } => {
                        let text = format!(
                            "{}: {}",
                            result.tool_name,
                            clip(&error.message, ERROR_CHARS)
                        );
                        if let Some(line) = command {
                            ledger.note(
                                Section::Command,
                                line,
                                position,
                                None,
                                Some(format!("failed: {}", clip(&error.message, 80))),
                            );
                        }
                        ledger.note(Section::Error, &text, position, None, None);
                    }
                }
            }
            MessageKind::McpToolResult(result) => {
                if let McpOutcome::Error { error, .. } = &result.outcome {
                    let text = format!(
                        "{}/{}: {}",
                        result.server_name,
                        result.tool_name,
                        clip(&error.message, ERROR_CHARS)
                    );
                    ledger.note(Section::Error, &text, position, None, None);
                }
            }
            MessageKind::FileReference(file) => {
                ledger.note(
                    Section::Path,
                    &file.path,
                    position,
                    Some(PathAction::Read),
                    None,
                );
            }
            MessageKind::McpResource(resource) => {
                ledger.note(
                    Section::Resource,
                    &resource.resource_uri,
                    position,
                    None,
                    None,
                );
            }
            MessageKind::Image(image) => {
                if let ImageSource::Url { url } = &image.source {
                    ledger.note(Section::Image, url, position, None, None);
                }
            }
            _ => {}
        }
    }
}

/// The pinned facts among `history`, with their texts.
fn pinned<'a>(
    history: impl IntoIterator<Item = &'a Message>,
) -> impl Iterator<Item = (&'a Message, &'a str)> {
    history
        .into_iter()
        .filter_map(|message| match &message.kind {
            MessageKind::SystemControl(SystemControlMessage::PinnedFact { text })
                if message.is_pinned() =>
            {
                Some((message, text.as_str()))
            }
            _ => None,
        })
}

/// The longest a tool error's text is in the ledger.
const ERROR_CHARS: usize = 160;
/// The longest a command line is in the ledger.
const COMMAND_CHARS: usize = 200;

impl Ledger {
    /// The ledger of `left_out` (oldest first: messages no longer sent whole) and of the
    /// pinned facts among `history`.
    pub fn of<'a>(
        left_out: impl IntoIterator<Item = &'a Message>,
        history: impl IntoIterator<Item = &'a Message>,
    ) -> Self {
        let mut reading = Reading::pinned(history);
        for message in left_out {
            reading.read(message);
        }
        reading.ledger
    }

    /// The ledger of what `plan` leaves out of `input` ([`left_out`]) and of its pinned facts,
    /// as [`Ledger::of`] makes it, starting from `start` where it read the same first
    /// messages, and keeping in `start` what it read up to the first message sent whole.
    pub fn of_plan(plan: &Plan, input: &[Message], start: &mut LedgerStart) -> Self {
        let whole = sent_whole(plan, input.len());
        let first_whole = whole.iter().position(|w| *w).unwrap_or(input.len());
        let sent = |m: &&Message| m.kind_name().is_sent_to_model();
        let pins: Vec<ReadKey> = pinned(input).map(|(m, _)| read_key(m)).collect();
        let oldest: Vec<&Message> = input[..first_whole].iter().filter(sent).collect();
        let same_start = start.pins == pins
            && start.read.len() <= oldest.len()
            && start
                .read
                .iter()
                .zip(&oldest)
                .all(|(k, m)| *k == read_key(m));
        if !same_start {
            *start = LedgerStart {
                pins,
                read: Vec::with_capacity(oldest.len()),
                reading: Reading::pinned(input),
            };
        }
        for message in &oldest[start.read.len()..] {
            start.reading.read(message);
            start.read.push(read_key(message));
        }
        let mut reading = start.reading.clone();
        for (message, whole) in input.iter().zip(whole).skip(first_whole) {
            if !whole && sent(&message) {
                reading.read(message);
            }
        }
        reading.ledger
    }

    /// Counts the entries not counted in `encoding` yet, for the renders to come.
    fn count_entries(&self, encoding: Encoding) {
        for entry in &self.entries {
            entry.tokens(encoding);
        }
    }

    /// Whether there is nothing to carry.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The number of entries.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// The paths it names, in no particular order (for checks and figures).
    pub fn paths(&self) -> impl Iterator<Item = &str> {
        self.keys(Section::Path)
    }

    /// The command lines it names.
    pub fn commands(&self) -> impl Iterator<Item = &str> {
        self.keys(Section::Command)
    }

    fn keys(&self, section: Section) -> impl Iterator<Item = &str> {
        self.entries
            .iter()
            .filter(move |e| e.section == section)
            .map(|e| e.key.as_str())
    }

    fn note_paths(&mut self, tool: &str, arguments: &serde_json::Value, position: usize) {
        let Some(object) = arguments.as_object() else {
            return;
        };
        // Named from the tool only once an argument may hold a path: most calls have none.
        let mut action = None;
        for (name, value) in object {
            let named_path = matches!(
                name.as_str(),
                "path" | "paths" | "file" | "file_path" | "source" | "destination" | "directory"
            );
            if !named_path && !matches!(name.as_str(), "pattern" | "query") {
                continue;
            }
            let action = *action.get_or_insert_with(|| PathAction::of_tool(tool));
            if !named_path && action != PathAction::Searched {
                continue;
            }
            let values: &[serde_json::Value] = match value {
                serde_json::Value::Array(items) => items,
                one => std::slice::from_ref(one),
            };
            for path in values.iter().filter_map(|v| v.as_str()) {
                let path = path.trim();
                if !path.is_empty() {
                    if named_path {
                        self.note(Section::Path, path, position, Some(action), None);
                    } else {
                        let pattern = format!("\"{}\"", clip(path, ERROR_CHARS));
                        self.note(Section::Path, &pattern, position, Some(action), None);
                    }
                }
            }
        }
    }

    fn note(
        &mut self,
        section: Section,
        key: &str,
        position: usize,
        action: Option<PathAction>,
        outcome: Option<String>,
    ) {
        if key.is_empty() {
            return;
        }
        let index = &mut self.index[section as usize];
        let at = match index.get(key) {
            Some(at) => *at,
            None => {
                self.entries.push(Entry {
                    section,
                    key: key.to_owned(),
                    actions: Vec::new(),
                    outcome: None,
                    newest: position,
                    tokens: KeptTokens::default(),
                });
                index.insert(key.to_owned(), self.entries.len() - 1);
                self.entries.len() - 1
            }
        };
        let entry = &mut self.entries[at];
        entry.newest = entry.newest.max(position);
        if let Some(action) = action
            && !entry.actions.contains(&action)
        {
            entry.actions.push(action);
        }
        if outcome.is_some() {
            entry.outcome = outcome;
            // A command's line carries its outcome.
            entry.tokens = KeptTokens::default();
        }
    }

    /// The block within `max_tokens`: pinned facts always whole (they are the person's and
    /// count first), then the newest entries of every section; what does not fit is counted
    /// per section on a closing line. `None` when there is nothing to carry.
    pub fn render(&self, max_tokens: u32, counter: &TokenCounter) -> Option<LedgerBlock> {
        if self.entries.is_empty() {
            return None;
        }
        let encoding = counter.encoding();
        let mut order: Vec<&Entry> = self.entries.iter().collect();
        // Facts first, then newest first; ties keep the order they were met.
        order.sort_by(|a, b| {
            (b.section == Section::Fact)
                .cmp(&(a.section == Section::Fact))
                .then(b.newest.cmp(&a.newest))
        });
        // Room for the heading, the section headings and a closing line of counts.
        // Entries and the heading recur from request to request: their counts are kept.
        let overhead =
            encoding.count_by_lines(LEDGER_HEADING) + 16 * Section::ALL.len() as u32 + 40;
        let mut used = overhead;
        let mut listed: Vec<&Entry> = Vec::new();
        let mut left: HashMap<Section, u32> = HashMap::new();
        let mut full = false;
        for entry in order {
            // Once one entry does not fit, every older one is counted, not listed, so the block
            // never skips an entry while listing an older one (and its tokens are not needed).
            if full && entry.section != Section::Fact {
                *left.entry(entry.section).or_default() += 1;
                continue;
            }
            let tokens = entry.tokens(encoding);
            if entry.section == Section::Fact || used + tokens <= max_tokens {
                used += tokens;
                listed.push(entry);
            } else {
                full = true;
                *left.entry(entry.section).or_default() += 1;
            }
        }
        let text = compose(&listed, &left);
        Some(LedgerBlock {
            // A user text is its text and the message overhead (`TokenCounter::message`).
            tokens: MESSAGE_OVERHEAD + encoding.count_by_lines(&text),
            text,
            listed: listed.len() as u32,
            collapsed: left.values().sum(),
        })
    }
}

fn compose(listed: &[&Entry], left: &HashMap<Section, u32>) -> String {
    let mut text = String::from(LEDGER_HEADING);
    for section in Section::ALL {
        let entries = listed.iter().filter(|e| e.section == section);
        let lines: Vec<String> = if section == Section::Path {
            // One line per set of actions, in the order the newest path of each was met.
            let mut groups: Vec<(String, Vec<&str>)> = Vec::new();
            for e in entries {
                let label = e
                    .actions
                    .iter()
                    .map(|a| a.as_str())
                    .collect::<Vec<_>>()
                    .join(", ");
                match groups.iter_mut().find(|(l, _)| *l == label) {
                    Some((_, keys)) => keys.push(&e.key),
                    None => groups.push((label, vec![&e.key])),
                }
            }
            groups
                .into_iter()
                .map(|(label, keys)| format!("- {label}: {}", keys.join(", ")))
                .collect()
        } else {
            entries.map(|e| e.line()).collect()
        };
        let more = left.get(&section).copied().unwrap_or(0);
        if lines.is_empty() && more == 0 {
            continue;
        }
        text.push('\n');
        text.push_str(section.heading());
        text.push_str(" (newest first):");
        for line in lines {
            text.push('\n');
            text.push_str(&line);
        }
        if more > 0 {
            text.push_str(&format!(
                "\n- and {more} older {} not listed for lack of room",
                section.noun()
            ));
        }
    }
    text
}

/// The command line of a call that runs a command, when it is one.
fn command_line(tool: &str, arguments: &serde_json::Value) -> Option<String> {
    let object = arguments.as_object()?;
    let program = object
        .get("program")
        .or_else(|| object.get("command"))
        .and_then(|v| v.as_str())?;
    if !(tool.contains("command") || tool.contains("shell") || tool.contains("exec")) {
        return None;
    }
    let mut line = program.to_owned();
    if let Some(args) = object.get("args").and_then(|v| v.as_array()) {
        for arg in args.iter().filter_map(|a| a.as_str()) {
            line.push(' ');
            if arg.is_empty() || arg.contains(char::is_whitespace) {
                line.push_str(&format!("'{arg}'"));
            } else {
                line.push_str(arg);
            }
        }
    }
    Some(clip(&line, COMMAND_CHARS))
}

/// `text` cut to `chars` characters, with an ellipsis when cut.
fn clip(text: &str, chars: usize) -> String {
    let text = text.trim();
    match text.char_indices().nth(chars) {
        Some((at, _)) => format!("{}...", &text[..at]),
        None => text.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::RequestParts;
    use braid_protocol::{ToolCall, ToolRequestMessage, ToolResultMessage};
    use serde_json::json;

    fn call(id: &str, name: &str, arguments: serde_json::Value) -> Message {
        Message::new(
            Role::Assistant,
            MessageKind::ToolRequest(ToolRequestMessage {
                calls: vec![ToolCall::new(id, name, arguments)],
            }),
        )
    }

    fn result(id: &str, name: &str, outcome: ToolOutcome) -> Message {
        Message::new(
            Role::Tool,
            MessageKind::ToolResult(Box::new(ToolResultMessage {
                call_id: id.into(),
                tool_name: name.to_owned(),
                outcome,
                duration_ms: 1,
                started_at: None,
                completed_at: None,
            })),
        )
    }

    fn counter() -> TokenCounter {
        TokenCounter::for_model("gpt-4o")
    }

    #[test]
    fn paths_commands_and_errors_are_extracted_without_a_model() {
        let messages = vec![
            call("1", "read_file", json!({"path": "src/main.rs"})),
            result(
                "1",
                "read_file",
                ToolOutcome::Success {
                    output: json!("fn main() {}"),
                },
            ),
            call(
                "2",
                "run_command",
                json!({"program": "cargo", "args": ["test", "-q"]}),
            ),
            result(
                "2",
                "run_command",
                ToolOutcome::Success {
                    output: json!({"exit_code": 101}),
                },
            ),
            call(
                "3",
                "write_file",
                json!({"path": "src/main.rs", "content": "x"}),
            ),
            result(
                "3",
                "write_file",
                ToolOutcome::Error {
                    error: braid_protocol::ErrorDetail::new(
                        "disk full",
                        braid_protocol::Recoverability::Fatal,
                    ),
                },
            ),
        ];
        let ledger = Ledger::of(&messages, std::iter::empty());
        let block = ledger.render(10_000, &counter()).unwrap();
        assert!(
            block.text.contains("- read, written: src/main.rs"),
            "{}",
            block.text
        );
        assert!(
            block.text.contains("- `cargo test -q`: exit 101"),
            "{}",
            block.text
        );
        assert!(
            block.text.contains("- write_file: disk full"),
            "{}",
            block.text
        );
        assert_eq!(block.collapsed, 0);
        assert_eq!(block.tokens, counter().message_uncached(&block.message()));
    }

    #[test]
    fn a_full_block_counts_older_entries_instead_of_cutting_them() {
        let messages: Vec<Message> = (0..200)
            .map(|i| {
                call(
                    &i.to_string(),
                    "read_file",
                    json!({"path": format!("src/file_{i}.rs")}),
                )
            })
            .collect();
        let ledger = Ledger::of(&messages, std::iter::empty());
        let block = ledger.render(300, &counter()).unwrap();
        assert!(block.text.contains("src/file_199.rs"), "newest first");
        assert!(!block.text.contains("src/file_0.rs"));
        assert_eq!(block.listed + block.collapsed, 200);
        assert!(
            block
                .text
                .contains(&format!("- and {} older paths", block.collapsed))
        );
        assert!(counter().encoding().count(&block.text) <= 300);
        assert_eq!(block.tokens, counter().message_uncached(&block.message()));
    }

    /// A session of `n` read calls with their results and answers, each about 60 tokens.
    fn reads(n: usize) -> Vec<Message> {
        (0..n)
            .flat_map(|i| {
                let id = format!("c{i}");
                [
                    call(
                        &id,
                        "read_file",
                        json!({"path": format!("src/file_{i}.rs")}),
                    ),
                    result(
                        &id,
                        "read_file",
                        ToolOutcome::Success {
                            output: json!(format!("fn f{i}() {{ let x = {i}; }}\n").repeat(3)),
                        },
                    ),
                    Message::assistant_text(format!("File {i} read.")),
                ]
            })
            .collect()
    }

    fn budget(window: u32) -> Budget {
        Budget {
            window,
            reserve_output: 256,
            margin: 32,
        }
    }

    #[test]
    fn the_ledger_fits_beside_a_plan_made_again_from_the_prepared_history() {
        let messages = reads(120);
        let parts = RequestParts {
            system_prompt: Some("You are Braid."),
            tool_tokens: 0,
            reserved_tokens: 0,
            messages: &messages,
        };
        let strategy = OptimizationStrategy::RecentN { n: 1000 };
        let b = budget(4_096);
        let prepared = Prepared::new(&parts, &counter());
        let first = prepared.plan(0, &strategy, b, &counter()).unwrap();
        // The split changes nothing: a plan of the prepared history is the plan of the parts.
        let direct = crate::plan(&parts, &strategy, b, &counter()).unwrap();
        assert_eq!(first.slots, direct.slots);
        assert_eq!(first.tokens_after, direct.tokens_after);
        assert!(first.optimized());

        let Fitted {
            plan: fitted,
            block,
            room,
        } = fit(
            (first.clone(), 0),
            &prepared,
            &strategy,
            b,
            &counter(),
            15,
            &mut LedgerStart::default(),
        )
        .unwrap();
        let block = block.unwrap();
        assert_eq!(block.tokens, counter().message_uncached(&block.message()));
        assert!(block.tokens <= room && room <= b.limit() / 100 * 15);
        // The request as sent, the block first, fits the budget.
        let mut sent = vec![block.message()];
        sent.extend(fitted.request_messages(&messages));
        let tokens = counter().request(
            Some("You are Braid."),
            &sent,
            braid_protocol::ToolCalling::Native,
        ) + crate::tokens::REPLY_PRIMING;
        assert!(tokens <= fitted.limit, "{tokens} > {}", fitted.limit);
        assert!(fitted.tokens_after <= fitted.limit);
        // The plan left room for the block by leaving out more, and the block names or counts
        // every path of what it leaves out.
        assert!(fitted.dropped.len() > first.dropped.len());
        let ledger = Ledger::of(left_out(&fitted, &messages), &messages);
        assert_eq!((block.listed + block.collapsed) as usize, ledger.len());
        let newest_left_out = ledger.paths().map(str::to_owned).max_by_key(|p| {
            p.trim_start_matches("src/file_")
                .trim_end_matches(".rs")
                .parse::<u32>()
                .unwrap()
        });
        assert!(block.text.contains(&newest_left_out.unwrap()));

        // With room to spare (`recent_n` leaves out what is old, not what is over), the first
        // plan is kept and the whole ledger rides along.
        let recent = OptimizationStrategy::RecentN { n: 30 };
        // Just over the budget: `recent_n` then keeps its 30 newest messages only.
        let roomy = budget(direct.tokens_before - 100 + 256 + 32);
        let first = prepared.plan(0, &recent, roomy, &counter()).unwrap();
        assert!(first.optimized());
        let fit_recent = |planned: (Plan, u32)| {
            let start = &mut LedgerStart::default();
            fit(planned, &prepared, &recent, roomy, &counter(), 15, start).unwrap()
        };
        let Fitted {
            plan: kept,
            block,
            room,
        } = fit_recent((first.clone(), 0));
        assert_eq!(kept.slots, first.slots);
        assert_eq!(block.map(|b| b.collapsed), Some(0));
        // The next request of this history sets that room aside, and keeps it.
        let next = prepared.plan(room, &recent, roomy, &counter()).unwrap();
        let again = fit_recent((next.clone(), room));
        assert_eq!((again.room, again.plan.slots), (room, next.slots));
    }

    /// The request a fitted plan sends, as the provider counts it, with the reply priming.
    fn sent_tokens(fitted: &Fitted, messages: &[Message]) -> u32 {
        let mut sent: Vec<Message> = fitted.block.iter().map(LedgerBlock::message).collect();
        sent.extend(fitted.plan.request_messages(messages));
        counter().request(
            Some("You are Braid."),
            &sent,
            braid_protocol::ToolCalling::Native,
        ) + crate::tokens::REPLY_PRIMING
    }

    /// A session of reads and commands, the commands' results long enough that a plan
    /// elides some of them before it drops them.
    fn work(n: usize) -> Vec<Message> {
        (0..n)
            .flat_map(|i| {
                let id = format!("w{i}");
                let (name, arguments, output) = if i % 2 == 0 {
                    (
                        "read_file",
                        json!({"path": format!("src/work_{i}.rs")}),
                        json!(format!("fn w{i}() {{}}\n").repeat(4)),
                    )
                } else {
                    (
                        "run_command",
                        json!({"program": "cargo", "args": ["test", format!("t{i}")]}),
                        json!({"exit_code": i % 3, "stdout": format!("test t{i} ... ok\n").repeat(40)}),
                    )
                };
                [
                    Message::user_text(format!("Step {i}.")),
                    call(&id, name, arguments),
                    result(&id, name, ToolOutcome::Success { output }),
                    Message::assistant_text(format!("Step {i} done.")),
                ]
            })
            .collect()
    }

    #[test]
    fn a_ledger_starts_from_what_the_last_request_read_while_its_oldest_messages_are_the_same() {
        let all = work(160);
        let strategy = OptimizationStrategy::Intelligent;
        let b = budget(4_096);
        let plan_of = |messages: &[Message]| {
            let parts = RequestParts {
                system_prompt: Some("You are Braid."),
                tool_tokens: 0,
                reserved_tokens: 0,
                messages,
            };
            Prepared::new(&parts, &counter())
                .plan(0, &strategy, b, &counter())
                .unwrap()
        };
        // Turn after turn the history grows: each ledger is the one read from scratch, and
        // some have left-out messages after the first one sent whole (elided results).
        let mut start = LedgerStart::default();
        let mut read_after_start = 0;
        for n in (400..640).step_by(12) {
            let messages = &all[..n];
            let plan = plan_of(messages);
            let ledger = Ledger::of_plan(&plan, messages, &mut start);
            assert_eq!(
                ledger,
                Ledger::of(left_out(&plan, messages), messages),
                "{n}"
            );
            if left_out(&plan, messages).count() > start.read.len() {
                read_after_start += 1;
            }
        }
        assert!(start.read.len() > 100);
        assert!(read_after_start > 0);

        // The next ledger starts from the kept reading: a mark put in it shows.
        let messages = &all[..640];
        let plan = plan_of(messages);
        let marked = |start: &mut LedgerStart| {
            start
                .reading
                .ledger
                .note(Section::Fact, "mark", 0, None, None);
        };
        marked(&mut start);
        let has_mark = |ledger: &Ledger| ledger.entries.iter().any(|e| e.key == "mark");
        assert!(has_mark(&Ledger::of_plan(&plan, messages, &mut start)));

        // An edit to one of the messages read, or a new pin, and it reads from the start.
        let mut edited = messages.to_vec();
        edited[1].updated_at = all[all.len() - 1].updated_at;
        assert_ne!(edited[1].updated_at, messages[1].updated_at);
        let ledger = Ledger::of_plan(&plan, &edited, &mut start);
        assert!(!has_mark(&ledger));
        assert_eq!(ledger, Ledger::of(left_out(&plan, &edited), &edited));
        marked(&mut start);
        let mut pinned = messages.to_vec();
        let mut fact = Message::new(
            Role::User,
            MessageKind::SystemControl(SystemControlMessage::PinnedFact {
                text: "Deploys go through staging.".to_owned(),
            }),
        );
        fact.set_pinned(true);
        pinned.push(fact);
        let plan = plan_of(&pinned);
        let ledger = Ledger::of_plan(&plan, &pinned, &mut start);
        assert!(!has_mark(&ledger));
        assert_eq!(ledger, Ledger::of(left_out(&plan, &pinned), &pinned));
    }

    #[test]
    fn an_entrys_kept_count_follows_its_line_when_a_command_gets_its_outcome() {
        let encoding = counter().encoding();
        let mut ledger = Ledger::default();
        ledger.note(Section::Command, "cargo test --workspace", 1, None, None);
        let line = |ledger: &Ledger| ledger.entries[0].line();
        assert_eq!(
            ledger.entries[0].tokens(encoding),
            encoding.count_by_lines(&line(&ledger)) + 1
        );
        ledger.note(
            Section::Command,
            "cargo test --workspace",
            2,
            None,
            Some("failed: 3 tests did not pass, see the log for the names".to_owned()),
        );
        assert!(line(&ledger).contains("failed: 3 tests"));
        assert_eq!(
            ledger.entries[0].tokens(encoding),
            encoding.count_by_lines(&line(&ledger)) + 1
        );
    }

    #[test]
    fn the_next_request_keeps_the_ledgers_room_while_the_ledger_fits_it() {
        let strategy = OptimizationStrategy::RecentN { n: 1000 };
        let b = budget(4_096);
        let cap = b.limit() / 100 * 15;
        let mut start = LedgerStart::default();
        let mut turn = |messages: &[Message], kept: u32| {
            let parts = RequestParts {
                system_prompt: Some("You are Braid."),
                tool_tokens: 0,
                reserved_tokens: 0,
                messages,
            };
            let prepared = Prepared::new(&parts, &counter());
            let first = prepared.plan(kept, &strategy, b, &counter()).unwrap();
            let fitted = fit(
                (first.clone(), kept),
                &prepared,
                &strategy,
                b,
                &counter(),
                15,
                &mut start,
            )
            .unwrap();
            (first, fitted)
        };
        // Turn after turn an exchange leaves the window: while the ledger fits the room the
        // last request gave it, the first plan (made around that room) is the request. The
        // room grows while it lists less than the ledger and the share allows more: here, until
        // it is the whole share.
        let mut room = 0;
        let mut kept_turns = 0;
        for n in 120..136 {
            let messages = reads(n);
            let (first, fitted) = turn(&messages, room);
            let block = fitted.block.as_ref().unwrap();
            assert!(block.tokens <= fitted.room && fitted.room <= cap);
            assert!(sent_tokens(&fitted, &messages) <= fitted.plan.limit);
            let ledger = Ledger::of(left_out(&fitted.plan, &messages), &messages);
            assert_eq!((block.listed + block.collapsed) as usize, ledger.len());
            if room > 0 && fitted.room == room {
                assert_eq!(fitted.plan.slots, first.slots, "planned once");
                kept_turns += 1;
            } else {
                kept_turns = 0;
            }
            room = fitted.room;
        }
        assert_eq!(room, cap);
        assert!(
            kept_turns >= 8,
            "the room was kept on the last {kept_turns} turns only"
        );

        // A room the ledger outgrew, and one far larger than a small ledger needs, are worked
        // out afresh.
        for (messages, stale) in [(reads(135), 40), (reads(70), cap)] {
            let (_, fitted) = turn(&messages, stale);
            assert_ne!(fitted.room, stale);
            let block = fitted.block.as_ref().unwrap();
            assert!(block.tokens <= fitted.room && fitted.room <= cap);
            assert!(sent_tokens(&fitted, &messages) <= fitted.plan.limit);
        }
    }

    #[test]
    fn pinned_facts_are_always_listed_and_unpinned_ones_are_not() {
        let mut fact = Message::new(
            Role::User,
            MessageKind::SystemControl(SystemControlMessage::PinnedFact {
                text: "The staging database is read-only.".to_owned(),
            }),
        );
        fact.set_pinned(true);
        let mut gone = fact.clone();
        gone.id = braid_protocol::MessageId::new();
        gone.kind = MessageKind::SystemControl(SystemControlMessage::PinnedFact {
            text: "Old fact".to_owned(),
        });
        gone.set_pinned(false);
        let history = vec![fact, gone];
        let block = Ledger::of(std::iter::empty(), &history)
            .render(1, &counter())
            .unwrap();
        assert!(block.text.contains("The staging database is read-only."));
        assert!(!block.text.contains("Old fact"));
    }
}
