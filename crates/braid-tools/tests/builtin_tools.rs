//! Every built-in tool, run through the registry against a fixture workspace in a temp dir.

use std::path::{Path, PathBuf};

use braid_protocol::{
    AgentRole, DependencyRelation, DependencyScope, MessageId, MessageKind, Mode, PlanMessage,
    PlanProgress, PlanStepProgress, PlanStepStatus, ProjectStructureContent, Validate,
};
use braid_tools::{
    ExecutingPlan, ToolContext, ToolError, ToolErrorCode, ToolOutput, ToolRegistry, Workspace,
    builtin_registry,
};
use serde_json::{Value, json};

const LIB_RS: &str = r#"//! Config handling. parse_config is documented here but this comment is not a use.

/// The configuration.
pub struct Config {
    pub name: String,
}

pub fn parse_config(text: &str) -> Config {
    Config { name: text.to_owned() }
}

pub fn reload() -> Config {
    parse_config("again")
}
"#;

const MAIN_RS: &str = r#"fn main() {
    let config = mylib::parse_config("x");
    println!("{}", config.name);
}
"#;

const UTIL_PY: &str = r#"class Greeter:
    def greet(self, name):
        return helper(name)


def helper(name):
    return "hi " + name
"#;

const INDEX_TS: &str = r#"export interface Shape { area(): number }

export function greet(who: string): string {
    return `hello ${who}`;
}

const total = greet("a") + greet("b");
"#;

const MAIN_GO: &str = r#"package main

func Compute(x int) int {
    return x * 2
}

func main() {
    _ = Compute(3)
}
"#;

struct Fixture {
    dir: tempfile::TempDir,
    registry: ToolRegistry,
    ctx: ToolContext,
}

impl Fixture {
    fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let write = |rel: &str, text: &str| {
            let p = root.join(rel);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, text).unwrap();
        };
        write("src/lib.rs", LIB_RS);
        write("src/main.rs", MAIN_RS);
        write("app/util.py", UTIL_PY);
        write("web/index.ts", INDEX_TS);
        write("go/main.go", MAIN_GO);
        write(
            "README.md",
            "# Fixture\nCall parse_config to read the config.\n",
        );
        write("dup.txt", "x = 1\ny = 2\nx = 1\n");
        write(".gitignore", "secret/\n*.log\n");
        write(
            "secret/hidden.rs",
            "pub fn parse_config_secret() { parse_config(\"s\"); }\n",
        );
        write("debug.log", "parse_config failed\n");
        write("node_modules/pkg/index.js", "function parse_config() {}\n");
        let ws = Workspace::new(root).unwrap();
        Self {
            dir,
            registry: builtin_registry().unwrap(),
            ctx: ToolContext::new(Some(ws), AgentRole::Actor),
        }
    }

    fn root(&self) -> &Path {
        self.dir.path()
    }

    async fn call(&self, tool: &str, args: Value) -> Result<ToolOutput, ToolError> {
        // The planning tool is for plan mode; everything else runs as an actor in act mode.
        let mode = if tool == "propose_plan" {
            Mode::Plan
        } else {
            Mode::Act
        };
        self.registry.execute(tool, args, &self.ctx, mode).await
    }

    async fn ok(&self, tool: &str, args: Value) -> Value {
        match self.call(tool, args.clone()).await {
            Ok(out) => out.content,
            Err(e) => panic!("{tool}({args}) failed: {e}"),
        }
    }

    async fn err(&self, tool: &str, args: Value) -> ToolError {
        match self.call(tool, args.clone()).await {
            Ok(out) => panic!("{tool}({args}) should fail, returned {}", out.content),
            Err(e) => e,
        }
    }
}

fn text_of(value: &Value) -> String {
    value.to_string()
}

fn assert_no_ignored(value: &Value) {
    let text = text_of(value);
    for ignored in ["secret/", "hidden.rs", "debug.log", "node_modules"] {
        assert!(!text.contains(ignored), "`{ignored}` leaked into {text}");
    }
}

// ---- registry ----

#[test]
fn registry_holds_every_builtin_and_filters_for_planner_and_plan_mode() {
    let registry = builtin_registry().unwrap();
    let all = registry.names();
    assert_eq!(all.len(), 16, "{all:?}");
    let planner: Vec<String> = registry
        .infos(AgentRole::Planner, Mode::Act)
        .into_iter()
        .map(|i| i.name)
        .collect();
    for writer in [
        "write_file",
        "create_file",
        "replace_in_file",
        "delete_file",
        "run_command",
    ] {
        assert!(
            !planner.contains(&writer.to_string()),
            "planner sees {writer}"
        );
    }
    for reader in [
        "read_file",
        "list_directory",
        "glob",
        "codebase_search",
        "find_definition",
        "find_references",
        "get_project_overview",
        "project_structure",
        "propose_plan",
        "ask_user",
        "update_plan",
    ] {
        assert!(
            planner.contains(&reader.to_string()),
            "planner misses {reader}"
        );
    }
    let plan_mode: Vec<String> = registry
        .infos(AgentRole::Actor, Mode::Plan)
        .into_iter()
        .map(|i| i.name)
        .collect();
    // Plan mode executes nothing, so it has no progress to report; a planner in act mode may.
    assert!(!plan_mode.contains(&"update_plan".to_string()));
    assert_eq!(
        plan_mode,
        planner
            .iter()
            .filter(|n| *n != "update_plan")
            .cloned()
            .collect::<Vec<_>>()
    );
    // An actor in act mode carries the work out: it is not offered the planning tool.
    let acting: Vec<String> = registry
        .infos(AgentRole::Actor, Mode::Act)
        .into_iter()
        .map(|i| i.name)
        .collect();
    assert_eq!(acting.len(), 15, "{acting:?}");
    assert!(!acting.contains(&"propose_plan".to_string()));
    assert!(acting.contains(&"update_plan".to_string()));
    let run = registry.get("run_command").unwrap();
    assert!(!run.spec().is_read_only());
    assert!(
        run.spec()
            .permissions
            .contains(braid_tools::Permission::Execute)
    );
    for info in registry.all_infos() {
        assert_eq!(info.parameters["type"], "object", "{}", info.name);
        assert_eq!(info.source, braid_protocol::api::ToolSource::Builtin);
    }
}

#[tokio::test]
async fn a_context_without_workspace_cannot_touch_files() {
    let registry = builtin_registry().unwrap();
    let ctx = ToolContext::new(None, AgentRole::Actor);
    let err = registry
        .execute("read_file", json!({"path": "a"}), &ctx, Mode::Act)
        .await
        .unwrap_err();
    assert_eq!(err.code, ToolErrorCode::PermissionDenied);
}

#[tokio::test]
async fn bad_arguments_are_a_recoverable_error_the_model_can_read() {
    let f = Fixture::new();
    let err = f
        .err("read_file", json!({"path": 7, "start_line": "one"}))
        .await;
    assert_eq!(err.code, ToolErrorCode::InvalidArguments);
    assert!(err.to_error_detail().recoverable);
    assert!(err.message.contains("arguments.path"), "{}", err.message);
    assert!(
        err.message.contains("arguments.start_line"),
        "{}",
        err.message
    );
}

// ---- file tools ----

#[tokio::test]
async fn read_file_numbers_lines_and_reads_a_range() {
    let f = Fixture::new();
    let out = f
        .ok(
            "read_file",
            json!({"path": "src/main.rs", "start_line": 2, "end_line": 3}),
        )
        .await;
    assert_eq!(
        out["content"],
        "     2\t    let config = mylib::parse_config(\"x\");\n     3\t    println!(\"{}\", config.name);\n"
    );
    assert_eq!(out["total_lines"], 4);
    assert_eq!(out["size_bytes"], MAIN_RS.len());
    assert!(out.get("truncated").is_none());
}

#[tokio::test]
async fn read_file_rejects_bad_ranges_and_directories() {
    let f = Fixture::new();
    let err = f
        .err(
            "read_file",
            json!({"path": "src/main.rs", "start_line": 3, "end_line": 2}),
        )
        .await;
    assert_eq!(err.code, ToolErrorCode::InvalidArguments);
    let err = f
        .err(
            "read_file",
            json!({"path": "src/main.rs", "start_line": 40}),
        )
        .await;
    assert_eq!(err.code, ToolErrorCode::InvalidArguments);
    assert!(
        err.message.contains("past the end of the file (4 lines)"),
        "{}",
        err.message
    );
    let err = f.err("read_file", json!({"path": "src"})).await;
    assert_eq!(err.code, ToolErrorCode::InvalidArguments);
    let err = f.err("read_file", json!({"path": "src/nope.rs"})).await;
    assert_eq!(err.code, ToolErrorCode::NotFound);
}

#[tokio::test]
async fn read_file_truncates_a_large_file_with_a_note() {
    let f = Fixture::new();
    let big: String = (1..=40_000).map(|i| format!("line number {i}\n")).collect();
    std::fs::write(f.root().join("big.txt"), &big).unwrap();
    let out = f.ok("read_file", json!({"path": "big.txt"})).await;
    assert_eq!(out["total_lines"], 40_000);
    let end = out["end_line"].as_u64().unwrap();
    assert!(end > 1000 && end < 40_000, "end_line {end}");
    let note = out["truncated"].as_str().unwrap();
    assert!(note.contains(&format!("start_line={}", end + 1)), "{note}");
    assert!(out["content"].as_str().unwrap().len() <= braid_tools::excerpt::DEFAULT_READ_CAP);
}

#[tokio::test]
async fn read_file_cuts_a_minified_line_and_says_so() {
    let f = Fixture::new();
    // One 5 MiB line, as a minified bundle has.
    let line = "x".repeat(5 * 1024 * 1024);
    std::fs::write(f.root().join("bundle.min.js"), format!("{line}\n")).unwrap();
    let out = f.ok("read_file", json!({"path": "bundle.min.js"})).await;
    assert_eq!(out["total_lines"], 1);
    assert_eq!(out["lines_cut"], 1);
    let content = out["content"].as_str().unwrap();
    assert!(content.len() < braid_tools::excerpt::MAX_LINE_BYTES + 100);
    assert!(
        content.contains(&format!("line cut: {} bytes", line.len())),
        "{}",
        &content[content.len() - 60..]
    );
    assert!(out["truncated"].as_str().unwrap().contains("were cut"));
}

#[tokio::test]
async fn traversal_is_refused_with_a_permission_error_naming_the_path() {
    let f = Fixture::new();
    for tool in ["read_file", "delete_file"] {
        let err = f.err(tool, json!({"path": "src/../../outside.txt"})).await;
        assert_eq!(err.code, ToolErrorCode::PermissionDenied, "{tool}");
        assert!(
            err.message.contains("src/../../outside.txt"),
            "{}",
            err.message
        );
    }
    let err = f
        .err("write_file", json!({"path": "../evil.txt", "content": "x"}))
        .await;
    assert_eq!(err.code, ToolErrorCode::PermissionDenied);
    assert!(!f.root().parent().unwrap().join("evil.txt").exists());
}

#[tokio::test]
async fn absolute_paths_outside_the_workspace_are_refused() {
    let f = Fixture::new();
    let outside = tempfile::tempdir().unwrap();
    let target = outside.path().join("x.txt");
    std::fs::write(&target, "secret").unwrap();
    let err = f
        .err("read_file", json!({"path": target.to_str().unwrap()}))
        .await;
    assert_eq!(err.code, ToolErrorCode::PermissionDenied);
    let err = f
        .err(
            "create_file",
            json!({"path": outside.path().join("new.txt").to_str().unwrap(), "content": "x"}),
        )
        .await;
    assert_eq!(err.code, ToolErrorCode::PermissionDenied);
    assert!(!outside.path().join("new.txt").exists());
    // An absolute path inside the workspace is fine.
    let inside = f.root().join("src/main.rs");
    f.ok("read_file", json!({"path": inside.to_str().unwrap()}))
        .await;
}

#[cfg(unix)]
#[tokio::test]
async fn symlinks_that_leave_the_workspace_are_refused() {
    let f = Fixture::new();
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(outside.path().join("secret.txt"), "top secret").unwrap();
    std::os::unix::fs::symlink(outside.path(), f.root().join("escape")).unwrap();
    std::os::unix::fs::symlink(
        outside.path().join("secret.txt"),
        f.root().join("secret_link.txt"),
    )
    .unwrap();
    for (tool, args) in [
        ("read_file", json!({"path": "escape/secret.txt"})),
        ("read_file", json!({"path": "secret_link.txt"})),
        (
            "write_file",
            json!({"path": "secret_link.txt", "content": "overwritten"}),
        ),
        (
            "write_file",
            json!({"path": "escape/new.txt", "content": "x"}),
        ),
        ("list_directory", json!({"path": "escape"})),
        (
            "replace_in_file",
            json!({"path": "secret_link.txt", "old_text": "top", "new_text": "no"}),
        ),
        ("delete_file", json!({"path": "escape/secret.txt"})),
    ] {
        let err = f.err(tool, args.clone()).await;
        assert_eq!(
            err.code,
            ToolErrorCode::PermissionDenied,
            "{tool} {args}: {err}"
        );
    }
    assert_eq!(
        std::fs::read_to_string(outside.path().join("secret.txt")).unwrap(),
        "top secret"
    );
    assert!(!outside.path().join("new.txt").exists());
}

#[cfg(unix)]
#[tokio::test]
async fn deleting_a_symlink_removes_the_link_not_its_target() {
    let f = Fixture::new();
    std::os::unix::fs::symlink(f.root().join("src/main.rs"), f.root().join("main_link.rs"))
        .unwrap();
    f.ok("delete_file", json!({"path": "main_link.rs"})).await;
    assert!(std::fs::symlink_metadata(f.root().join("main_link.rs")).is_err());
    assert_eq!(
        std::fs::read_to_string(f.root().join("src/main.rs")).unwrap(),
        MAIN_RS
    );
}

#[tokio::test]
async fn create_write_replace_and_delete_files() {
    let f = Fixture::new();
    let out = f
        .ok(
            "create_file",
            json!({"path": "new/dir/a.txt", "content": "alpha\n"}),
        )
        .await;
    assert_eq!(out["created"], true);
    let err = f
        .err(
            "create_file",
            json!({"path": "new/dir/a.txt", "content": "again"}),
        )
        .await;
    assert_eq!(err.code, ToolErrorCode::AlreadyExists);
    f.ok(
        "write_file",
        json!({"path": "new/dir/a.txt", "content": "beta\ngamma\n"}),
    )
    .await;
    assert_eq!(
        std::fs::read_to_string(f.root().join("new/dir/a.txt")).unwrap(),
        "beta\ngamma\n"
    );
    let out = f
        .ok(
            "replace_in_file",
            json!({"path": "new/dir/a.txt", "old_text": "gamma", "new_text": "delta"}),
        )
        .await;
    assert_eq!(out["replaced_at_line"], 2);
    assert_eq!(
        std::fs::read_to_string(f.root().join("new/dir/a.txt")).unwrap(),
        "beta\ndelta\n"
    );
    let err = f
        .err(
            "replace_in_file",
            json!({"path": "new/dir/a.txt", "old_text": "omega", "new_text": "x"}),
        )
        .await;
    assert_eq!(err.code, ToolErrorCode::NotFound);
    f.ok("delete_file", json!({"path": "new/dir/a.txt"})).await;
    assert!(!f.root().join("new/dir/a.txt").exists());
    let err = f.err("delete_file", json!({"path": "new/dir"})).await;
    assert_eq!(err.code, ToolErrorCode::InvalidArguments);
    let err = f.err("delete_file", json!({"path": "new/dir/a.txt"})).await;
    assert_eq!(err.code, ToolErrorCode::NotFound);
}

#[tokio::test]
async fn replace_reports_a_non_unique_match_and_changes_nothing() {
    let f = Fixture::new();
    let err = f
        .err(
            "replace_in_file",
            json!({"path": "dup.txt", "old_text": "x = 1", "new_text": "x = 2"}),
        )
        .await;
    assert_eq!(err.code, ToolErrorCode::NotUnique);
    assert!(
        err.message.contains("2 times") && err.message.contains("lines 1, 3"),
        "{}",
        err.message
    );
    assert_eq!(
        std::fs::read_to_string(f.root().join("dup.txt")).unwrap(),
        "x = 1\ny = 2\nx = 1\n"
    );
}

#[tokio::test]
async fn list_directory_and_glob_leave_ignored_files_out() {
    let f = Fixture::new();
    let out = f.ok("list_directory", json!({})).await;
    let paths: Vec<&str> = out["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["path"].as_str().unwrap())
        .collect();
    for expected in ["src/", "app/", "web/", "go/", "README.md", ".gitignore"] {
        assert!(
            paths.contains(&expected),
            "{expected} missing from {paths:?}"
        );
    }
    assert_no_ignored(&out);
    let out = f
        .ok("list_directory", json!({"path": "src", "depth": 2}))
        .await;
    assert_eq!(out["entries"].as_array().unwrap().len(), 2);
    let out = f.ok("glob", json!({"pattern": "**/*.rs"})).await;
    assert_eq!(out["matches"], json!(["src/lib.rs", "src/main.rs"]));
}

// ---- codebase ----

#[tokio::test]
async fn codebase_search_ranks_the_definition_first_and_honours_limits() {
    let f = Fixture::new();
    let out = f
        .ok("codebase_search", json!({"query": "parse_config"}))
        .await;
    let results = out["results"].as_array().unwrap();
    assert_eq!(results[0]["path"], "src/lib.rs");
    assert_eq!(results[0]["line"], 8);
    assert!(
        results[0]["snippet"]
            .as_str()
            .unwrap()
            .starts_with("pub fn parse_config")
    );
    assert_eq!(out["total_matches"], 5, "{out}");
    assert_no_ignored(&out);
    let out = f
        .ok(
            "codebase_search",
            json!({"query": "parse_config", "max_results": 2}),
        )
        .await;
    assert_eq!(out["results"].as_array().unwrap().len(), 2);
    assert_eq!(out["truncated"], true);
    let out = f
        .ok(
            "codebase_search",
            json!({"query": r"fn \w+\(", "mode": "regex", "glob": "**/*.rs"}),
        )
        .await;
    assert_eq!(out["total_matches"], 3);
    let err = f
        .err("codebase_search", json!({"query": "(", "mode": "regex"}))
        .await;
    assert_eq!(err.code, ToolErrorCode::InvalidArguments);
    let err = f
        .err("codebase_search", json!({"query": "x", "mode": "fuzzy"}))
        .await;
    assert_eq!(err.code, ToolErrorCode::InvalidArguments);
}

#[tokio::test]
async fn find_definition_in_every_language_with_signature() {
    let f = Fixture::new();
    for (symbol, path, line, signature) in [
        (
            "parse_config",
            "src/lib.rs",
            8,
            "pub fn parse_config(text: &str) -> Config",
        ),
        ("Config", "src/lib.rs", 4, "pub struct Config"),
        ("helper", "app/util.py", 6, "def helper(name):"),
        ("Greeter", "app/util.py", 1, "class Greeter:"),
        (
            "greet",
            "web/index.ts",
            3,
            "function greet(who: string): string",
        ),
        (
            "Shape",
            "web/index.ts",
            1,
            "interface Shape { area(): number }",
        ),
        ("Compute", "go/main.go", 3, "func Compute(x int) int"),
    ] {
        let out = f.ok("find_definition", json!({"symbol": symbol})).await;
        let defs = out["definitions"].as_array().unwrap();
        let def = defs
            .iter()
            .find(|d| d["path"] == path)
            .unwrap_or_else(|| panic!("{symbol}: {out}"));
        assert_eq!(def["line"], line, "{symbol}");
        assert_eq!(def["signature"], signature, "{symbol}");
    }
    let out = f
        .ok("find_definition", json!({"symbol": "Greeter.greet"}))
        .await;
    assert_eq!(out["definitions"][0]["kind"], "method");
}

#[tokio::test]
async fn a_missing_symbol_gets_suggestions() {
    let f = Fixture::new();
    let err = f
        .err("find_definition", json!({"symbol": "parse_confg"}))
        .await;
    assert_eq!(err.code, ToolErrorCode::NotFound);
    assert!(
        err.message.contains("did you mean: parse_config"),
        "{}",
        err.message
    );
    assert_eq!(err.details.unwrap()["suggestions"][0], "parse_config");
}

#[tokio::test]
async fn find_references_groups_by_file_with_context_and_total() {
    let f = Fixture::new();
    let out = f
        .ok(
            "find_references",
            json!({"symbol": "parse_config", "context_lines": 1}),
        )
        .await;
    assert_eq!(out["total_count"], 3, "{out}");
    let files = out["files"].as_array().unwrap();
    let paths: Vec<&str> = files.iter().map(|f| f["path"].as_str().unwrap()).collect();
    assert_eq!(paths, ["src/lib.rs", "src/main.rs"]);
    let lib = &files[0]["references"];
    assert_eq!(lib[0]["line"], 8);
    assert_eq!(lib[0]["is_definition"], true);
    assert_eq!(lib[1]["line"], 13);
    assert_eq!(lib[1]["is_definition"], false);
    assert_eq!(
        lib[1]["context"],
        "    12\tpub fn reload() -> Config {\n    13\t    parse_config(\"again\")\n    14\t}\n"
    );
    assert_no_ignored(&out);
}

#[tokio::test]
async fn an_edit_made_during_a_session_shows_up_in_the_next_search_and_lookup() {
    let f = Fixture::new();
    // Build the index first, so the edit below must be picked up as an update.
    f.ok("find_definition", json!({"symbol": "parse_config"}))
        .await;
    let edited = LIB_RS
        .replace("parse_config", "load_config")
        .replace("pub fn reload", "\n\npub fn reload");
    std::fs::write(f.root().join("src/lib.rs"), edited).unwrap();
    let out = f
        .ok("codebase_search", json!({"query": "load_config"}))
        .await;
    assert_eq!(out["results"][0]["path"], "src/lib.rs");
    let out = f
        .ok("find_definition", json!({"symbol": "load_config"}))
        .await;
    assert_eq!(out["definitions"][0]["line"], 8);
    let out = f
        .ok("find_references", json!({"symbol": "load_config"}))
        .await;
    assert_eq!(out["files"][0]["references"][1]["line"], 15);
    let err = f
        .err("find_references", json!({"symbol": "reload_missing"}))
        .await;
    assert_eq!(err.code, ToolErrorCode::NotFound);
    // Only main.rs still uses the old name.
    let out = f
        .ok("find_references", json!({"symbol": "parse_config"}))
        .await;
    assert_eq!(out["total_count"], 1);
    // A new file is visible at once too.
    std::fs::write(f.root().join("src/extra.rs"), "pub fn brand_new() {}\n").unwrap();
    let out = f
        .ok("find_definition", json!({"symbol": "brand_new"}))
        .await;
    assert_eq!(out["definitions"][0]["path"], "src/extra.rs");
    // And a deleted one disappears.
    std::fs::remove_file(f.root().join("src/extra.rs")).unwrap();
    let err = f
        .err("find_definition", json!({"symbol": "brand_new"}))
        .await;
    assert_eq!(err.code, ToolErrorCode::NotFound);
}

#[tokio::test]
async fn a_gitignored_file_never_appears() {
    let f = Fixture::new();
    let err = f
        .err("find_definition", json!({"symbol": "parse_config_secret"}))
        .await;
    assert_eq!(err.code, ToolErrorCode::NotFound);
    for (tool, args) in [
        ("codebase_search", json!({"query": "parse_config"})),
        ("codebase_search", json!({"query": "parse_config_secret"})),
        ("find_references", json!({"symbol": "parse_config"})),
        ("glob", json!({"pattern": "**/*"})),
        ("list_directory", json!({"depth": 5})),
        ("project_structure", json!({"structure_type": "tree"})),
        ("project_structure", json!({"structure_type": "file_list"})),
        ("get_project_overview", json!({})),
    ] {
        let out = f.ok(tool, args).await;
        let mut out = out;
        // The tree lists the ignore patterns themselves; only the files must not appear.
        if let Value::Object(map) = &mut out {
            map.remove("excluded_patterns");
        }
        assert_no_ignored(&out);
    }
}

#[tokio::test]
async fn project_overview_summarizes_languages_entry_points_and_size() {
    let f = Fixture::new();
    let out = f.ok("get_project_overview", json!({})).await;
    for lang in ["rust", "python", "typescript", "go"] {
        assert!(
            out["languages"][lang]["lines"].as_u64().unwrap() > 0,
            "{lang}: {out}"
        );
    }
    assert_eq!(out["languages"]["rust"]["files"], 2);
    let entries = out["entry_points"].as_array().unwrap();
    assert!(
        entries.contains(&json!("src/main.rs")) && entries.contains(&json!("src/lib.rs")),
        "{out}"
    );
    assert_eq!(out["directories"]["src/"], 2);
    assert!(out["total_bytes"].as_u64().unwrap() > 0);
}

// ---- project structure ----

#[tokio::test]
async fn project_structure_tree_is_a_message_with_nested_directories() {
    let f = Fixture::new();
    let out = f
        .call("project_structure", json!({"structure_type": "tree"}))
        .await
        .unwrap();
    let Some(MessageKind::ProjectStructure(msg)) = out.message else {
        panic!("no project_structure message")
    };
    msg.validate().unwrap();
    assert!(msg.excluded_patterns.contains(&"secret/".to_string()));
    assert!(
        msg.excluded_patterns
            .contains(&"**/node_modules/".to_string())
    );
    let ProjectStructureContent::Tree(root) = msg.content else {
        panic!("not a tree")
    };
    let names: Vec<&str> = root.directories.iter().map(|d| d.name.as_str()).collect();
    assert_eq!(names, ["app", "go", "src", "web"]);
    let src = root.directories.iter().find(|d| d.name == "src").unwrap();
    assert_eq!(
        src.files
            .iter()
            .map(|f| f.path.as_str())
            .collect::<Vec<_>>(),
        ["src/lib.rs", "src/main.rs"]
    );
    assert_eq!(src.files[0].language.as_deref(), Some("rust"));
    assert!(root.files.iter().any(|f| f.path == "README.md"));
    assert!((chrono::Utc::now() - msg.generated_at).num_seconds() < 60);
}

#[tokio::test]
async fn project_structure_file_list_is_sorted_with_mime_and_language() {
    let f = Fixture::new();
    let out = f
        .call("project_structure", json!({"structure_type": "file_list"}))
        .await
        .unwrap();
    let Some(MessageKind::ProjectStructure(msg)) = out.message else {
        panic!("no message")
    };
    let ProjectStructureContent::FileList(files) = msg.content else {
        panic!("not a list")
    };
    let paths: Vec<&str> = files.iter().map(|f| f.path.as_str()).collect();
    let mut sorted = paths.clone();
    sorted.sort();
    assert_eq!(paths, sorted);
    let py = files.iter().find(|f| f.path == "app/util.py").unwrap();
    assert_eq!(
        (py.mime_type.as_str(), py.language.as_deref(), py.size),
        ("text/x-python", Some("python"), UTIL_PY.len() as u64)
    );
}

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name)
}

async fn dependencies_of(root: &Path) -> braid_protocol::DependencyGraph {
    let registry = builtin_registry().unwrap();
    let ctx = ToolContext::new(Some(Workspace::new(root).unwrap()), AgentRole::Planner);
    let out = registry
        .execute(
            "project_structure",
            json!({"structure_type": "dependencies"}),
            &ctx,
            Mode::Plan,
        )
        .await
        .unwrap();
    let Some(MessageKind::ProjectStructure(msg)) = out.message else {
        panic!("no message")
    };
    msg.validate().unwrap();
    let ProjectStructureContent::Dependencies(graph) = msg.content else {
        panic!("not dependencies")
    };
    graph
}

fn relation(graph: &braid_protocol::DependencyGraph, id: &str) -> DependencyRelation {
    graph
        .packages
        .iter()
        .find(|p| p.id == id)
        .unwrap_or_else(|| panic!("no package {id}"))
        .relation
}

fn reachable(graph: &braid_protocol::DependencyGraph, from: &str, to: &str) -> bool {
    let mut stack = vec![from.to_owned()];
    let mut seen = std::collections::HashSet::new();
    while let Some(id) = stack.pop() {
        if id == to {
            return true;
        }
        if seen.insert(id.clone()) {
            stack.extend(
                graph
                    .edges
                    .iter()
                    .filter(|e| e.from == id)
                    .map(|e| e.to.clone()),
            );
        }
    }
    false
}

#[tokio::test]
async fn transitive_dependencies_of_a_real_cargo_lock() {
    let graph = dependencies_of(&fixture("cargo-workspace")).await;
    assert!(graph.sources.contains(&"Cargo.lock".to_string()));
    assert_eq!(
        relation(&graph, "cargo:braid-tools@0.1.0"),
        DependencyRelation::Root
    );
    let tree_sitter = graph
        .packages
        .iter()
        .find(|p| p.name == "tree-sitter")
        .unwrap();
    assert_eq!(tree_sitter.relation, DependencyRelation::Direct);
    // grep-regex -> regex-automata: never named by any manifest, only reached through others.
    let automata = graph
        .packages
        .iter()
        .find(|p| p.name == "regex-automata")
        .unwrap();
    assert_eq!(automata.relation, DependencyRelation::Transitive);
    assert!(reachable(&graph, "cargo:braid-tools@0.1.0", &automata.id));
    let tempfile_edge = graph
        .edges
        .iter()
        .find(|e| e.from == "cargo:braid-tools@0.1.0" && e.to.starts_with("cargo:tempfile@"))
        .unwrap();
    assert_eq!(tempfile_edge.scope, DependencyScope::Dev);
    assert!(graph.packages.len() > 100);
}

#[tokio::test]
async fn transitive_dependencies_of_a_real_package_lock() {
    let graph = dependencies_of(&fixture("npm-project")).await;
    assert_eq!(graph.sources, ["package-lock.json", "package.json"]);
    assert_eq!(
        relation(&graph, "npm:fixture-web@1.0.0"),
        DependencyRelation::Root
    );
    assert_eq!(
        relation(&graph, "npm:chalk@4.1.2"),
        DependencyRelation::Direct
    );
    assert_eq!(
        relation(&graph, "npm:debug@4.3.4"),
        DependencyRelation::Direct
    );
    for transitive in [
        "npm:ansi-styles@4.3.0",
        "npm:color-convert@2.0.1",
        "npm:color-name@1.1.4",
        "npm:supports-color@7.2.0",
        "npm:has-flag@4.0.0",
        "npm:ms@2.1.2",
    ] {
        assert_eq!(
            relation(&graph, transitive),
            DependencyRelation::Transitive,
            "{transitive}"
        );
    }
    assert!(reachable(
        &graph,
        "npm:fixture-web@1.0.0",
        "npm:color-name@1.1.4"
    ));
    let debug = graph
        .edges
        .iter()
        .find(|e| e.to == "npm:debug@4.3.4")
        .unwrap();
    assert_eq!(debug.scope, DependencyScope::Dev);
}

#[tokio::test]
async fn python_dependencies_come_from_pyproject_and_requirements() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("pyproject.toml"),
        "[project]\nname = \"tool\"\nversion = \"0.2.0\"\ndependencies = [\"Requests>=2\", \"click==8.1.7\"]\n\n[project.optional-dependencies]\nfast = [\"uvloop\"]\n",
    )
    .unwrap();
    std::fs::write(
        dir.path().join("requirements-dev.txt"),
        "# tools\npytest==8.0.0\n-r requirements.txt\n",
    )
    .unwrap();
    let graph = dependencies_of(dir.path()).await;
    assert_eq!(
        relation(&graph, "python:tool@0.2.0"),
        DependencyRelation::Root
    );
    assert_eq!(
        relation(&graph, "python:requests"),
        DependencyRelation::Direct
    );
    assert_eq!(
        relation(&graph, "python:click@8.1.7"),
        DependencyRelation::Direct
    );
    let uvloop = graph
        .edges
        .iter()
        .find(|e| e.to == "python:uvloop")
        .unwrap();
    assert_eq!(uvloop.scope, DependencyScope::Optional);
    let pytest = graph
        .edges
        .iter()
        .find(|e| e.to == "python:pytest@8.0.0")
        .unwrap();
    assert_eq!(pytest.scope, DependencyScope::Dev);
}

// ---- run_command ----

#[cfg(unix)]
#[tokio::test]
async fn run_command_passes_arguments_without_a_shell() {
    let f = Fixture::new();
    let out = f
        .ok(
            "run_command",
            json!({"program": "echo", "args": ["$HOME; rm -rf /", "*"]}),
        )
        .await;
    assert_eq!(out["stdout"], "$HOME; rm -rf / *\n");
    assert_eq!(out["exit_code"], 0);
    assert_eq!(out["success"], true);
    let out = f
        .ok("run_command", json!({"program": "ls", "cwd": "src"}))
        .await;
    assert_eq!(out["stdout"], "lib.rs\nmain.rs\n");
    let out = f
        .ok(
            "run_command",
            json!({"program": "sh", "args": ["-c", "echo oops >&2; exit 3"]}),
        )
        .await;
    assert_eq!(out["exit_code"], 3);
    assert_eq!(out["success"], false);
    assert_eq!(out["stderr"], "oops\n");
}

#[cfg(unix)]
#[tokio::test]
async fn run_command_times_out_refuses_bad_cwd_and_reports_missing_programs() {
    let f = Fixture::new();
    let err = f
        .err(
            "run_command",
            json!({"program": "sleep", "args": ["30"], "timeout_secs": 1}),
        )
        .await;
    assert_eq!(err.code, ToolErrorCode::Timeout);
    let err = f
        .err("run_command", json!({"program": "ls", "cwd": "../"}))
        .await;
    assert_eq!(err.code, ToolErrorCode::PermissionDenied);
    let err = f
        .err("run_command", json!({"program": "braid-no-such-program"}))
        .await;
    assert_eq!(err.code, ToolErrorCode::NotFound);
}

#[cfg(unix)]
#[tokio::test]
async fn run_command_caps_output_keeping_start_and_end() {
    let registry = ToolRegistry::new();
    registry
        .register(std::sync::Arc::new(
            braid_tools::command::RunCommandTool::with_output_cap(200),
        ))
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let ctx = ToolContext::new(Some(Workspace::new(dir.path()).unwrap()), AgentRole::Actor);
    let out = registry
        .execute(
            "run_command",
            json!({"program": "seq", "args": ["1", "10000"]}),
            &ctx,
            Mode::Act,
        )
        .await
        .unwrap()
        .content;
    assert_eq!(out["stdout_truncated"], true);
    assert_eq!(out["stdout_bytes"], 48894);
    let stdout = out["stdout"].as_str().unwrap();
    assert!(stdout.starts_with("1\n2\n3\n"), "{stdout}");
    assert!(stdout.ends_with("9999\n10000\n"), "{stdout}");
    assert!(stdout.contains("bytes omitted"));
}

// ---- plan and question ----

fn executing(steps: &[(u32, PlanStepStatus)]) -> ExecutingPlan {
    let plan: PlanMessage =
        serde_json::from_value(json!({"goal": "Add a changelog", "steps": steps
        .iter()
        .map(|(n, _)| json!({"step_number": n, "action": "a", "reason": "r"}))
        .collect::<Vec<_>>()}))
        .unwrap();
    ExecutingPlan {
        id: MessageId::new(),
        plan,
        steps: steps
            .iter()
            .map(|&(step_number, status)| PlanStepProgress {
                step_number,
                status,
            })
            .collect(),
    }
}

#[tokio::test]
async fn update_plan_reports_a_step_and_answers_the_whole_plan_s_progress() {
    let mut f = Fixture::new();
    let plan = executing(&[
        (1, PlanStepStatus::Completed),
        (2, PlanStepStatus::Pending),
        (3, PlanStepStatus::Pending),
    ]);
    f.ctx = f.ctx.clone().with_executing_plan(Some(plan.clone()));
    let out = f
        .call(
            "update_plan",
            json!({"step_number": 2, "status": "in_progress"}),
        )
        .await
        .unwrap();
    assert!(
        out.message.is_none(),
        "no message of its own: the plan card ticks"
    );
    let progress: PlanProgress = serde_json::from_value(out.content).unwrap();
    assert_eq!(progress.plan_id, plan.id);
    assert_eq!(
        (progress.step_number, progress.status),
        (2, PlanStepStatus::InProgress)
    );
    let statuses: Vec<PlanStepStatus> = progress.steps.iter().map(|s| s.status).collect();
    assert_eq!(
        statuses,
        [
            PlanStepStatus::Completed,
            PlanStepStatus::InProgress,
            PlanStepStatus::Pending
        ]
    );
}

#[tokio::test]
async fn update_plan_names_the_plan_s_steps_when_the_step_is_unknown() {
    let mut f = Fixture::new();
    f.ctx = f.ctx.clone().with_executing_plan(Some(executing(&[
        (1, PlanStepStatus::Pending),
        (2, PlanStepStatus::Pending),
    ])));
    let err = f
        .err(
            "update_plan",
            json!({"step_number": 7, "status": "completed"}),
        )
        .await;
    assert_eq!(err.code, ToolErrorCode::InvalidArguments);
    assert!(
        err.message.contains("has no step 7") && err.message.contains("its steps are 1, 2"),
        "{}",
        err.message
    );
    // A status the enum does not know is refused by the schema, naming the field.
    let err = f
        .err("update_plan", json!({"step_number": 1, "status": "done"}))
        .await;
    assert_eq!(err.code, ToolErrorCode::InvalidArguments);
    assert!(err.message.contains("status"), "{}", err.message);
}

#[tokio::test]
async fn update_plan_without_an_executed_plan_says_none_was_executed() {
    let f = Fixture::new();
    let err = f
        .err(
            "update_plan",
            json!({"step_number": 1, "status": "completed"}),
        )
        .await;
    assert_eq!(err.code, ToolErrorCode::NotFound);
    assert!(
        err.message.contains("no plan is being executed"),
        "{}",
        err.message
    );
}

#[tokio::test]
async fn update_plan_is_refused_in_plan_mode() {
    let f = Fixture::new();
    let err = f
        .registry
        .execute(
            "update_plan",
            json!({"step_number": 1, "status": "completed"}),
            &f.ctx,
            Mode::Plan,
        )
        .await
        .unwrap_err();
    assert_eq!(err.code, ToolErrorCode::PermissionDenied);
    assert!(err.message.contains("act mode"), "{}", err.message);
}

#[tokio::test]
async fn propose_plan_accepts_a_single_string_where_the_reader_does() {
    // Issue 24: the schema says what the reader accepts, so a plan step's single tool (or risk)
    // passes argument validation and is kept as a list.
    let f = Fixture::new();
    let out = f
        .call(
            "propose_plan",
            json!({"goal": "Rename", "steps": [
                {"step_number": 1, "action": "Find uses", "reason": "Impact",
                 "tools_needed": "find_references", "risks": "missed use"}
            ]}),
        )
        .await
        .unwrap();
    let Some(MessageKind::Plan(plan)) = out.message else {
        panic!("no plan message")
    };
    assert_eq!(plan.steps[0].tools_needed, ["find_references"]);
    assert_eq!(plan.steps[0].risks, ["missed use"]);
    let err = f
        .err(
            "propose_plan",
            json!({"goal": "g", "steps": [
                {"step_number": 1, "action": "a", "reason": "r", "tools_needed": 3}
            ]}),
        )
        .await;
    assert_eq!(err.code, ToolErrorCode::InvalidArguments);
    assert!(err.message.contains("tools_needed"), "{}", err.message);
}

#[tokio::test]
async fn propose_plan_is_refused_to_an_actor_in_act_mode() {
    let f = Fixture::new();
    let err = f
        .registry
        .execute(
            "propose_plan",
            json!({"goal": "g", "steps": [{"step_number": 1, "action": "a", "reason": "r"}]}),
            &f.ctx,
            Mode::Act,
        )
        .await
        .unwrap_err();
    assert_eq!(err.code, ToolErrorCode::PermissionDenied);
    assert!(err.message.contains("plan mode"), "{}", err.message);
}

#[tokio::test]
async fn propose_plan_produces_a_validated_plan_message() {
    let f = Fixture::new();
    let tool = f.registry.get("propose_plan").unwrap();
    let schema = &tool.spec().parameters;
    assert_eq!(schema["required"], json!(["goal", "steps"]));
    let out = f
        .call(
            "propose_plan",
            json!({"goal": "Rename parse_config", "steps": [
                {"step_number": 1, "action": "Find uses", "reason": "Know the impact", "tools_needed": ["find_references"]},
                {"step_number": 2, "action": "Edit", "reason": "Rename", "risks": ["missed use"]}
            ]}),
        )
        .await
        .unwrap();
    let Some(MessageKind::Plan(plan)) = out.message else {
        panic!("no plan message")
    };
    assert_eq!(plan.steps[0].tools_needed, ["find_references"]);
    assert_eq!(out.content["goal"], "Rename parse_config");
    let err = f
        .err("propose_plan", json!({"goal": "x", "steps": []}))
        .await;
    assert_eq!(err.code, ToolErrorCode::InvalidArguments);
    assert!(err.message.contains("steps"), "{}", err.message);
    let err = f
        .err(
            "propose_plan",
            json!({"steps": [{"step_number": 1, "action": "a", "reason": "r"}]}),
        )
        .await;
    assert_eq!(err.code, ToolErrorCode::InvalidArguments);
    assert!(
        err.message.contains("arguments.goal: is required"),
        "{}",
        err.message
    );
}

#[tokio::test]
async fn ask_user_produces_a_validated_question_message() {
    let f = Fixture::new();
    let out = f
        .call(
            "ask_user",
            json!({"question": "Which database?", "options": [{"label": "SQLite", "value": "sqlite"}, {"label": "Postgres", "value": "pg"}], "severity": "major", "default": "sqlite"}),
        )
        .await
        .unwrap();
    let Some(MessageKind::Question(q)) = out.message else {
        panic!("no question message")
    };
    assert_eq!(q.options.len(), 2);
    assert!(q.answer.is_none());
    let err = f
        .err(
            "ask_user",
            json!({"question": "Q?", "options": [{"label": "A", "value": "a"}], "default": "b"}),
        )
        .await;
    assert_eq!(err.code, ToolErrorCode::InvalidArguments);
    assert!(
        err.message.contains("`b` is not the value of any option"),
        "{}",
        err.message
    );
    let err = f
        .err(
            "ask_user",
            json!({"question": "Q?", "options": [], "severity": "urgent"}),
        )
        .await;
    assert_eq!(err.code, ToolErrorCode::InvalidArguments);
}
