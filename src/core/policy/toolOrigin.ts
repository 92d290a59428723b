import type { McpToolOrigin } from '../config/mcpTypes';

// Where a tool comes from (docs/design.md, “The core's inner layers”, on tool capabilities). Every
// tool has one. Only the rules that are really about a tool's source read it: the policy's `mcp:`
// keys and MCP defaults, Restricted Mode (an MCP server's read-only annotation is only its own
// hint), the trace's MCP audit, the planner's summaries and the per-step MCP tool selection. What a
// call may change or repeat is asked of the tool's capabilities instead (`ToolDefinition`).

/** An MCP server's tool: which server and which of its tools. */
export type McpOrigin = { kind: 'mcp' } & McpToolOrigin;

/** `builtin`: the workspace tools every run gets; `memory`: the memory tools; `mcp`: a server's tool. */
export type ToolOrigin = { kind: 'builtin' } | { kind: 'memory' } | McpOrigin;

/** The MCP origin of `tool`, or undefined for a tool of any other origin. */
export function mcpOriginOf(tool: { origin: ToolOrigin }): McpOrigin | undefined {
  return tool.origin.kind === 'mcp' ? tool.origin : undefined;
}

/** Narrows `tool` to one of MCP origin (to filter a list of tools). */
export function hasMcpOrigin<T extends { origin: ToolOrigin }>(tool: T): tool is T & { origin: McpOrigin } {
  return tool.origin.kind === 'mcp';
}
