import { mcpOriginOf } from '../policy/toolOrigin';
import type { ToolRegistry } from '../tools/toolRegistry';

// The planner and the replanner see every tool by name (docs/design.md, “MCP tools”), MCP tools with a
// one-line description: their first sentence, at most 160 characters, and the server they belong
// to. The executor of a step still gets the full description and schema of the tools it is sent.

const MAX_SUMMARY = 160;

function firstSentence(text: string): string {
  const line = text.trim().split('\n')[0].trim();
  const end = line.search(/[.!?](\s|$)/);
  const sentence = end === -1 ? line : line.slice(0, end + 1);
  return sentence.length <= MAX_SUMMARY ? sentence : `${sentence.slice(0, MAX_SUMMARY - 1).trimEnd()}…`;
}

/** Name and description of every visible tool; MCP tools summarised to one line. */
export function toolSummaries(registry: ToolRegistry): Array<{ name: string; description: string }> {
  return registry.tools().map((tool) => {
    const origin = mcpOriginOf(tool);
    if (!origin) return { name: tool.name, description: tool.description };
    const suffix = ` (MCP server "${origin.server}")`;
    const own = tool.description.endsWith(suffix) ? tool.description.slice(0, -suffix.length) : tool.description;
    return { name: tool.name, description: `${firstSentence(own)}${suffix}` };
  });
}
