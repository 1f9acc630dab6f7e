//! A summary read between changes reuses the request's frame (system prompt, tool definitions)
//! and the files it reads (instructions, workflows) kept from the previous read (issue 19).
//! Each test changes one thing those depend on and checks that the very next summary, and the
//! next request, show it.

use crate::common;

use braid_protocol::api::{UpdateBranchRequest, UpdateContextRequest};
use braid_protocol::{BranchName, ContextConfig, ContextState, Mode};
use braid_testkit::Script;
use common::*;
use serde_json::json;

/// The system prompt and the tool names of the `n`th request the mock received.
fn request(h: &Harness, n: usize) -> (String, Vec<String>) {
    let body = h.mock.requests()[n].json().unwrap();
    let system = body["messages"][0]["content"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    let tools = body["tools"]
        .as_array()
        .map(|tools| {
            tools
                .iter()
                .filter_map(|t| t["function"]["name"].as_str().map(str::to_owned))
                .collect()
        })
        .unwrap_or_default();
    (system, tools)
}

async fn used(ctx: &braid_context::ContextHandle) -> u32 {
    ctx.summary().await.unwrap().token_budget.used
}

#[tokio::test]
async fn a_changed_instructions_file_shows_in_the_next_summary_and_request() {
    let h = Harness::new(Script::new().then(reply(&["One."])).then(reply(&["Two."]))).await;
    let ctx = h.context(ContextConfig::default()).await;
    assert_eq!(ctx.summary().await.unwrap().instructions, None);
    let before = used(&ctx).await;

    std::fs::write(h.workspace.join("AGENTS.md"), "Always run `make test`.\n").unwrap();
    let info = ctx.summary().await.unwrap().instructions.unwrap();
    assert_eq!((info.path.as_str(), info.file_bytes), ("AGENTS.md", 24));
    assert!(used(&ctx).await > before, "the prompt grew by the file");
    ctx.send_message(text("hi")).await.unwrap();
    assert_eq!(settle(&ctx).await, ContextState::Idle);
    assert!(request(&h, 0).0.contains("Always run `make test`."));

    // Rewritten at once with the same length: only the content tells the two apart.
    std::fs::write(h.workspace.join("AGENTS.md"), "Always run `make lint`.\n").unwrap();
    ctx.send_message(text("again")).await.unwrap();
    assert_eq!(settle(&ctx).await, ContextState::Idle);
    let (system, _) = request(&h, 1);
    assert!(system.contains("Always run `make lint`."), "{system}");
    assert!(!system.contains("make test"), "{system}");

    // A longer file shows in the summary's sizes; a removed one leaves it.
    std::fs::write(h.workspace.join("AGENTS.md"), "Check twice. ".repeat(40)).unwrap();
    let info = ctx.summary().await.unwrap().instructions.unwrap();
    assert_eq!(info.file_bytes, 13 * 40);
    let with_long = used(&ctx).await;
    std::fs::remove_file(h.workspace.join("AGENTS.md")).unwrap();
    assert_eq!(ctx.summary().await.unwrap().instructions, None);
    let without = used(&ctx).await;
    assert!(without < with_long, "{without} < {with_long}");
}

#[tokio::test]
async fn a_new_changed_or_removed_workflow_shows_in_the_next_summary_and_request() {
    let h = Harness::new(Script::new().then(reply(&["One."])).then(reply(&["Two."]))).await;
    let ctx = h.context(ContextConfig::default()).await;
    let before = used(&ctx).await;

    // The folder does not exist yet: its creation (and `.braid`'s) must be noticed.
    let folder = h.workspace.join(".braid/workflows");
    std::fs::create_dir_all(&folder).unwrap();
    let greet = "name: greet\ndescription: Greets someone\nparameters:\n  type: object\n  required: [name]\n  properties: { name: { type: string } }\nsteps:\n  - name: hello\n    prompt: 'Say hello to {{ params.name }}'\n";
    std::fs::write(folder.join("greet.yaml"), greet).unwrap();
    let with_greet = used(&ctx).await;
    assert!(with_greet > before, "{with_greet} > {before}");
    ctx.send_message(text("hi")).await.unwrap();
    assert_eq!(settle(&ctx).await, ContextState::Idle);
    assert!(request(&h, 0).1.contains(&"workflow__greet".to_owned()));

    // The same file rewritten with a longer description, at once.
    std::fs::write(
        folder.join("greet.yaml"),
        greet.replace(
            "Greets someone",
            "Greets someone by name, warmly and at length",
        ),
    )
    .unwrap();
    let after_turn = used(&ctx).await;
    ctx.send_message(text("again")).await.unwrap();
    assert_eq!(settle(&ctx).await, ContextState::Idle);
    let body = &h.mock.requests()[1].body;
    assert!(body.contains("warmly and at length"), "{body}");

    std::fs::remove_file(folder.join("greet.yaml")).unwrap();
    let without = used(&ctx).await;
    assert!(without < after_turn, "{without} < {after_turn}");
}

#[tokio::test]
async fn a_tool_registered_or_removed_shows_in_the_next_summary_and_request() {
    let h = Harness::new(Script::new().then(reply(&["One."])).then(reply(&["Two."]))).await;
    let ctx = h.context(ContextConfig::default()).await;
    let with_echo = used(&ctx).await;

    // As when an MCP server stops: its tools leave the registry.
    let echo = h.tools.unregister("echo").unwrap();
    let without = used(&ctx).await;
    assert!(without < with_echo, "{without} < {with_echo}");
    ctx.send_message(text("hi")).await.unwrap();
    assert_eq!(settle(&ctx).await, ContextState::Idle);
    assert!(!request(&h, 0).1.contains(&"echo".to_owned()));

    // And come back.
    h.tools.register(echo).unwrap();
    let grown = used(&ctx).await;
    ctx.send_message(text("again")).await.unwrap();
    assert_eq!(settle(&ctx).await, ContextState::Idle);
    assert!(request(&h, 1).1.contains(&"echo".to_owned()));
    assert!(grown > without, "{grown} > {without}");
}

#[tokio::test]
async fn a_changed_branch_prompt_mode_model_or_window_shows_in_the_next_summary() {
    let h = Harness::new(Script::new().then(reply(&["One."]))).await;
    let ctx = h.context(ContextConfig::default()).await;
    let first = used(&ctx).await;

    let long = "Answer as a patient reviewer who explains every step. ".repeat(10);
    ctx.update_branch(
        BranchName::main(),
        UpdateBranchRequest {
            system_prompt: Some(Some(long.clone())),
            pipeline: None,
        },
    )
    .await
    .unwrap();
    let branch_prompt = used(&ctx).await;
    assert!(branch_prompt > first, "{branch_prompt} > {first}");
    ctx.send_message(text("hi")).await.unwrap();
    assert_eq!(settle(&ctx).await, ContextState::Idle);
    assert!(request(&h, 0).0.starts_with(&long));

    let before_mode = used(&ctx).await;
    // Plan mode offers fewer tools (its notice is a message the model is not sent).
    ctx.set_mode(Mode::Plan).await.unwrap();
    let plan = used(&ctx).await;
    assert!(plan < before_mode, "{plan} < {before_mode}");

    // Another model: its window (from the built-in table) is the summary's limit at once.
    let mock_model = ctx.summary().await.unwrap().token_budget.limit;
    ctx.update(UpdateContextRequest {
        title: None,
        config: Some(json!({ "model": "gpt-4o-mini" })),
    })
    .await
    .unwrap();
    let summary = ctx.summary().await.unwrap();
    assert_eq!(summary.capabilities.unwrap().context_window.value, 128_000);
    assert!(
        summary.token_budget.limit > mock_model,
        "{} > {mock_model}",
        summary.token_budget.limit
    );

    // A smaller window in the configuration is the summary's new limit at once.
    let wide = ctx.summary().await.unwrap().token_budget.limit;
    ctx.update(UpdateContextRequest {
        title: None,
        config: Some(json!({ "context_window": 20_000 })),
    })
    .await
    .unwrap();
    let narrow = ctx.summary().await.unwrap().token_budget.limit;
    assert!(narrow < 20_000 && narrow < wide, "{narrow} < {wide}");
}

#[tokio::test]
async fn a_request_is_built_anew_when_a_tool_or_the_mode_changed_since_the_last_read() {
    let h = Harness::new(
        Script::new()
            .then(reply(&["One."]))
            .then(reply(&["Two."]))
            .then(reply(&["Three."])),
    )
    .await;
    let ctx = h.context(ContextConfig::default()).await;
    // The read keeps the frame, which the first request uses as it is.
    used(&ctx).await;
    ctx.send_message(text("hi")).await.unwrap();
    assert_eq!(settle(&ctx).await, ContextState::Idle);
    let (_, first) = request(&h, 0);
    assert!(first.contains(&"echo".to_owned()), "{first:?}");
    assert!(first.contains(&"write_file".to_owned()), "{first:?}");

    // Changes that no read saw: the kept frame no longer describes the context.
    let echo = h.tools.unregister("echo").unwrap();
    ctx.send_message(text("again")).await.unwrap();
    assert_eq!(settle(&ctx).await, ContextState::Idle);
    let (_, second) = request(&h, 1);
    assert!(!second.contains(&"echo".to_owned()), "{second:?}");

    h.tools.register(echo).unwrap();
    ctx.set_mode(Mode::Plan).await.unwrap();
    ctx.send_message(text("plan it")).await.unwrap();
    assert_eq!(settle(&ctx).await, ContextState::Idle);
    let (system, third) = request(&h, 2);
    assert!(!third.contains(&"write_file".to_owned()), "{third:?}");
    assert_ne!(system, request(&h, 0).0, "plan mode's prompt differs");
}
