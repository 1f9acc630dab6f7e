//! `EnhanceSystemPrompt`: builds the system prompt and picks the tools for this request from the
//! mode and the agent role.

use async_trait::async_trait;
use braid_llm::ToolDefinition;
use braid_protocol::{AgentRole, ContextState, Mode, ToolCalling};

use super::{Draft, PipelineContext, PipelineError, ProcessResult, Processor, ProcessorName};
use crate::prompt::{PromptInputs, build_system_prompt};
use braid_tools::arguments::offered_schema;

/// Builds the system prompt and the tool definitions.
pub struct EnhanceSystemPrompt;

#[async_trait]
impl Processor for EnhanceSystemPrompt {
    fn name(&self) -> ProcessorName {
        ProcessorName::EnhanceSystemPrompt
    }

    fn state(&self, _: &Draft) -> Option<ContextState> {
        Some(ContextState::EnhancingSystemPrompt)
    }

    async fn process(
        &self,
        draft: &mut Draft,
        ctx: &PipelineContext,
    ) -> Result<ProcessResult, PipelineError> {
        // How the model calls tools decides what the prompt holds: ask its server first.
        super::optimize::discovered_capabilities(ctx).await;
        let (prompt, tools) = match ctx.kept_frame.describing(ctx) {
            Some(frame) => (frame.prompt.clone(), frame.tools.clone()),
            None => {
                let (prompt, tools) = request_frame(ctx, ToolOffer::Offered);
                (prompt, tools.into())
            }
        };
        draft.system_prompt = Some(prompt);
        draft.tools = tools;
        Ok(ProcessResult::Continue)
    }
}

/// Whether a request offers the model its tools.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ToolOffer {
    /// The tools the role and mode allow.
    Offered,
    /// None: the window is too small for their definitions (`OptimizeContext` decides).
    Withheld,
}

/// The system prompt and tools a request of this context carries: the one place both are built,
/// for `EnhanceSystemPrompt`, for `OptimizeContext` when it withholds the tools, and for reads
/// that do not run the pipeline (the optimized view, the token budget). Schemas are offered in
/// their compact form (`offered_schema`); calls are still checked against the full one. For a
/// model whose tool calls are prompted, the tools are listed in the prompt and no definitions
/// are returned.
pub(crate) fn request_frame(
    ctx: &PipelineContext,
    offer: ToolOffer,
) -> (String, Vec<ToolDefinition>) {
    let (prompt, mut definitions, tool_calling) = frame(ctx, offer);
    if tool_calling == ToolCalling::Prompted {
        definitions.clear();
    }
    (prompt, definitions)
}

/// How many tools a request of this context offers, as definitions or (prompted) in the
/// system prompt's list.
pub(crate) fn offered_tool_count(ctx: &PipelineContext) -> usize {
    frame(ctx, ToolOffer::Offered).1.len()
}

/// The prompt, every offered definition (also when they are listed in the prompt) and the mode.
fn frame(ctx: &PipelineContext, offer: ToolOffer) -> (String, Vec<ToolDefinition>, ToolCalling) {
    let config = &ctx.config;
    let tools = match offer {
        // MCP servers and tools the context switched off are not offered at all.
        ToolOffer::Offered => ctx
            .tools
            .infos(config.agent_role, config.mode)
            .into_iter()
            .filter(|t| {
                config
                    .mcp_switch_off(&t.name, t.server.as_deref())
                    .is_none()
            })
            .collect(),
        ToolOffer::Withheld => Vec::new(),
    };
    let workspace = ctx
        .workspace
        .as_ref()
        .map(|w| w.root().display().to_string());
    let mut definitions = tools
        .iter()
        .map(|t| ToolDefinition {
            name: t.name.clone(),
            description: t.description.clone(),
            parameters: offered_schema(&t.parameters),
        })
        .collect::<Vec<_>>();
    // A workflow may write and run commands: offered only where the model may do so itself.
    if offer == ToolOffer::Offered
        && config.mode == Mode::Act
        && config.agent_role == AgentRole::Actor
    {
        definitions.extend(ctx.workflow_tools.iter().map(|t| ToolDefinition {
            parameters: offered_schema(&t.parameters),
            ..t.clone()
        }));
    }
    let tool_calling = tool_calling(ctx);
    let prompt = build_system_prompt(&PromptInputs {
        base: config.system_prompt.as_deref(),
        branch_override: ctx.branch_prompt.as_deref(),
        mode: config.mode,
        role: config.agent_role,
        workspace: workspace.as_deref(),
        tools: &tools,
        tools_withheld: offer == ToolOffer::Withheld,
        instructions: ctx
            .instructions
            .as_ref()
            .map(|i| (i.path.as_str(), i.text.as_str(), i.truncated)),
        tool_calling,
        definitions: &definitions,
    });
    (prompt, definitions, tool_calling)
}

/// How the context's model calls tools, as its client knows it (after discovery, once the
/// pipeline asked).
pub(crate) fn tool_calling(ctx: &PipelineContext) -> ToolCalling {
    super::optimize::capabilities(ctx).tool_calling
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use braid_optimizer::{Encoding, TokenCounter};
    use braid_protocol::ContextConfig;

    /// The most the system prompt and the built-in tools' definitions may take in act mode
    /// (o200k): a model with a 4k window must still fit them beside a turn and its answer.
    /// 1,600 since `update_plan` joined the set (1,554 measured with it).
    const FIXED_PROMPT_BUDGET: u32 = 1_600;

    fn context(mode: Mode, role: AgentRole, dir: &std::path::Path) -> PipelineContext {
        PipelineContext {
            config: ContextConfig {
                mode,
                agent_role: role,
                ..ContextConfig::default()
            },
            model: "gpt-4o".into(),
            branch: braid_protocol::BranchName::main(),
            branch_prompt: None,
            history: vec![],
            tools: Arc::new(braid_tools::builtin_registry().unwrap()),
            workspace: Some(braid_tools::Workspace::new(dir).unwrap()),
            workspace_problem: None,
            instructions: None,
            llm: None,
            image_hosts: Default::default(),
            kept_frame: Default::default(),
            kept_ledger: Default::default(),
            workflow_tools: vec![],
            ocr: braid_vision::OcrSettings::default(),
        }
    }

    fn fixed_tokens(ctx: &PipelineContext, offer: ToolOffer) -> (u32, Vec<String>) {
        let counter = TokenCounter::for_model("gpt-4o");
        assert_eq!(counter.encoding(), Encoding::O200kBase);
        let (prompt, tools) = request_frame(ctx, offer);
        (
            counter.system_prompt(Some(&prompt)) + counter.tools(&tools),
            tools.into_iter().map(|t| t.name).collect(),
        )
    }

    #[test]
    fn the_fixed_prompt_with_every_builtin_tool_in_act_mode_stays_under_1600_tokens() {
        let dir = tempfile::tempdir().unwrap();
        let (tokens, tools) = fixed_tokens(
            &context(Mode::Act, AgentRole::Actor, dir.path()),
            ToolOffer::Offered,
        );
        assert_eq!(tools.len(), 15, "{tools:?}");
        assert!(
            tokens <= FIXED_PROMPT_BUDGET,
            "the system prompt and tool definitions take {tokens} tokens (o200k), more than {FIXED_PROMPT_BUDGET}"
        );
    }

    #[test]
    fn the_prompted_tool_list_with_every_builtin_tool_in_act_mode_stays_under_1600_tokens() {
        let dir = tempfile::tempdir().unwrap();
        let mut ctx = context(Mode::Act, AgentRole::Actor, dir.path());
        // The table says this model has no tool calling of its own.
        ctx.model = "gemma-3-270m".into();
        assert_eq!(tool_calling(&ctx), ToolCalling::Prompted);
        let (prompt, tools) = request_frame(&ctx, ToolOffer::Offered);
        assert!(tools.is_empty(), "no definitions travel: {tools:?}");
        assert_eq!(offered_tool_count(&ctx), 15);
        for tool in [
            "read_file",
            "run_command",
            "ask_user",
            "write_file",
            "update_plan",
        ] {
            assert!(prompt.contains(&format!("\n- {tool}(")), "{tool}: {prompt}");
        }
        // Every built-in tool's example fits the examples' budget.
        let examples = prompt.matches("\n  e.g. ").count();
        assert_eq!(examples, 15, "{prompt}");
        assert!(
            prompt.contains(
                "  e.g. run the tests quietly: {\"args\":[\"test\",\"--quiet\"],\"program\":\"cargo\"}\n"
            ),
            "{prompt}"
        );
        let (tokens, _) = fixed_tokens(&ctx, ToolOffer::Offered);
        assert!(
            tokens <= FIXED_PROMPT_BUDGET,
            "the prompted system prompt takes {tokens} tokens (o200k), more than {FIXED_PROMPT_BUDGET}"
        );
        eprintln!("prompted fixed prompt: {tokens} tokens (o200k)");
        // Withheld, the list goes too.
        let (withheld, _) = request_frame(&ctx, ToolOffer::Withheld);
        assert!(!withheld.contains("## Tools"), "{withheld}");
    }

    #[test]
    fn plan_mode_and_the_planner_are_offered_only_what_they_may_use() {
        let dir = tempfile::tempdir().unwrap();
        let (act, act_tools) = fixed_tokens(
            &context(Mode::Act, AgentRole::Actor, dir.path()),
            ToolOffer::Offered,
        );
        for (mode, role) in [
            (Mode::Plan, AgentRole::Actor),
            (Mode::Act, AgentRole::Planner),
        ] {
            let (tokens, tools) =
                fixed_tokens(&context(mode, role, dir.path()), ToolOffer::Offered);
            assert!(tokens < act, "{mode:?} {role:?}: {tokens} >= {act}");
            assert!(tools.contains(&"propose_plan".to_owned()), "{tools:?}");
            for writer in [
                "write_file",
                "create_file",
                "replace_in_file",
                "delete_file",
                "run_command",
            ] {
                assert!(
                    !tools.contains(&writer.to_owned()),
                    "{mode:?} {role:?}: {tools:?}"
                );
            }
        }
        // An actor in act mode carries the work out: no plan tool, but the one that reports
        // a plan's progress, which plan mode (where nothing is executed) is not offered.
        assert!(
            !act_tools.contains(&"propose_plan".to_owned()),
            "{act_tools:?}"
        );
        assert!(
            act_tools.contains(&"update_plan".to_owned()),
            "{act_tools:?}"
        );
        let (_, planning) = fixed_tokens(
            &context(Mode::Plan, AgentRole::Actor, dir.path()),
            ToolOffer::Offered,
        );
        assert!(
            !planning.contains(&"update_plan".to_owned()),
            "{planning:?}"
        );
        assert!(
            act_tools.contains(&"run_command".to_owned()),
            "{act_tools:?}"
        );
    }

    #[test]
    fn withheld_tools_leave_a_prompt_that_says_so() {
        let dir = tempfile::tempdir().unwrap();
        let ctx = context(Mode::Act, AgentRole::Actor, dir.path());
        let (prompt, tools) = request_frame(&ctx, ToolOffer::Withheld);
        assert!(tools.is_empty());
        assert!(prompt.contains("no tools"), "{prompt}");
        assert!(!prompt.contains("`run_command`"), "{prompt}");
        let (withheld, _) = fixed_tokens(&ctx, ToolOffer::Withheld);
        assert!(withheld < 200, "{withheld}");
    }

    #[test]
    fn a_frame_s_tool_count_stands_only_for_its_own_tools_and_encoding() {
        let dir = tempfile::tempdir().unwrap();
        let ctx = context(Mode::Act, AgentRole::Actor, dir.path());
        let frame = crate::plan_cache::Frame::build(&ctx);
        let o200k = TokenCounter::for_model("gpt-4o");
        let counted = o200k.tools(&frame.tools);
        assert!(counted > 0);
        assert_eq!(frame.tool_tokens(&frame.tools, &o200k), Some(counted));
        // Equal definitions in another allocation are counted anew, as are other encodings.
        let copy: Arc<[ToolDefinition]> = frame.tools.to_vec().into();
        assert_eq!(frame.tool_tokens(&copy, &o200k), None);
        let cl100k = TokenCounter::for_model("gpt-4");
        assert_eq!(cl100k.encoding(), Encoding::Cl100kBase);
        assert_eq!(frame.tool_tokens(&frame.tools, &cl100k), None);
    }

    #[test]
    fn a_built_frame_is_kept_for_the_next_request_until_the_context_changes() {
        let dir = tempfile::tempdir().unwrap();
        let branch = braid_protocol::BranchName::main();
        let mut plans = crate::plan_cache::PlanCache::default();
        let act = context(Mode::Act, AgentRole::Actor, dir.path());
        let shared = crate::plan_cache::SharedFrames::default();
        let first = plans.frame(&branch, &act, &shared);
        assert!(Arc::ptr_eq(&first, &plans.frame(&branch, &act, &shared)));
        let plan = context(Mode::Plan, AgentRole::Actor, dir.path());
        let replanned = plans.frame(&branch, &plan, &shared);
        assert!(!Arc::ptr_eq(&first, &replanned));
        assert!(Arc::ptr_eq(
            &replanned,
            &plans.frame(&branch, &plan, &shared)
        ));
    }

    #[test]
    fn contexts_built_alike_share_one_frame_and_one_set_of_tools() {
        let dir = tempfile::tempdir().unwrap();
        let branch = braid_protocol::BranchName::main();
        let shared = crate::plan_cache::SharedFrames::default();
        let act = context(Mode::Act, AgentRole::Actor, dir.path());
        // Contexts of one engine share its tool registry.
        let also_act = PipelineContext {
            tools: act.tools.clone(),
            ..context(Mode::Act, AgentRole::Actor, dir.path())
        };
        let plan = PipelineContext {
            tools: act.tools.clone(),
            ..context(Mode::Plan, AgentRole::Actor, dir.path())
        };
        let (mut one, mut two) = (
            crate::plan_cache::PlanCache::default(),
            crate::plan_cache::PlanCache::default(),
        );
        let first = one.frame(&branch, &act, &shared);
        let second = two.frame(&branch, &also_act, &shared);
        assert!(Arc::ptr_eq(&first, &second));
        assert!(Arc::ptr_eq(&first.tools, &second.tools));
        let planning = two.frame(&branch, &plan, &shared);
        assert!(!Arc::ptr_eq(&first, &planning));
        assert_ne!(first.prompt, planning.prompt);
    }
}
