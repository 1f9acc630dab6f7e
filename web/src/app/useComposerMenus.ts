// What the composer's `/` menu offers (MCP prompts and the context's workflows) and the MCP
// servers' questions asked in the middle of a tool call.

import { useCallback, useEffect, useState } from "react";
import type { ApiClient } from "../api/client";
import type { ElicitationAction, JsonValue, McpElicitation, McpPromptInfo, WorkflowInfo } from "../generated/protocol";

/** The `/` menu's prompts and workflows, looked up when a conversation opens. */
export function useComposerMenus(api: ApiClient, contextId: string | null) {
  const [prompts, setPrompts] = useState<McpPromptInfo[]>([]);
  useEffect(() => {
    if (contextId === null) return;
    api.listMcpPrompts().then((l) => setPrompts(l.prompts), () => setPrompts([]));
  }, [api, contextId]);
  const [workflows, setWorkflows] = useState<WorkflowInfo[]>([]);
  const refreshWorkflows = useCallback(() => {
    if (contextId === null) return;
    api.listWorkflows(contextId).then((l) => setWorkflows(l.workflows), () => setWorkflows([]));
  }, [api, contextId]);
  useEffect(refreshWorkflows, [refreshWorkflows]);
  const runWorkflow = useCallback(
    async (workflow: WorkflowInfo, parameters: Record<string, JsonValue>) => {
      if (contextId === null) return;
      await api.runWorkflow(contextId, workflow.name, parameters);
    },
    [api, contextId],
  );
  const promptText = useCallback(
    async (prompt: McpPromptInfo, args: Record<string, string>) => (await api.getMcpPrompt(prompt.server, prompt.name, args)).text,
    [api],
  );
  return { prompts, workflows, refreshWorkflows, runWorkflow, promptText };
}

/**
 * Questions MCP servers ask the person in the middle of a tool call: while a turn runs they are
 * looked up every second and a half.
 */
export function useElicitations(api: ApiClient, turnRunning: boolean) {
  const [elicitations, setElicitations] = useState<McpElicitation[]>([]);
  useEffect(() => {
    if (!turnRunning) {
      setElicitations([]);
      return;
    }
    const look = () => api.listMcpElicitations().then((l) => setElicitations(l.elicitations), () => setElicitations([]));
    look();
    const timer = window.setInterval(look, 1500);
    return () => window.clearInterval(timer);
  }, [api, turnRunning]);
  const replyElicitation = useCallback(
    async (id: string, action: ElicitationAction, content?: Record<string, unknown>) => {
      await api.replyMcpElicitation(id, { action, content });
      setElicitations((cur) => cur.filter((q) => q.id !== id));
    },
    [api],
  );
  return { elicitations, replyElicitation };
}
