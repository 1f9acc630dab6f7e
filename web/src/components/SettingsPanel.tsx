// Per-context settings: model, mode (plan/act), agent role, workspace path, approval policy,
// sandbox mode, and the command rules with where each came from.

import { useEffect, useId, useState } from "react";
import type { AgentRole, ApprovalPolicy, CapabilitySource, ContextConfig, Mode, ModelCapabilitiesView, ModelList, OptimizationStrategy, RuleOrigin, SandboxMode, WorkspaceInstructionsInfo } from "../generated/protocol";
import { commandRuleText } from "../messages/toolcards/ToolCallCard";
import { ModelPicker } from "./ModelPicker";

/** What the panel can ask for. */
export interface SettingsPanelProps {
  /** The context's current config. */
  config: ContextConfig;
  /** Saves changed config fields (the mode goes through its own route). */
  onSave: (changes: Partial<ContextConfig>) => Promise<void>;
  /** Switches plan / act. */
  onMode: (mode: Mode) => Promise<void>;
  /** The directories the server allows workspaces in (`--workspace-root`), once known. */
  workspaceRoots?: string[];
  /** The workspace's instructions file the system prompt carries (`AGENTS.md`...), when there is one. */
  instructions?: WorkspaceInstructionsInfo | undefined;
  /** What the model can do as discovered or looked up (window, vision, tool calling), when known. */
  capabilities?: ModelCapabilitiesView | undefined;
  /** The model server's models for the picker (`GET /v1/models`), once known. */
  models?: ModelList | undefined;
}

const SOURCE_WORDS: Record<CapabilitySource, string> = {
  server: "reported by the model server",
  table: "from Braid's model table",
  override: "set for this conversation",
  default: "Braid's default",
};

/**
 * Reads the context window field: empty keeps what the model server says; otherwise whole
 * tokens from 1,024 to 10,000,000.
 */
export function contextWindowFrom(text: string): number | null | string {
  const t = text.trim().replace(/[ _,]/g, "");
  if (t === "") return null;
  const n = Number(t);
  return Number.isInteger(n) && n >= 1024 && n <= 10_000_000 ? n : "The context window must be whole tokens from 1024 to 10000000 (or empty for what the model server says)";
}

/** Where the workspace's instructions stand, in words. */
export function instructionsText(info: WorkspaceInstructionsInfo | undefined): string {
  if (!info) return "No AGENTS.md, CLAUDE.md or .braid/instructions.md at the workspace root.";
  const cut = info.truncated ? `, cut to ${info.included_bytes} of ${info.file_bytes} bytes` : `, ${info.file_bytes} bytes`;
  return `The system prompt ends with ${info.path} (${info.tokens} tokens${cut}).`;
}

/** Where a command rule came from, in words. */
export const RULE_ORIGIN_WORDS: Record<RuleOrigin, string> = {
  configuration: "set in the configuration",
  session_approval: "approved for this session",
};

const SANDBOX_WORDS: Record<SandboxMode, string> = {
  workspace_write: "Write only in the workspace, no network",
  read_only: "Read only, no network",
  off: "No sandbox (needs the server's --allow-unsandboxed)",
};

type PolicyType = ApprovalPolicy["type"];

const POLICY_WORDS: Record<PolicyType, string> = {
  manual: "Ask for every call",
  white_list: "Run listed tools without asking",
  limited_auto: "Run read-only tools without asking (writes and commands ask)",
  auto_all: "Run everything without asking",
};

/** Builds a policy from the form, or says what is wrong. */
export function policyFrom(type: PolicyType, tools: string, depth: string): ApprovalPolicy | string {
  switch (type) {
    case "manual":
      return { type };
    case "auto_all":
      return { type };
    case "white_list": {
      const list = tools.split(/[\s,]+/).filter(Boolean);
      return { type, tools: list };
    }
    case "limited_auto": {
      const n = Number(depth);
      if (!Number.isInteger(n) || n < 1) return "The number of rounds must be a whole number from 1";
      return { type, max_depth: n };
    }
  }
}

type StrategyType = OptimizationStrategy["type"];

const STRATEGY_WORDS: Record<StrategyType, string> = {
  intelligent: "Intelligent (keep what matters, summarize the rest)",
  recent_n: "Keep the newest messages",
  importance_scoring: "Importance scoring",
};

/** Builds the optimization strategy from the form, keeping weights the form does not edit. */
export function strategyFrom(type: StrategyType, n: string, current: OptimizationStrategy): OptimizationStrategy | string {
  switch (type) {
    case "intelligent":
      return { type };
    case "recent_n": {
      const count = Number(n);
      if (!Number.isInteger(count) || count < 1) return "The number of messages to keep must be a whole number from 1";
      return { type, n: count };
    }
    case "importance_scoring":
      return { type, weights: current.type === "importance_scoring" ? current.weights : {} };
  }
}

/** Reads the model-call limit field: whole seconds from 1 to 86400. */
export function llmTimeoutFrom(text: string): number | string {
  const n = Number(text.trim());
  return Number.isInteger(n) && n >= 1 && n <= 86_400 ? n : "The model call limit must be whole seconds from 1 to 86400";
}

/** Reads the tool timeout field: whole seconds from 1 to 3600. */
export function timeoutFrom(text: string): number | string {
  const n = Number(text);
  return Number.isInteger(n) && n >= 1 && n <= 3600 ? n : "The tool timeout must be whole seconds from 1 to 3600";
}

/** The settings form of one context. */
export function SettingsPanel({ config, onSave, onMode, workspaceRoots, instructions, capabilities, models }: SettingsPanelProps) {
  const [windowText, setWindowText] = useState(config.context_window !== undefined ? String(config.context_window) : "");
  const [model, setModel] = useState(config.model);
  const [role, setRole] = useState<AgentRole>(config.agent_role);
  const [workspace, setWorkspace] = useState(config.workspace ?? "");
  const [policyType, setPolicyType] = useState<PolicyType>(config.approval_policy.type);
  const [tools, setTools] = useState(config.approval_policy.type === "white_list" ? config.approval_policy.tools.join(", ") : "");
  const [depth, setDepth] = useState(config.approval_policy.type === "limited_auto" ? String(config.approval_policy.max_depth) : "3");
  const [systemPrompt, setSystemPrompt] = useState(config.system_prompt ?? "");
  const [timeout, setTimeoutText] = useState(String(config.tool_timeout_secs));
  const [llmTimeout, setLlmTimeout] = useState(String(config.llm_timeout_secs ?? 300));
  const [strategyType, setStrategyType] = useState<StrategyType>(config.optimization.strategy.type);
  const [keepN, setKeepN] = useState(config.optimization.strategy.type === "recent_n" ? String(config.optimization.strategy.n) : "20");
  const [sandbox, setSandbox] = useState<SandboxMode | "">(config.sandbox ?? "");
  const [problem, setProblem] = useState<string | null>(null);
  const [saved, setSaved] = useState(false);
  const ids = { model: useId(), role: useId(), ws: useId(), roots: useId(), policy: useId(), tools: useId(), depth: useId(), prompt: useId(), sandbox: useId(), timeout: useId(), llmTimeout: useId(), instructions: useId(), strategy: useId(), keep: useId(), window: useId() };

  useEffect(() => {
    setModel(config.model);
    setRole(config.agent_role);
    setWorkspace(config.workspace ?? "");
    setSystemPrompt(config.system_prompt ?? "");
    setTimeoutText(String(config.tool_timeout_secs));
    setLlmTimeout(String(config.llm_timeout_secs ?? 300));
    setWindowText(config.context_window !== undefined ? String(config.context_window) : "");
    setSandbox(config.sandbox ?? "");
  }, [config]);

  const save = async () => {
    const policy = policyFrom(policyType, tools, depth);
    if (typeof policy === "string") {
      setProblem(policy);
      return;
    }
    const secs = timeoutFrom(timeout);
    if (typeof secs === "string") {
      setProblem(secs);
      return;
    }
    const llmSecs = llmTimeoutFrom(llmTimeout);
    if (typeof llmSecs === "string") {
      setProblem(llmSecs);
      return;
    }
    const window = contextWindowFrom(windowText);
    if (typeof window === "string") {
      setProblem(window);
      return;
    }
    const strategy = strategyFrom(strategyType, keepN, config.optimization.strategy);
    if (typeof strategy === "string") {
      setProblem(strategy);
      return;
    }
    setProblem(null);
    try {
      await onSave({
        model: model.trim(),
        agent_role: role,
        approval_policy: policy,
        tool_timeout_secs: secs,
        llm_timeout_secs: llmSecs,
        optimization: { ...config.optimization, strategy },
        // null clears an earlier override (a JSON merge patch), back to what the server says.
        ...(window !== null ? { context_window: window } : config.context_window !== undefined ? ({ context_window: null } as unknown as Partial<ContextConfig>) : {}),
        ...(workspace.trim() ? { workspace: workspace.trim() } : {}),
        // null goes back to the server's default mode (a JSON merge patch).
        ...(sandbox !== "" ? { sandbox } : config.sandbox !== undefined ? ({ sandbox: null } as unknown as Partial<ContextConfig>) : {}),
        ...(systemPrompt.trim() ? { system_prompt: systemPrompt.trim() } : {}),
      });
      setSaved(true);
    } catch (err) {
      setProblem(err instanceof Error ? err.message : String(err));
    }
  };

  return (
    <section className="panel settings" aria-label="Settings">
      <h2>Settings</h2>
      <fieldset className="mode">
        <legend>Mode</legend>
        {(["plan", "act"] as Mode[]).map((m) => (
          <label key={m}>
            <input type="radio" name="mode" value={m} checked={config.mode === m} onChange={() => void onMode(m).catch((e: unknown) => setProblem(String(e instanceof Error ? e.message : e)))} />
            {m === "plan" ? "Plan (read-only)" : "Act"}
          </label>
        ))}
      </fieldset>
      {(config.approved_tools?.length ?? 0) > 0 && (
        <section className="session-approvals" aria-label="Approved for this session">
          <h3>Approved for this session</h3>
          <ul className="plain">
            {config.approved_tools?.map((t) => (
              <li key={t}>
                <code>{t}</code>{" "}
                <button
                  type="button"
                  className="btn btn-link"
                  aria-label={`Ask again before ${t}`}
                  onClick={() =>
                    void onSave({ approved_tools: (config.approved_tools ?? []).filter((x) => x !== t) }).catch((e: unknown) =>
                      setProblem(e instanceof Error ? e.message : String(e)),
                    )
                  }
                >
                  Ask again
                </button>
              </li>
            ))}
          </ul>
        </section>
      )}
      {(config.command_rules?.length ?? 0) > 0 && (
        <section className="command-rules" aria-label="Commands that run without asking">
          <h3>Commands that run without asking</h3>
          <ul className="plain">
            {config.command_rules?.map((r) => {
              const text = commandRuleText(r);
              return (
                <li key={text}>
                  <code>{text}</code> <span className="muted">{RULE_ORIGIN_WORDS[r.origin ?? "configuration"]}</span>{" "}
                  <button
                    type="button"
                    className="btn btn-link"
                    aria-label={`Remove the rule ${text}`}
                    onClick={() =>
                      void onSave({ command_rules: (config.command_rules ?? []).filter((x) => commandRuleText(x) !== text) }).catch((e: unknown) =>
                        setProblem(e instanceof Error ? e.message : String(e)),
                      )
                    }
                  >
                    Remove
                  </button>
                </li>
              );
            })}
          </ul>
        </section>
      )}
      <form
        onSubmit={(e) => {
          e.preventDefault();
          void save();
        }}
        onChange={() => setSaved(false)}
      >
        <label htmlFor={ids.model}>Model</label>
        <ModelPicker
          id={ids.model}
          value={model}
          list={models}
          onChange={(m) => {
            setModel(m);
            setSaved(false);
          }}
        />
        {capabilities && (
          <p className="hint model-facts" aria-label="What the model can do">
            {capabilities.model}: {capabilities.context_window.value.toLocaleString()}-token window ({SOURCE_WORDS[capabilities.context_window.source]}) ·{" "}
            {capabilities.vision.value ? "sees images" : "no vision"} · {capabilities.tool_calling.value === "native" ? "calls tools natively" : "tool calls written as text"}
          </p>
        )}
        <label htmlFor={ids.window}>Context window (tokens)</label>
        <input
          id={ids.window}
          inputMode="numeric"
          value={windowText}
          placeholder={capabilities ? `${capabilities.context_window.value} (${SOURCE_WORDS[capabilities.context_window.source]})` : "what the model server says"}
          onChange={(e) => setWindowText(e.target.value)}
        />
        <label htmlFor={ids.role}>Agent role</label>
        <select id={ids.role} value={role} onChange={(e) => setRole(e.target.value as AgentRole)}>
          <option value="planner">Planner (reads)</option>
          <option value="actor">Actor (reads, writes, runs)</option>
        </select>
        <label htmlFor={ids.ws}>Workspace path</label>
        <input
          id={ids.ws}
          value={workspace}
          placeholder={workspaceRoots?.[0] ?? "/home/me/project"}
          aria-describedby={workspaceRoots ? ids.roots : undefined}
          onChange={(e) => setWorkspace(e.target.value)}
        />
        {workspaceRoots && (
          <p id={ids.roots} className="hint roots">
            {workspaceRoots.length === 0
              ? "The server allows no workspace: start braid serve with --workspace-root DIR."
              : `Allowed in: ${workspaceRoots.join(", ")} (braid serve --workspace-root adds others).`}
          </p>
        )}
        {config.workspace && (
          <p id={ids.instructions} className="hint instructions">
            {instructionsText(instructions)}
          </p>
        )}
        <label htmlFor={ids.policy}>Approval policy</label>
        <select id={ids.policy} value={policyType} onChange={(e) => setPolicyType(e.target.value as PolicyType)}>
          {(Object.keys(POLICY_WORDS) as PolicyType[]).map((p) => <option key={p} value={p}>{POLICY_WORDS[p]}</option>)}
        </select>
        {policyType === "white_list" && (
          <>
            <label htmlFor={ids.tools}>Tools that need no approval</label>
            <input id={ids.tools} value={tools} placeholder="read_file, codebase_search" onChange={(e) => setTools(e.target.value)} />
          </>
        )}
        {policyType === "limited_auto" && (
          <>
            <label htmlFor={ids.depth}>Rounds in which reads run without asking</label>
            <input id={ids.depth} inputMode="numeric" value={depth} onChange={(e) => setDepth(e.target.value)} />
          </>
        )}
        <label htmlFor={ids.sandbox}>Sandbox for commands</label>
        <select id={ids.sandbox} value={sandbox} onChange={(e) => setSandbox(e.target.value as SandboxMode | "")}>
          <option value="">The server's default</option>
          {(Object.keys(SANDBOX_WORDS) as SandboxMode[]).map((m) => <option key={m} value={m}>{SANDBOX_WORDS[m]}</option>)}
        </select>
        <label htmlFor={ids.timeout}>Tool timeout (seconds)</label>
        <input id={ids.timeout} inputMode="numeric" value={timeout} onChange={(e) => setTimeoutText(e.target.value)} />
        <label htmlFor={ids.llmTimeout}>Model call limit (seconds)</label>
        <input id={ids.llmTimeout} inputMode="numeric" value={llmTimeout} onChange={(e) => setLlmTimeout(e.target.value)} />
        <label htmlFor={ids.strategy}>History optimization</label>
        <select id={ids.strategy} value={strategyType} onChange={(e) => setStrategyType(e.target.value as StrategyType)}>
          {(Object.keys(STRATEGY_WORDS) as StrategyType[]).map((k) => <option key={k} value={k}>{STRATEGY_WORDS[k]}</option>)}
        </select>
        {strategyType === "recent_n" && (
          <>
            <label htmlFor={ids.keep}>Messages to keep</label>
            <input id={ids.keep} inputMode="numeric" value={keepN} onChange={(e) => setKeepN(e.target.value)} />
          </>
        )}
        <label htmlFor={ids.prompt}>System prompt</label>
        <textarea id={ids.prompt} rows={3} value={systemPrompt} placeholder="the server's default" onChange={(e) => setSystemPrompt(e.target.value)} />
        {problem && <div className="error-text" role="alert">{problem}</div>}
        <button type="submit" className="btn btn-primary">Save settings</button>
        {saved && <span className="muted" role="status"> Saved</span>}
      </form>
    </section>
  );
}
