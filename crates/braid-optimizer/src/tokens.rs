//! Token counting: tiktoken encodings by model family, every message counted as the provider
//! receives it (the text `braid_llm::history` renders for it, tool-call JSON, a per-message
//! overhead), a cache per message version, and calibration against the usage providers report.

use std::collections::HashMap;
use std::sync::{Mutex, OnceLock};

use braid_llm::history::{Conversation, HistoryOptions, ImageDelivery, Turn, TurnOrigin, UserPart};
use braid_llm::{ModelCapabilities, TokenizerFamily, ToolDefinition};
use braid_protocol::{Message, MessageId, MessageKind, Role, ToolCall, ToolRequestMessage};
use serde::Serialize;
use tiktoken_rs::CoreBPE;

/// Tokens every message costs besides its content (role and separators), as OpenAI's chat
/// format counts them.
pub const MESSAGE_OVERHEAD: u32 = 3;
/// Tokens every tool call costs besides its name and arguments (id, type, separators).
pub const CALL_OVERHEAD: u32 = 4;
/// Tokens that prime the model's reply at the end of every request.
pub const REPLY_PRIMING: u32 = 3;
/// What one image part is counted as: a low-detail image on OpenAI's models. Providers count
/// images from their pixel size, which a stored reference does not carry.
pub const IMAGE_TOKENS: u32 = 85;
/// How many message counts the process keeps before starting over.
const CACHE_CAPACITY: usize = 200_000;
/// A reported prompt size is trusted to correct the estimate only within these bounds: outside
/// them the usage belongs to some other request than the one estimated.
const CALIBRATION_BOUNDS: (f64, f64) = (0.5, 2.0);

/// A tiktoken encoding.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Encoding {
    /// `o200k_base` (gpt-4o, gpt-4.1, gpt-5, o-series).
    O200kBase,
    /// `cl100k_base` (gpt-4, gpt-3.5).
    Cl100kBase,
}

/// Every encoding this build has.
const ENCODINGS: [Encoding; 2] = [Encoding::O200kBase, Encoding::Cl100kBase];

/// Whether the encoding is the model's own tokenizer or a stand-in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Exactness {
    /// The model's tokenizer: counts are the provider's.
    Exact,
    /// The model's tokenizer is not public (Claude) or not bundled (Llama, Qwen, Gemma,
    /// Mistral): `cl100k_base` is used, whose counts on English text and code come within about
    /// 10-20% of those tokenizers'; the margin and the usage calibration cover the rest.
    Approximate,
}

impl Encoding {
    /// Its name, as tiktoken spells it.
    pub fn name(self) -> &'static str {
        match self {
            Self::O200kBase => "o200k_base",
            Self::Cl100kBase => "cl100k_base",
        }
    }

    /// The encoding used for a tokenizer family, and whether it is exact.
    pub fn for_family(family: TokenizerFamily) -> (Self, Exactness) {
        match family {
            TokenizerFamily::O200kBase => (Self::O200kBase, Exactness::Exact),
            TokenizerFamily::Cl100kBase => (Self::Cl100kBase, Exactness::Exact),
            _ => (Self::Cl100kBase, Exactness::Approximate),
        }
    }

    /// The encoding used for `model`.
    pub fn for_model(model: &str) -> (Self, Exactness) {
        Self::for_family(ModelCapabilities::for_model(model).tokenizer)
    }

    /// Loads every encoding's tables. The first count in a process otherwise pays for it (about
    /// 130 ms for each encoding), which made a server's first read after a restart that slow;
    /// a server calls this on a blocking thread as it starts.
    pub fn load_all() {
        for encoding in ENCODINGS {
            encoding.bpe();
        }
    }

    fn bpe(self) -> &'static CoreBPE {
        match self {
            Self::O200kBase => tiktoken_rs::o200k_base_singleton(),
            Self::Cl100kBase => tiktoken_rs::cl100k_base_singleton(),
        }
    }

    /// Tokens of `text`, special-token look-alikes counted as ordinary text (as providers do
    /// with what users write).
    pub fn count(self, text: &str) -> u32 {
        if text.is_empty() {
            return 0;
        }
        u32::try_from(self.bpe().count_ordinary(text)).unwrap_or(u32::MAX)
    }

    /// The longest prefix of `text` that is at most `tokens` tokens, cut at a character
    /// boundary.
    pub fn truncate(self, text: &str, tokens: u32) -> String {
        let encoded = self.bpe().encode_ordinary(text);
        if encoded.len() <= tokens as usize {
            return text.to_owned();
        }
        let mut end = tokens as usize;
        // A cut inside a multi-byte character does not decode; a few tokens back always does.
        while end > 0 {
            if let Ok(prefix) = self.bpe().decode(&encoded[..end]) {
                return prefix;
            }
            end -= 1;
        }
        String::new()
    }
}

/// Counts the tokens of requests for one model.
#[derive(Clone, Copy, Debug)]
pub struct TokenCounter {
    encoding: Encoding,
    exactness: Exactness,
    images: ImageDelivery,
}

impl TokenCounter {
    /// The counter for `model`, from the built-in capability table.
    pub fn for_model(model: &str) -> Self {
        Self::new(&ModelCapabilities::for_model(model))
    }

    /// The counter for a model with these capabilities.
    pub fn new(capabilities: &ModelCapabilities) -> Self {
        let (encoding, exactness) = Encoding::for_family(capabilities.tokenizer);
        Self {
            encoding,
            exactness,
            images: if capabilities.vision {
                ImageDelivery::AsImages
            } else {
                ImageDelivery::AsRecognizedText
            },
        }
    }

    /// The encoding counts are made with.
    pub fn encoding(&self) -> Encoding {
        self.encoding
    }

    /// Whether the encoding is the model's own.
    pub fn exactness(&self) -> Exactness {
        self.exactness
    }

    /// Tokens of the system prompt as sent (with its message overhead). Counted once per
    /// distinct prompt: it is the same for most contexts and every turn.
    pub fn system_prompt(&self, prompt: Option<&str>) -> u32 {
        match prompt.filter(|p| !p.trim().is_empty()) {
            Some(p) => MESSAGE_OVERHEAD + fixed_count(self.encoding, p),
            None => 0,
        }
    }

    /// Tokens of the tool definitions: each one's JSON (name, description, parameter schema).
    pub fn tools(&self, tools: &[ToolDefinition]) -> u32 {
        tools
            .iter()
            .map(|t| {
                // The definition's own JSON (name, description, schema), as the model gets it;
                // serialized in place, since building a JSON value would copy the schema.
                let json = serde_json::to_string(t).unwrap_or_default();
                CALL_OVERHEAD + fixed_count(self.encoding, &json)
            })
            .sum()
    }

    /// Tokens of one message as the provider receives it, from the cache when this version of
    /// the message was counted before.
    pub fn message(&self, message: &Message) -> u32 {
        let key = self.key(message, Version::AsStored);
        if let Some(n) = cache_get(&key) {
            return n;
        }
        let n = self.message_uncached(message);
        cache_put(key, n);
        n
    }

    /// This counter's name where its counts are kept beyond the process (the store): its
    /// encoding and how it counts images, as `o200k_base/images`.
    pub fn name(&self) -> String {
        counter_name(self.encoding, self.images == ImageDelivery::AsImages)
    }

    /// The counts this process holds of `messages` as they are sent whole, to keep beyond it:
    /// each message's id, its version (`updated_at` in nanoseconds) and its tokens.
    pub fn known_counts<'m>(
        &self,
        messages: impl IntoIterator<Item = &'m Message>,
    ) -> Vec<KnownCount> {
        let Ok(map) = cache().lock() else {
            return Vec::new();
        };
        messages
            .into_iter()
            .filter_map(|m| {
                let key = self.key(m, Version::AsStored);
                map.get(&key).map(|&tokens| KnownCount {
                    message: m.id,
                    version: key.updated_at,
                    tokens,
                })
            })
            .collect()
    }

    /// Tokens of the copy of `message` sent without its tool output, from the cache when this
    /// version of the message was elided before (a long session elides the same results on
    /// every request), else of the copy `elide` makes; `None` when it makes none.
    pub fn elided(
        &self,
        message: &Message,
        elide: impl FnOnce() -> Option<Message>,
    ) -> Option<u32> {
        let key = self.key(message, Version::OutputElided);
        if let Some(n) = cache_get(&key) {
            return Some(n);
        }
        let n = self.message_uncached(&elide()?);
        cache_put(key, n);
        Some(n)
    }

    fn key(&self, message: &Message, version: Version) -> CacheKey {
        CacheKey {
            id: message.id,
            updated_at: version_of(message),
            encoding: self.encoding,
            images: self.images == ImageDelivery::AsImages,
            version,
        }
    }

    /// Tokens of one message, always counted afresh.
    pub fn message_uncached(&self, message: &Message) -> u32 {
        if !message.kind_name().is_sent_to_model() {
            return 0;
        }
        // Counted as native calls: a prompted call's block and result text take about as many
        // tokens as the provider's structures.
        let options = HistoryOptions {
            images: self.images,
            tool_calls: braid_protocol::ToolCalling::Native,
        };
        match &message.kind {
            // A result is rendered only after its call: give it one, count only the result.
            MessageKind::ToolResult(r) => {
                let call = Message::new(
                    Role::Assistant,
                    MessageKind::ToolRequest(ToolRequestMessage {
                        calls: vec![ToolCall::new(
                            r.call_id.clone(),
                            r.tool_name.clone(),
                            serde_json::json!({}),
                        )],
                    }),
                );
                let pair = [call, message.clone()];
                let conversation = braid_llm::history::build_conversation(None, &pair, options);
                self.turns(&conversation, TurnFilter::ResultsOnly)
            }
            MessageKind::McpToolResult(r) => {
                let call = Message::new(
                    Role::Assistant,
                    MessageKind::ToolRequest(ToolRequestMessage {
                        calls: vec![ToolCall::new(
                            r.request_id.clone(),
                            r.tool_name.clone(),
                            serde_json::json!({}),
                        )],
                    }),
                );
                let pair = [call, message.clone()];
                let conversation = braid_llm::history::build_conversation(None, &pair, options);
                self.turns(&conversation, TurnFilter::ResultsOnly)
            }
            _ => {
                let conversation = braid_llm::history::build_conversation(
                    None,
                    std::slice::from_ref(message),
                    options,
                );
                let system = conversation
                    .system
                    .as_deref()
                    .map_or(0, |s| MESSAGE_OVERHEAD + self.encoding.count(s));
                // A call alone gets a synthetic "not executed" result; its real result is
                // counted with the result message.
                system + self.turns(&conversation, TurnFilter::WithoutResults)
            }
        }
    }

    /// Tokens of the messages of one request as the provider receives them, after
    /// `system_prompt`: its format joins adjacent user texts into one message (a blank line
    /// between) and a model turn's messages into one answer, so this is a little less than the
    /// sum of the messages' own counts. Texts are counted line by line, from the kept counts:
    /// a request's messages are mostly the previous request's.
    pub fn request(
        &self,
        system_prompt: Option<&str>,
        messages: &[Message],
        tool_calls: braid_protocol::ToolCalling,
    ) -> u32 {
        self.request_with(system_prompt, messages, tool_calls, |_| None)
    }

    /// [`Self::request`], given what the caller already knows: `known(i)` is the count of
    /// `messages[i]` as [`Self::message`] gives it (`None` when unknown). A turn that is one
    /// message alone, and counted the same way alone as in a request, takes that count; only
    /// the other turns are counted from their text. The sum is the same. By position, so each
    /// copy a request sends is taken for itself.
    pub fn request_with(
        &self,
        system_prompt: Option<&str>,
        messages: &[Message],
        tool_calls: braid_protocol::ToolCalling,
        known: impl Fn(usize) -> Option<u32>,
    ) -> u32 {
        let options = HistoryOptions {
            images: self.images,
            tool_calls,
        };
        let (conversation, origins) =
            braid_llm::history::build_traced(system_prompt, messages, options);
        let system = match conversation.system.as_deref() {
            Some(s) if Some(s) == system_prompt => self.system_prompt(Some(s)),
            Some(s) => MESSAGE_OVERHEAD + self.encoding.count_by_lines(s),
            None => 0,
        };
        let turns: u32 = conversation
            .turns
            .iter()
            .zip(origins)
            .map(|(turn, origin)| {
                let kept = match origin {
                    TurnOrigin::Alone(i) if counted_alike(turn) && i < messages.len() => known(i),
                    _ => None,
                };
                kept.unwrap_or_else(|| self.turn(turn))
            })
            .sum();
        system + turns
    }

    /// Tokens of one turn of a request, counted from its text.
    fn turn(&self, turn: &Turn) -> u32 {
        let text = |t: &str| self.encoding.count_by_lines(t);
        match turn {
            Turn::User(parts) => {
                MESSAGE_OVERHEAD
                    + match braid_llm::history::user_text(parts) {
                        // Text only: one string, as OpenAI's format sends it.
                        Some(joined) => text(&joined),
                        None => parts
                            .iter()
                            .map(|p| match p {
                                UserPart::Text(t) => text(t),
                                UserPart::Image(_) => IMAGE_TOKENS,
                            })
                            .sum(),
                    }
            }
            Turn::Assistant { text: said, calls } => {
                MESSAGE_OVERHEAD
                    + text(said)
                    + calls
                        .iter()
                        .map(|c| {
                            let arguments = match c.arguments {
                                // Arguments that were not JSON are replayed as they came.
                                serde_json::Value::String(raw) => text(raw),
                                other => text(&other.to_string()),
                            };
                            CALL_OVERHEAD + self.encoding.count_by_lines(c.name) + arguments
                        })
                        .sum::<u32>()
            }
            Turn::ToolResult(r) => MESSAGE_OVERHEAD + text(&r.content.text()),
        }
    }

    fn turns(&self, conversation: &Conversation, filter: TurnFilter) -> u32 {
        conversation
            .turns
            .iter()
            .map(|turn| match (turn, filter) {
                (Turn::ToolResult(r), TurnFilter::ResultsOnly) => {
                    MESSAGE_OVERHEAD + self.encoding.count(&r.content.text())
                }
                (Turn::ToolResult(_), TurnFilter::WithoutResults) => 0,
                (_, TurnFilter::ResultsOnly) => 0,
                (Turn::User(parts), TurnFilter::WithoutResults) => {
                    MESSAGE_OVERHEAD
                        + parts
                            .iter()
                            .map(|p| match p {
                                UserPart::Text(t) => self.encoding.count(t),
                                UserPart::Image(_) => IMAGE_TOKENS,
                            })
                            .sum::<u32>()
                }
                (Turn::Assistant { text, calls }, TurnFilter::WithoutResults) => {
                    MESSAGE_OVERHEAD
                        + self.encoding.count(text)
                        + calls
                            .iter()
                            .map(|c| {
                                CALL_OVERHEAD
                                    + self.encoding.count(c.name)
                                    + self.encoding.count(&c.arguments.to_string())
                            })
                            .sum::<u32>()
                }
            })
            .sum()
    }
}

/// Whether a turn that is one message alone counts the same as [`TokenCounter::message`]
/// counts that message: not when it is several texts (a request joins them into one string,
/// [`braid_llm::history::user_text`]; a message's count counts each) or has arguments that
/// are not JSON (a request replays them as they came, a message's count as a JSON string).
fn counted_alike(turn: &Turn) -> bool {
    match turn {
        Turn::User(parts) => {
            parts.len() <= 1 || parts.iter().any(|p| matches!(p, UserPart::Image(_)))
        }
        Turn::Assistant { calls, .. } => !calls
            .iter()
            .any(|c| matches!(c.arguments, serde_json::Value::String(_))),
        Turn::ToolResult(_) => true,
    }
}

#[derive(Clone, Copy)]
enum TurnFilter {
    ResultsOnly,
    WithoutResults,
}

/// Which form of a message a count is of.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
enum Version {
    /// As stored.
    AsStored,
    /// A tool result without its output.
    OutputElided,
}

#[derive(Clone, Copy, PartialEq, Eq, Hash)]
struct CacheKey {
    id: MessageId,
    updated_at: i64,
    encoding: Encoding,
    images: bool,
    version: Version,
}

// One cache for the process: processors are stateless and a context's actor is rebuilt on
// load, while a message version's count never changes. Bounded by starting over when full.
// Hashed with foldhash, seeded per process: SipHash was a twentieth of a 1,000-message turn's
// pipeline (profiled), and message ids may come from imported histories, so the seed stays.
type CountCache = HashMap<CacheKey, u32, foldhash::fast::RandomState>;

fn cache() -> &'static Mutex<CountCache> {
    static CACHE: OnceLock<Mutex<CountCache>> = OnceLock::new();
    CACHE.get_or_init(|| Mutex::new(CountCache::default()))
}

fn cache_get(key: &CacheKey) -> Option<u32> {
    cache().lock().ok()?.get(key).copied()
}

fn cache_put(key: CacheKey, tokens: u32) {
    if let Ok(mut map) = cache().lock() {
        if map.len() >= CACHE_CAPACITY {
            map.clear();
        }
        map.insert(key, tokens);
    }
}

/// The name of the counter with `encoding` that counts images as images (`images`) or as their
/// recognized text: what [`TokenCounter::name`] answers and [`remember`] reads.
fn counter_name(encoding: Encoding, images: bool) -> String {
    let images = if images { "images" } else { "text" };
    format!("{}/{images}", encoding.name())
}

/// The version of a message that counts are kept by: its `updated_at` in nanoseconds.
pub fn version_of(message: &Message) -> i64 {
    message.updated_at.timestamp_nanos_opt().unwrap_or_default()
}

/// A message version's count kept beyond the process (see [`TokenCounter::known_counts`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct KnownCount {
    /// The message.
    pub message: MessageId,
    /// Its version: `updated_at` in nanoseconds.
    pub version: i64,
    /// Its tokens as it is sent whole.
    pub tokens: u32,
}

/// Takes counts kept beyond the process back into its cache, so that the messages they count
/// are not tokenized again (a restarted server's first read of a long context). `counter` is
/// the name of the counter that made them ([`TokenCounter::name`]); a name this build does not
/// know takes nothing. Answers how many were taken.
pub fn remember(counter: &str, counts: impl IntoIterator<Item = KnownCount>) -> usize {
    let Some((encoding, images)) = ENCODINGS
        .into_iter()
        .flat_map(|e| [(e, true), (e, false)])
        .find(|&(e, images)| counter_name(e, images) == counter)
    else {
        return 0;
    };
    let Ok(mut map) = cache().lock() else {
        return 0;
    };
    let mut taken = 0;
    for count in counts {
        if map.len() >= CACHE_CAPACITY {
            map.clear();
        }
        map.insert(
            CacheKey {
                id: count.message,
                updated_at: count.version,
                encoding,
                images,
                version: Version::AsStored,
            },
            count.tokens,
        );
        taken += 1;
    }
    taken
}

/// Forgets every cached count (for measuring cold counting).
pub fn clear_cache() {
    if let Ok(mut map) = cache().lock() {
        map.clear();
    }
    if let Ok(mut map) = fixed_cache().lock() {
        map.clear();
    }
    if let Ok(mut map) = line_cache().lock() {
        map.clear();
    }
    if let Ok(mut map) = long_line_cache().lock() {
        map.clear();
    }
}

/// Counts of texts (lines, prompts, tool definitions) by the text, for one encoding. Hashed with
/// foldhash, seeded per process, as the message counts are: every line of every request is
/// looked up here, and SipHash was a tenth of counting a request whose lines were all kept.
type TextCounts = HashMap<String, u32, foldhash::fast::RandomState>;

/// How many distinct system prompts and tool definitions the process keeps counts of, for each
/// encoding, before starting over.
const FIXED_CACHE_CAPACITY: usize = 4096;

// The system prompt and the tool definitions are the same text for most contexts and every
// turn; counting them is most of a turn's tokenizing (profile of `braid-load --contexts 1000`).
// Keyed by the text itself, so a count never belongs to another text; one map per encoding, so
// a lookup borrows the text instead of copying it into a key.
fn fixed_cache() -> &'static Mutex<HashMap<Encoding, TextCounts>> {
    static CACHE: OnceLock<Mutex<HashMap<Encoding, TextCounts>>> = OnceLock::new();
    CACHE.get_or_init(|| Mutex::new(HashMap::new()))
}

/// Tokens of a text that recurs unchanged (a system prompt, a tool definition), from the cache.
fn fixed_count(encoding: Encoding, text: &str) -> u32 {
    kept_count(fixed_cache(), FIXED_CACHE_CAPACITY, encoding, text)
}

/// Tokens of `text` from `cache`, counted and kept there when missing (the cache starts over
/// once it holds `capacity` texts). The lock is not held while the text is tokenized, so other
/// threads' counts do not wait for it.
fn kept_count(
    cache: &Mutex<HashMap<Encoding, TextCounts>>,
    capacity: usize,
    encoding: Encoding,
    text: &str,
) -> u32 {
    let kept = cache
        .lock()
        .ok()
        .and_then(|m| m.get(&encoding)?.get(text).copied());
    if let Some(n) = kept {
        return n;
    }
    let n = encoding.count(text);
    keep(cache, capacity, encoding, [(text, n)]);
    n
}

/// Keeps the counts of `counted` (texts and their tokens) in `cache`, under one lock; the cache
/// starts over whenever it holds `capacity` texts.
fn keep<'t>(
    cache: &Mutex<HashMap<Encoding, TextCounts>>,
    capacity: usize,
    encoding: Encoding,
    counted: impl IntoIterator<Item = (&'t str, u32)>,
) {
    if let Ok(mut map) = cache.lock() {
        let counts = map.entry(encoding).or_default();
        for (text, n) in counted {
            if counts.len() >= capacity {
                counts.clear();
            }
            counts.insert(text.to_owned(), n);
        }
    }
}

/// How many distinct lines (ledger entries and lines of its block) the process keeps counts of,
/// for each encoding, before starting over.
const LINE_CACHE_CAPACITY: usize = 65_536;

/// The longest line kept by its text. Lines come from tool output and people's text, so an
/// unbounded line would make the cache's memory unbounded too (65,536 minified files): this
/// bounds the cache to some 32 MiB. A longer line is kept by its digest instead.
const LINE_CACHE_MAX_LINE: usize = 512;

/// A long line's key: 128 bits of two SipHash keyed at random for the process. Keyed at random
/// so that nobody can write two lines with one key (and so one count) on purpose; 128 bits so
/// that two lines never share one by chance.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
struct LineDigest(Encoding, u64, u64);

impl LineDigest {
    fn of(encoding: Encoding, line: &str) -> Self {
        use std::hash::BuildHasher;
        static KEYS: OnceLock<(std::hash::RandomState, std::hash::RandomState)> = OnceLock::new();
        let (a, b) =
            KEYS.get_or_init(|| (std::hash::RandomState::new(), std::hash::RandomState::new()));
        Self(encoding, a.hash_one(line), b.hash_one(line))
    }
}

// Long lines recur as much as short ones (a ledger's line of paths, a tool's one-line JSON
// output sent on every request); a digest and a count are some 40 bytes whatever the line.
fn long_line_cache() -> &'static Mutex<HashMap<LineDigest, u32>> {
    static CACHE: OnceLock<Mutex<HashMap<LineDigest, u32>>> = OnceLock::new();
    CACHE.get_or_init(|| Mutex::new(HashMap::new()))
}

/// Tokens of a line over [`LINE_CACHE_MAX_LINE`] bytes, kept by its digest.
fn long_line_count(encoding: Encoding, line: &str) -> u32 {
    let key = LineDigest::of(encoding, line);
    if let Some(n) = long_line_cache()
        .lock()
        .ok()
        .and_then(|m| m.get(&key).copied())
    {
        return n;
    }
    let n = encoding.count(line);
    if let Ok(mut map) = long_line_cache().lock() {
        if map.len() >= LINE_CACHE_CAPACITY {
            map.clear();
        }
        map.insert(key, n);
    }
    n
}

// A ledger's lines recur from one request to the next (it only grows as messages leave the
// window), so each is tokenized once, not on every request.
fn line_cache() -> &'static Mutex<HashMap<Encoding, TextCounts>> {
    static CACHE: OnceLock<Mutex<HashMap<Encoding, TextCounts>>> = OnceLock::new();
    CACHE.get_or_init(|| Mutex::new(HashMap::new()))
}

impl Encoding {
    /// Tokens of `text` (as [`Encoding::count`]), counted line by line with each line's count
    /// kept: for text whose lines recur, such as the ledger's block. Exact, because the
    /// encodings' pre-tokenizer never joins a line break to the non-blank character after it
    /// (its pieces end at or after line breaks; `o200k_base` lets a punctuation piece run on
    /// over breaks and slashes, so a line starting with `/` stays with the one before), so the
    /// text's tokens are its lines' tokens, each line counted with the breaks that end it.
    pub fn count_by_lines(self, text: &str) -> u32 {
        let mut total = 0u32;
        // Most lines were counted before: they are looked up under one lock; the others are
        // tokenized after it is released, and kept under one more.
        let mut missing: Vec<&str> = Vec::new();
        match line_cache().lock() {
            Ok(map) => {
                let counts = map.get(&self);
                for line in lines_with_breaks(text) {
                    let kept = (line.len() <= LINE_CACHE_MAX_LINE)
                        .then(|| counts?.get(line))
                        .flatten();
                    match kept {
                        Some(n) => total = total.saturating_add(*n),
                        None => missing.push(line),
                    }
                }
            }
            Err(_) => missing.extend(lines_with_breaks(text)),
        }
        let mut counted: Vec<(&str, u32)> = Vec::with_capacity(missing.len());
        for line in missing {
            if line.len() > LINE_CACHE_MAX_LINE {
                total = total.saturating_add(long_line_count(self, line));
            } else {
                let n = self.count(line);
                total = total.saturating_add(n);
                counted.push((line, n));
            }
        }
        if !counted.is_empty() {
            keep(line_cache(), LINE_CACHE_CAPACITY, self, counted);
        }
        total
    }
}

/// `text` cut after each run of line breaks that a non-blank character other than `/` follows
/// right away.
fn lines_with_breaks(text: &str) -> impl Iterator<Item = &str> {
    let mut rest = text;
    std::iter::from_fn(move || {
        if rest.is_empty() {
            return None;
        }
        let (line, tail) = rest.split_at(first_line_end(rest));
        rest = tail;
        Some(line)
    })
}

/// Where [`lines_with_breaks`] cuts `text` first (its length when it does not). Line breaks
/// are found with `memchr`: a request's texts are tens of kilobytes, and walking them a
/// character at a time was most of counting a request whose lines were all kept.
fn first_line_end(text: &str) -> usize {
    let bytes = text.as_bytes();
    let mut from = 0;
    while let Some(found) = memchr::memchr2(b'\n', b'\r', &bytes[from..]) {
        let mut at = from + found + 1;
        while bytes.get(at).is_some_and(|b| matches!(b, b'\n' | b'\r')) {
            at += 1;
        }
        // Breaks are ASCII, so `at` is a character boundary.
        match text.get(at..).and_then(|after| after.chars().next()) {
            Some(c) if !c.is_whitespace() && c != '/' => return at,
            Some(_) => from = at,
            None => break,
        }
    }
    text.len()
}

/// The prompt size a provider reported for the request that produced a message
/// (`metadata.usage.prompt_tokens`, which the engine records on the model's answers).
pub fn reported_prompt_tokens(message: &Message) -> Option<u32> {
    if message.role != Role::Assistant {
        return None;
    }
    message
        .metadata
        .get("usage")?
        .get("prompt_tokens")?
        .as_u64()
        .and_then(|n| u32::try_from(n).ok())
        .filter(|n| *n > 0)
}

/// The factor that turns an estimate into what the provider counts: reported / estimated,
/// when that is within [`CALIBRATION_BOUNDS`].
pub fn calibration_ratio(reported: u32, estimated: u32) -> Option<f64> {
    if estimated == 0 {
        return None;
    }
    let ratio = f64::from(reported) / f64::from(estimated);
    (CALIBRATION_BOUNDS.0..=CALIBRATION_BOUNDS.1)
        .contains(&ratio)
        .then_some(ratio)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn families_without_a_public_tokenizer_use_cl100k_as_an_approximation() {
        assert_eq!(
            Encoding::for_model("gpt-4o-mini"),
            (Encoding::O200kBase, Exactness::Exact)
        );
        assert_eq!(
            Encoding::for_model("gpt-3.5-turbo"),
            (Encoding::Cl100kBase, Exactness::Exact)
        );
        assert_eq!(
            Encoding::for_model("claude-sonnet-4-20250514"),
            (Encoding::Cl100kBase, Exactness::Approximate)
        );
        assert_eq!(
            Encoding::for_model("qwen3:8b"),
            (Encoding::Cl100kBase, Exactness::Approximate)
        );
    }

    #[test]
    fn counts_kept_beyond_the_process_are_taken_back_under_their_counters_name() {
        let text = |t: &str| {
            Message::new(
                Role::User,
                MessageKind::Text(braid_protocol::TextMessage::plain(t)),
            )
        };
        let (counted, other) = (text("counted before a restart"), text("never counted"));
        let o200k = TokenCounter::for_model("gpt-4o");
        let cl100k = TokenCounter::for_model("gpt-4");
        let tokens = o200k.message(&counted);
        let kept = o200k.known_counts([&counted, &other]);
        assert_eq!(
            kept,
            [KnownCount {
                message: counted.id,
                version: counted.updated_at.timestamp_nanos_opt().unwrap(),
                tokens,
            }]
        );
        // A restarted process takes a kept count back as it was stored, even a wrong one (so
        // the cache, not the tokenizer, is what answers). The cache is shared by the tests
        // running beside this one, so the message taken back was never counted here.
        let restarted = text("counted by the process before the restart");
        let stored = KnownCount {
            message: restarted.id,
            version: restarted.updated_at.timestamp_nanos_opt().unwrap(),
            tokens: 1_234,
        };
        assert_eq!(remember("nonsense", [stored]), 0);
        assert_eq!(remember(&cl100k.name(), [stored]), 1);
        assert_eq!(o200k.known_counts([&restarted]), []);
        assert_eq!(remember(&o200k.name(), [stored]), 1);
        assert_eq!(o200k.message(&restarted), 1_234);
        // Another version of the message is counted afresh.
        let mut edited = restarted.clone();
        edited.updated_at += chrono::Duration::seconds(1);
        assert_eq!(o200k.message(&edited), o200k.message_uncached(&restarted));
    }

    #[test]
    fn a_line_longer_than_the_kept_length_is_kept_by_its_digest_not_its_text() {
        let long = format!("{}\n", "minified();".repeat(LINE_CACHE_MAX_LINE));
        let short = "a short line that is kept\n";
        let text = format!("{long}{short}");
        let encoding = Encoding::Cl100kBase;
        assert_eq!(encoding.count_by_lines(&text), encoding.count(&text));
        {
            let map = line_cache().lock().unwrap();
            let kept = map.get(&encoding).unwrap();
            assert!(!kept.contains_key(long.as_str()));
            assert!(kept.contains_key(short));
        }
        let digest = LineDigest::of(encoding, &long);
        assert_eq!(
            long_line_cache().lock().unwrap().get(&digest).copied(),
            Some(encoding.count(&long))
        );
        // Another encoding, or another line, has a key of its own.
        assert!(digest != LineDigest::of(Encoding::O200kBase, &long));
        assert!(digest != LineDigest::of(encoding, &long[1..]));
        assert_eq!(encoding.count_by_lines(&text), encoding.count(&text));
    }

    #[test]
    fn counting_by_lines_equals_counting_the_whole_text() {
        let texts = [
            "",
            "one line",
            "a\nb",
            "- read: src/a.rs, src/b.rs\n- `cargo test`: exit 0\nCommands run (newest first):\n",
            "ends with punctuation.\n- next `x`\n\n\nafter blank lines",
            "indented:\n    code();\n  more\n\tTab\n",
            "trailing blanks \n \n-x\r\n- windows line\r\nend",
            "numbers 12345\n67890 and `ticks`\n/path/to/file.rs\n\u{00e9}t\u{00e9} \u{1F600}\n\u{4e2d}\u{6587}",
            "'s\n're contractions\n<|endoftext|> look-alike\n",
            "`x`\n/root\n//\n/\n`y`\r\n/z\n- ok",
        ];
        for encoding in [Encoding::O200kBase, Encoding::Cl100kBase] {
            for text in texts {
                assert_eq!(
                    encoding.count_by_lines(text),
                    encoding.count(text),
                    "{encoding:?} {text:?}"
                );
                // Again, from the kept counts.
                assert_eq!(encoding.count_by_lines(text), encoding.count(text));
            }
        }
        // Random texts over the characters the pre-tokenizer treats differently.
        let alphabet: Vec<char> = "\n\n\r \t/`-.:,'sAbZ09\u{e9}\u{4e2d}\u{1F600}_("
            .chars()
            .collect();
        let mut seed: u64 = 42;
        for _ in 0..3_000 {
            let mut text = String::new();
            for _ in 0..24 {
                seed = seed
                    .wrapping_mul(6_364_136_223_846_793_005)
                    .wrapping_add(1_442_695_040_888_963_407);
                text.push(alphabet[(seed >> 33) as usize % alphabet.len()]);
            }
            for encoding in [Encoding::O200kBase, Encoding::Cl100kBase] {
                assert_eq!(
                    encoding.count_by_lines(&text),
                    encoding.count(&text),
                    "{encoding:?} {text:?}"
                );
            }
        }
        let pieces: Vec<&str> = lines_with_breaks("a\n  b\nc").collect();
        assert_eq!(pieces, ["a\n  b\n", "c"]);
        let pieces: Vec<&str> = lines_with_breaks("a\r\n\nb\n/c").collect();
        assert_eq!(pieces, ["a\r\n\n", "b\n/c"]);
        let pieces: Vec<&str> = lines_with_breaks("\n\nb\n\u{a0}é\nü\n").collect();
        assert_eq!(pieces, ["\n\n", "b\n\u{a0}é\n", "ü\n"]);
        assert_eq!(lines_with_breaks("").count(), 0);
    }

    #[test]
    fn a_request_counts_adjacent_user_texts_and_a_turns_messages_as_one() {
        let counter = TokenCounter::for_model("gpt-4o");
        let encoding = counter.encoding();
        let turn = braid_protocol::TurnId::new();
        let mut call = Message::new(
            Role::Assistant,
            MessageKind::ToolRequest(ToolRequestMessage {
                calls: vec![ToolCall::new(
                    "c1",
                    "read_file",
                    serde_json::json!({"path": "a.rs"}),
                )],
            }),
        );
        call.set_turn_id(turn);
        let result = Message::new(
            Role::Tool,
            MessageKind::ToolResult(Box::new(braid_protocol::ToolResultMessage {
                call_id: "c1".into(),
                tool_name: "read_file".into(),
                outcome: braid_protocol::ToolOutcome::Success {
                    output: serde_json::json!("fn a() {}"),
                },
                duration_ms: 1,
                started_at: None,
                completed_at: None,
            })),
        );
        let mut answer = Message::assistant_text("Read it.");
        answer.set_turn_id(turn);
        let messages = vec![
            Message::user_text("[Ledger]\n- read: b.rs"),
            Message::user_text("Please read a.rs."),
            call,
            result,
            answer,
        ];
        let expected = MESSAGE_OVERHEAD
            + encoding.count("[Ledger]\n- read: b.rs\n\nPlease read a.rs.")
            + MESSAGE_OVERHEAD
            + encoding.count("Read it.")
            + CALL_OVERHEAD
            + encoding.count("read_file")
            + encoding.count(r#"{"path":"a.rs"}"#)
            + MESSAGE_OVERHEAD
            + encoding.count("fn a() {}");
        let native = braid_protocol::ToolCalling::Native;
        assert_eq!(counter.request(None, &messages, native), expected);
        let prompt = "You are helpful.";
        assert_eq!(
            counter.request(Some(prompt), &messages, native),
            expected + counter.system_prompt(Some(prompt))
        );
        let parts: u32 = messages.iter().map(|m| counter.message(m)).sum();
        assert!(expected < parts, "joined: {expected} < {parts}");
    }

    fn call_message(calls: Vec<ToolCall>) -> Message {
        Message::new(
            Role::Assistant,
            MessageKind::ToolRequest(ToolRequestMessage { calls }),
        )
    }

    fn result_message(call: &str, output: serde_json::Value) -> Message {
        Message::new(
            Role::Tool,
            MessageKind::ToolResult(Box::new(braid_protocol::ToolResultMessage {
                call_id: call.into(),
                tool_name: "read_file".into(),
                outcome: braid_protocol::ToolOutcome::Success { output },
                duration_ms: 1,
                started_at: None,
                completed_at: None,
            })),
        )
    }

    #[test]
    fn a_request_given_its_messages_counts_takes_them_for_turns_alone_and_sums_the_same() {
        let counter = TokenCounter::for_model("gpt-4o");
        let turn = braid_protocol::TurnId::new();
        let mut said = Message::assistant_text("Reading it.");
        said.set_turn_id(turn);
        let mut gathered = call_message(vec![ToolCall::new(
            "c1",
            "read_file",
            serde_json::json!({"path": "a.rs"}),
        )]);
        gathered.set_turn_id(turn);
        let alone_call = call_message(vec![ToolCall::new(
            "c2",
            "run_command",
            serde_json::json!({"program": "cargo", "args": ["test"]}),
        )]);
        let unanswered = call_message(vec![ToolCall::new(
            "c3",
            "read_file",
            serde_json::json!({"path": "b.rs"}),
        )]);
        let not_json = call_message(vec![ToolCall::new(
            "c4",
            "read_file",
            serde_json::Value::String("{path: c.rs".into()),
        )]);
        let messages = vec![
            Message::user_text("[Ledger]\n- read: b.rs"),
            Message::user_text("Please read a.rs."),
            said,
            gathered,
            result_message("c1", serde_json::json!("fn a() {}")),
            Message::assistant_text("Now the tests."),
            alone_call,
            result_message("c2", serde_json::json!({"exit_code": 0, "stdout": "ok\n"})),
            Message::assistant_text("They pass."),
            Message::assistant_text("And one more thing."),
            Message::user_text("Read b.rs."),
            unanswered,
            Message::user_text("And c.rs."),
            not_json,
            result_message("c4", serde_json::json!("no such file")),
            Message::user_text("Thanks."),
        ];
        let asked = std::cell::RefCell::new(Vec::new());
        let known = |i: usize| {
            asked.borrow_mut().push(messages[i].id);
            Some(counter.message(&messages[i]))
        };
        let native = braid_protocol::ToolCalling::Native;
        let prompt = Some("You are helpful.");
        assert_eq!(
            counter.request_with(prompt, &messages, native, known),
            counter.request(prompt, &messages, native)
        );
        // The turns that are one message alone: the results, the user texts alone and the
        // unanswered call. Joined texts, the gathered turn, the answers a call or a text joins,
        // the unanswered call's result and the call whose arguments are not JSON are counted
        // from their text.
        let alone: Vec<MessageId> = [4, 7, 10, 11, 12, 14, 15]
            .iter()
            .map(|&i| messages[i].id)
            .collect();
        assert_eq!(*asked.borrow(), alone);

        // Calls written as text join everything: nothing is taken.
        asked.borrow_mut().clear();
        let prompted = braid_protocol::ToolCalling::Prompted;
        assert_eq!(
            counter.request_with(prompt, &messages, prompted, known),
            counter.request(prompt, &messages, prompted)
        );
        assert!(asked.borrow().is_empty());
    }

    #[test]
    fn known_counts_of_the_openai_cookbook() {
        // "tiktoken is great!" is 6 tokens in cl100k_base (OpenAI cookbook).
        assert_eq!(Encoding::Cl100kBase.count("tiktoken is great!"), 6);
        assert_eq!(Encoding::O200kBase.count(""), 0);
    }

    #[test]
    fn truncation_keeps_a_prefix_within_the_limit() {
        let text = "héllo wörld ".repeat(200);
        let cut = Encoding::O200kBase.truncate(&text, 50);
        assert!(text.starts_with(&cut));
        assert!(Encoding::O200kBase.count(&cut) <= 50);
        assert!(Encoding::O200kBase.count(&cut) >= 45);
    }

    #[test]
    fn cached_count_changes_with_the_message_version() {
        let counter = TokenCounter::for_model("gpt-4o");
        let mut m = Message::user_text("one two three");
        let before = counter.message(&m);
        m.kind = MessageKind::Text(braid_protocol::TextMessage::plain(
            "one two three four five six seven",
        ));
        assert_eq!(counter.message(&m), before, "same version: cached");
        m.updated_at += chrono::Duration::milliseconds(1);
        assert!(counter.message(&m) > before, "new version: counted again");
    }

    #[test]
    fn system_prompt_counts_come_from_the_cache_per_text_and_encoding() {
        let counter = TokenCounter::for_model("gpt-4o");
        let older = TokenCounter::for_model("gpt-4");
        let short = "You are Braid.";
        let long = "You are Braid, an agent with tools for reading and writing files.";
        for _ in 0..2 {
            assert_eq!(
                counter.system_prompt(Some(short)),
                MESSAGE_OVERHEAD + Encoding::O200kBase.count(short)
            );
            assert_eq!(
                counter.system_prompt(Some(long)),
                MESSAGE_OVERHEAD + Encoding::O200kBase.count(long)
            );
            assert_eq!(
                older.system_prompt(Some(long)),
                MESSAGE_OVERHEAD + Encoding::Cl100kBase.count(long)
            );
        }
        assert_ne!(
            counter.system_prompt(Some(short)),
            counter.system_prompt(Some(long))
        );
    }

    #[test]
    fn calibration_ignores_reports_far_from_the_estimate() {
        assert_eq!(calibration_ratio(110, 100), Some(1.1));
        assert_eq!(calibration_ratio(1000, 100), None);
        assert_eq!(calibration_ratio(10, 0), None);
    }
}
