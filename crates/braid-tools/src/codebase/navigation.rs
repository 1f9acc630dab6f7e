//! `find_definition` and `find_references`: answers from the codebase index (seed 001 "Symbol
//! definition lookup", "Symbol references lookup").

use std::sync::Arc;

use async_trait::async_trait;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};

use super::index::{CodebaseIndexes, MAX_FILE_BYTES};
use crate::arguments::parse_arguments;
use crate::builtin::{DEFAULT_TIMEOUT, blocking, spec};
use crate::excerpt::read_to_limit;
use crate::tool::{
    Permission, Tool, ToolCategory, ToolContext, ToolError, ToolErrorCode, ToolOutput, ToolSpec,
};

/// How many similar names a miss suggests.
const SUGGESTIONS: usize = 8;

/// The last segment of a qualified name (`Foo::bar`, `pkg.Func` -> `bar`, `Func`).
fn bare_name(symbol: &str) -> &str {
    let symbol = symbol.trim();
    let after_colons = symbol.rsplit("::").next().unwrap_or(symbol);
    after_colons.rsplit('.').next().unwrap_or(after_colons)
}

fn check_symbol(tool: &str, symbol: &str) -> Result<(), ToolError> {
    let name = bare_name(symbol);
    if name.is_empty() || name.chars().any(char::is_whitespace) {
        return Err(ToolError::new(
            ToolErrorCode::InvalidArguments,
            format!("`{tool}` needs a single identifier as symbol, got `{symbol}`"),
        ));
    }
    Ok(())
}

fn not_found(symbol: &str, suggestions: Vec<String>) -> ToolError {
    let hint = if suggestions.is_empty() {
        "no similar names are defined either; try codebase_search".to_owned()
    } else {
        format!("did you mean: {}?", suggestions.join(", "))
    };
    ToolError::new(
        ToolErrorCode::NotFound,
        format!("no definition of `{symbol}` in the workspace; {hint}"),
    )
    .with_details(json!({ "suggestions": suggestions }))
}

/// Arguments of `find_definition`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FindDefinitionArgs {
    /// A name (`Config::load` looks up `load`).
    pub symbol: String,
}

/// `find_definition`: where a name is defined, with its signature.
pub struct FindDefinitionTool {
    spec: ToolSpec,
    indexes: Arc<CodebaseIndexes>,
}

impl FindDefinitionTool {
    /// The tool, answering from `indexes`.
    pub fn new(indexes: Arc<CodebaseIndexes>) -> Self {
        Self {
            spec: spec::<FindDefinitionArgs>(
                "find_definition",
                "Find where a function, type, constant or module is defined: file, line, signature.",
                ToolCategory::Codebase,
                &[Permission::Read],
                DEFAULT_TIMEOUT,
            )
            .with_example(
                "find where a type is defined",
                json!({"symbol": "ContextRegistry"}),
            ),
            indexes,
        }
    }
}

#[async_trait]
impl Tool for FindDefinitionTool {
    fn spec(&self) -> &ToolSpec {
        &self.spec
    }

    async fn call(&self, args: Value, ctx: &ToolContext) -> Result<ToolOutput, ToolError> {
        let args: FindDefinitionArgs = parse_arguments("find_definition", args)?;
        check_symbol("find_definition", &args.symbol)?;
        let ws = ctx.workspace()?.clone();
        let indexes = self.indexes.clone();
        // Starting an index walks the workspace to set up the watcher: not on an async thread.
        blocking(move || {
            let index = indexes.index_for(&ws);
            let name = bare_name(&args.symbol);
            let found = index.definitions(name);
            if found.is_empty() {
                return Err(not_found(name, index.similar_names(name, SUGGESTIONS)));
            }
            Ok(ToolOutput::json(json!({
                "symbol": name,
                "count": found.len(),
                "definitions": found,
            })))
        })
        .await
    }
}

/// Arguments of `find_references`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FindReferencesArgs {
    /// An identifier.
    pub symbol: String,
    /// Lines around each use (default 2, at most 10).
    #[schemars(range(max = 10))]
    pub context_lines: Option<u32>,
    /// Default 100, at most 1000.
    #[schemars(range(min = 1, max = 1000))]
    pub max_results: Option<u32>,
}

/// `find_references`: every use of a name, grouped by file, with surrounding lines.
pub struct FindReferencesTool {
    spec: ToolSpec,
    indexes: Arc<CodebaseIndexes>,
}

impl FindReferencesTool {
    /// The tool, answering from `indexes`.
    pub fn new(indexes: Arc<CodebaseIndexes>) -> Self {
        Self {
            spec: spec::<FindReferencesArgs>(
                "find_references",
                "Find every use of an identifier in the code, by file, with surrounding lines.",
                ToolCategory::Codebase,
                &[Permission::Read],
                DEFAULT_TIMEOUT,
            )
            .with_example(
                "find up to 20 uses of a type",
                json!({"symbol": "ContextRegistry", "max_results": 20}),
            ),
            indexes,
        }
    }
}

#[async_trait]
impl Tool for FindReferencesTool {
    fn spec(&self) -> &ToolSpec {
        &self.spec
    }

    async fn call(&self, args: Value, ctx: &ToolContext) -> Result<ToolOutput, ToolError> {
        let args: FindReferencesArgs = parse_arguments("find_references", args)?;
        check_symbol("find_references", &args.symbol)?;
        let ws = ctx.workspace()?.clone();
        let indexes = self.indexes.clone();
        blocking(move || {
            let index = indexes.index_for(&ws);
            let name = bare_name(&args.symbol);
            let uses = index.uses(name);
            if uses.is_empty() {
                return Err(not_found(name, index.similar_names(name, SUGGESTIONS)));
            }
            let context = args.context_lines.unwrap_or(2).min(10) as usize;
            let budget = args.max_results.unwrap_or(100).clamp(1, 1000) as usize;
            let total: usize = uses.iter().map(|u| u.positions.len()).sum();
            let mut shown = 0usize;
            let mut files = Vec::new();
            for file in &uses {
                let text = ws
                    .resolve(&file.path)
                    .ok()
                    .and_then(|p| read_to_limit(&p, MAX_FILE_BYTES).ok())
                    .map(|b| String::from_utf8_lossy(&b).into_owned())
                    .unwrap_or_default();
                let lines: Vec<&str> = text.lines().collect();
                let mut references = Vec::new();
                for (line, column) in &file.positions {
                    if shown >= budget {
                        break;
                    }
                    shown += 1;
                    let at = *line as usize;
                    let first = at.saturating_sub(context).max(1);
                    let last = (at + context).min(lines.len());
                    let snippet: String = (first..=last)
                        .filter_map(|n| lines.get(n - 1).map(|l| format!("{n:>6}\t{l}\n")))
                        .collect();
                    references.push(json!({
                        "line": line,
                        "column": column,
                        "is_definition": file.definition_lines.contains(line),
                        "context": snippet,
                    }));
                }
                files.push(json!({
                    "path": file.path,
                    "count": file.positions.len(),
                    "references": references,
                }));
            }
            Ok(ToolOutput::json(json!({
                "symbol": name,
                "total_count": total,
                "file_count": uses.len(),
                "shown": shown,
                "truncated": shown < total,
                "files": files,
            })))
        })
        .await
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;

    #[test]
    fn qualified_names_look_up_their_last_part() {
        assert_eq!(bare_name("Config::load"), "load");
        assert_eq!(bare_name("pkg.Func"), "Func");
        assert_eq!(bare_name(" plain "), "plain");
    }
}
