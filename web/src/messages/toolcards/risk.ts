// How much a tool call can change, as the badge on its card says.

/** What a call may do: only read, change files, run a program, or reach another service. */
export type Risk = "read" | "write" | "command" | "network";

const BUILTIN_RISK: Record<string, Risk> = {
  read_file: "read",
  list_directory: "read",
  glob: "read",
  codebase_search: "read",
  find_definition: "read",
  find_references: "read",
  get_project_overview: "read",
  project_structure: "read",
  propose_plan: "read",
  ask_user: "read",
  update_plan: "read",
  write_file: "write",
  create_file: "write",
  replace_in_file: "write",
  delete_file: "write",
  run_command: "command",
};

/**
 * The risk of a built-in tool call; a tool this build does not know counts as a command (it may
 * do anything). MCP tools are `network`: they run on another server.
 */
export function riskOf(toolName: string, mcp = false): Risk {
  if (mcp) return "network";
  return BUILTIN_RISK[toolName] ?? "command";
}
