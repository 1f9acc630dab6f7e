//! `codebase_search`: a literal or regex search over the workspace with ripgrep's crates,
//! honouring `.gitignore`, with ranked results (seed 001 "Codebase search").

use std::path::Path;

use async_trait::async_trait;
use grep_matcher::Matcher;
use grep_regex::{RegexMatcher, RegexMatcherBuilder};
use grep_searcher::sinks::Lossy;
use grep_searcher::{BinaryDetection, SearcherBuilder};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use crate::arguments::parse_arguments;
use crate::builtin::{DEFAULT_TIMEOUT, blocking, spec};
use crate::tool::{
    Permission, Tool, ToolCategory, ToolContext, ToolError, ToolErrorCode, ToolOutput, ToolSpec,
};
use crate::walker::{language_of, walker};
use crate::workspace::Workspace;

/// How the query is read.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum QueryMode {
    /// The exact text.
    #[default]
    Literal,
    /// A regular expression (Rust regex syntax).
    Regex,
}

/// How letter case is matched.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum CaseMode {
    /// Case-insensitive unless the query has an upper-case letter.
    #[default]
    Smart,
    /// Exact case.
    Sensitive,
    /// Any case.
    Insensitive,
}

/// Arguments of `codebase_search`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SearchArgs {
    /// Text or regex to find.
    pub query: String,
    /// Default `literal`.
    #[serde(default)]
    pub mode: QueryMode,
    /// Default `smart`.
    #[serde(default)]
    pub case: CaseMode,
    /// Only under this directory.
    pub path: Option<String>,
    /// Only paths matching this glob (`**/*.rs`).
    pub glob: Option<String>,
    /// Default 50, at most 500.
    #[schemars(range(min = 1, max = 500))]
    pub max_results: Option<u32>,
}

/// One matching line.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SearchHit {
    /// Path relative to the workspace root.
    pub path: String,
    /// 1-based line number.
    pub line: u64,
    /// The line, trimmed and shortened.
    pub snippet: String,
    /// Relevance: higher is better.
    pub score: u32,
}

/// The outcome of a search.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SearchResults {
    /// The best hits, best first.
    pub results: Vec<SearchHit>,
    /// How many matching lines were found in all.
    pub total_matches: usize,
    /// How many files were searched.
    pub files_searched: usize,
    /// Whether results were left out because of `max_results` or the scan limit.
    pub truncated: bool,
}

/// Options of [`search_workspace`].
#[derive(Clone, Debug)]
pub struct SearchOptions {
    /// Literal or regex.
    pub mode: QueryMode,
    /// Case handling.
    pub case: CaseMode,
    /// Directory to search under, relative to the root.
    pub path: Option<String>,
    /// Glob the relative path must match.
    pub glob: Option<String>,
    /// How many results to return.
    pub max_results: usize,
}

impl Default for SearchOptions {
    fn default() -> Self {
        Self {
            mode: QueryMode::Literal,
            case: CaseMode::Smart,
            path: None,
            glob: None,
            max_results: DEFAULT_MAX_RESULTS,
        }
    }
}

/// Results returned when the caller does not say.
pub const DEFAULT_MAX_RESULTS: usize = 50;
/// Matching lines collected before ranking stops looking (bounds memory on huge trees).
const SCAN_LIMIT: usize = 20_000;
/// The longest line the search holds in memory; a file with a longer one is skipped.
const MAX_SEARCH_LINE_BYTES: usize = 1024 * 1024;
/// Snippets are cut to this many characters.
const SNIPPET_CHARS: usize = 240;

/// Words that introduce a definition in the languages Braid reads; a match right after one ranks
/// higher, since a model searching for a name usually wants where it is defined.
const DEFINITION_WORDS: [&str; 16] = [
    "fn",
    "def",
    "class",
    "struct",
    "enum",
    "trait",
    "type",
    "interface",
    "func",
    "function",
    "const",
    "let",
    "mod",
    "impl",
    "static",
    "var",
];

fn build_matcher(query: &str, options: &SearchOptions) -> Result<RegexMatcher, ToolError> {
    let mut builder = RegexMatcherBuilder::new();
    builder.fixed_strings(options.mode == QueryMode::Literal);
    match options.case {
        CaseMode::Smart => builder.case_smart(true),
        CaseMode::Sensitive => builder.case_insensitive(false),
        CaseMode::Insensitive => builder.case_insensitive(true),
    };
    builder.build(query).map_err(|e| {
        ToolError::new(
            ToolErrorCode::InvalidArguments,
            format!("bad search pattern `{query}`: {e}"),
        )
    })
}

fn is_word_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

fn score(line: &str, start: usize, end: usize, query: &str, path: &Path) -> u32 {
    let bytes = line.as_bytes();
    let mut score: u32 = 1;
    let whole_word = (start == 0 || !is_word_byte(bytes[start - 1]))
        && (end >= bytes.len() || !is_word_byte(bytes[end]));
    if whole_word {
        score += 4;
    }
    if line.get(start..end) == Some(query) {
        score += 2;
    }
    let before = line.get(..start).unwrap_or("");
    if let Some(word) = before.split_whitespace().last()
        && DEFINITION_WORDS.contains(&word)
    {
        score += 6;
    }
    match language_of(path) {
        Some("markdown" | "json" | "yaml" | "toml") | None => {}
        Some(_) => score += 2,
    }
    let rel = path.to_string_lossy();
    if rel.contains("/tests/") || rel.contains("/benches/") || rel.contains("fixtures") {
        score = score.saturating_sub(1);
    }
    score
}

fn snippet(line: &str) -> String {
    let trimmed = line.trim();
    if trimmed.chars().count() <= SNIPPET_CHARS {
        trimmed.to_owned()
    } else {
        let cut: String = trimmed.chars().take(SNIPPET_CHARS).collect();
        format!("{cut}…")
    }
}

/// Searches the workspace (ignored files left out) and ranks the matching lines.
pub fn search_workspace(
    ws: &Workspace,
    query: &str,
    options: &SearchOptions,
) -> Result<SearchResults, ToolError> {
    if query.is_empty() {
        return Err(ToolError::new(
            ToolErrorCode::InvalidArguments,
            "query must not be empty",
        ));
    }
    let matcher = build_matcher(query, options)?;
    let base = match &options.path {
        Some(p) => ws.resolve(p)?,
        None => ws.root().to_path_buf(),
    };
    let glob = match &options.glob {
        Some(g) => Some(
            globset::Glob::new(g)
                .map_err(|e| {
                    ToolError::new(
                        ToolErrorCode::InvalidArguments,
                        format!("bad glob `{g}`: {e}"),
                    )
                })?
                .compile_matcher(),
        ),
        None => None,
    };
    let mut searcher = SearcherBuilder::new()
        .line_number(true)
        // A file with a longer line (minified code) is skipped rather than held in memory.
        .heap_limit(Some(MAX_SEARCH_LINE_BYTES))
        .binary_detection(BinaryDetection::quit(0))
        .build();
    let mut hits = Vec::new();
    let mut total = 0usize;
    let mut files = 0usize;
    let mut scan_limited = false;
    for entry in walker(&base).build().flatten() {
        if !entry.file_type().is_some_and(|t| t.is_file()) {
            continue;
        }
        let rel = ws.relative(entry.path());
        if glob.as_ref().is_some_and(|g| !g.is_match(&rel)) {
            continue;
        }
        files += 1;
        let rel_path = Path::new(&rel).to_path_buf();
        let result = searcher.search_path(
            &matcher,
            entry.path(),
            Lossy(|line_number, line| {
                total += 1;
                if hits.len() >= SCAN_LIMIT {
                    scan_limited = true;
                    return Ok(false);
                }
                let (start, end) = match matcher.find(line.as_bytes()) {
                    Ok(Some(m)) => (m.start(), m.end()),
                    _ => (0, 0),
                };
                hits.push(SearchHit {
                    path: rel.clone(),
                    line: line_number,
                    snippet: snippet(line),
                    score: score(line, start, end, query, &rel_path),
                });
                Ok(true)
            }),
        );
        if let Err(e) = result {
            tracing::debug!(path = %rel, error = %e, "file skipped by search");
        }
        if scan_limited {
            break;
        }
    }
    hits.sort_by(|a, b| {
        b.score
            .cmp(&a.score)
            .then_with(|| a.path.cmp(&b.path))
            .then(a.line.cmp(&b.line))
    });
    let truncated = scan_limited || hits.len() > options.max_results;
    hits.truncate(options.max_results);
    Ok(SearchResults {
        results: hits,
        total_matches: total,
        files_searched: files,
        truncated,
    })
}

/// `codebase_search`: find code by text or regex.
pub struct CodebaseSearchTool {
    spec: ToolSpec,
}

impl CodebaseSearchTool {
    /// The tool.
    pub fn new() -> Self {
        Self {
            spec: spec::<SearchArgs>(
                "codebase_search",
                "Search the workspace's files for a text or regex: path, line and snippet, best first.",
                ToolCategory::Codebase,
                &[Permission::Read],
                DEFAULT_TIMEOUT,
            )
            .with_example(
                "find where a config is parsed, under `src`",
                json!({"query": "fn parse_config", "path": "src"}),
            ),
        }
    }
}

impl Default for CodebaseSearchTool {
    fn default() -> Self {
        Self::new()
    }
}

#[async_trait]
impl Tool for CodebaseSearchTool {
    fn spec(&self) -> &ToolSpec {
        &self.spec
    }

    async fn call(&self, args: Value, ctx: &ToolContext) -> Result<ToolOutput, ToolError> {
        let args: SearchArgs = parse_arguments("codebase_search", args)?;
        let ws = ctx.workspace()?.clone();
        blocking(move || {
            let options = SearchOptions {
                mode: args.mode,
                case: args.case,
                path: args.path,
                glob: args.glob,
                max_results: args
                    .max_results
                    .map_or(DEFAULT_MAX_RESULTS, |m| m.clamp(1, 500) as usize),
            };
            let results = search_workspace(&ws, &args.query, &options)?;
            let mut value = serde_json::to_value(&results).unwrap_or(Value::Null);
            if let Value::Object(map) = &mut value {
                map.insert("query".into(), json!(args.query));
            }
            Ok(ToolOutput::json(value))
        })
        .await
    }
}
