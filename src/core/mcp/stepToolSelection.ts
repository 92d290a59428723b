import { hasMcpOrigin } from '../policy/toolOrigin';
import type { ToolRegistry } from '../tools/toolRegistry';
import type { ToolDefinition } from '../tools/toolTypes';

// Which MCP tools one step's requests carry (docs/design.md, “MCP tools”). Up to `cortex.mcp.maxTools` MCP
// tools every step simply gets them all. With more, each step gets the servers its description
// needs: first the servers it names (the server's name, or one of its tools' names, as words of
// the description), then the others by keyword overlap (how many of the description's words
// occur in a server's tool names and descriptions), whole servers while they fit and the best
// tools of the next one to fill the budget. Servers with nothing in common with the step are
// left out. The choice is audited as `step_audit` kind `mcp_tools`. The workspace tools are
// always sent and do not count.

const STOP_WORDS = new Set(
  'the and for with from into that this then than are was were will can not but all any its use using used file files step steps make sure each them they their there what when which while also only have has had more most some such your you our out via per one two'.split(
    ' ',
  ),
);

/** Lower-case words of at least three letters, camelCase and separators split, a plural `s` dropped. */
export function keywords(text: string): Set<string> {
  const words = text
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter((word) => word.length >= 3 && !STOP_WORDS.has(word))
    .map((word) => (word.length > 3 && word.endsWith('s') && !word.endsWith('ss') ? word.slice(0, -1) : word));
  return new Set(words);
}

/** True when `name` occurs in `text` as a whole word (any case; `-`, `_` and spaces alike). */
function mentions(text: string, name: string): boolean {
  const fold = (s: string) =>
    ` ${s
      .toLowerCase()
      .replace(/[^\p{L}\p{N}]+/gu, ' ')
      .trim()} `;
  const needle = fold(name);
  return needle.trim() !== '' && fold(text).includes(needle);
}

interface ServerChoice {
  server: string;
  tools: ToolDefinition[];
  named: boolean;
  score: number;
  toolScores: Map<string, number>;
  namedTools: Set<string>;
}

export interface StepToolSelection {
  registry: ToolRegistry;
  /** Set when a choice was made (more MCP tools than the limit). */
  audit?: Record<string, unknown>;
}

/** The registry view for a step whose description is `description`. */
export function selectStepTools(registry: ToolRegistry, description: string, maxTools: number): StepToolSelection {
  const mcpTools = registry.tools().filter(hasMcpOrigin);
  if (mcpTools.length <= maxTools) return { registry };

  const stepWords = keywords(description);
  const byServer = new Map<string, typeof mcpTools>();
  for (const tool of mcpTools) byServer.set(tool.origin.server, [...(byServer.get(tool.origin.server) ?? []), tool]);
  const choices: ServerChoice[] = [...byServer].map(([server, tools]) => {
    const toolScores = new Map<string, number>();
    const namedTools = new Set<string>();
    const serverWords = new Set<string>();
    for (const tool of tools) {
      const words = keywords(`${tool.origin.tool} ${tool.description}`);
      for (const word of words) serverWords.add(word);
      toolScores.set(tool.name, [...words].filter((word) => stepWords.has(word)).length);
      if (mentions(description, tool.origin.tool) || mentions(description, tool.name)) namedTools.add(tool.name);
    }
    const score = [...stepWords].filter((word) => serverWords.has(word)).length;
    return { server, tools, named: mentions(description, server) || namedTools.size > 0, score, toolScores, namedTools };
  });
  const ranked = choices
    .filter((c) => c.named || c.score > 0)
    .sort((a, b) => Number(b.named) - Number(a.named) || b.score - a.score || a.server.localeCompare(b.server));

  const chosen = new Set<string>();
  const selected: Array<Record<string, unknown>> = [];
  let budget = maxTools;
  for (const choice of ranked) {
    if (budget === 0) break;
    let tools = choice.tools;
    if (tools.length > budget) {
      const rank = (tool: ToolDefinition) => (choice.namedTools.has(tool.name) ? 1000 : 0) + (choice.toolScores.get(tool.name) ?? 0);
      tools = [...tools].sort((a, b) => rank(b) - rank(a)).slice(0, budget);
    }
    for (const tool of tools) chosen.add(tool.name);
    budget -= tools.length;
    selected.push({ server: choice.server, reason: choice.named ? 'named' : 'keywords', score: choice.score, tools: tools.length, of: choice.tools.length });
  }
  const left = choices.filter((c) => !selected.some((s) => s.server === c.server)).map((c) => ({ server: c.server, score: c.score, tools: c.tools.length }));
  return {
    registry: registry.restrict((tool) => !hasMcpOrigin(tool) || chosen.has(tool.name)),
    audit: { maxTools, available: mcpTools.length, sent: chosen.size, servers: selected, left, stepKeywords: [...stepWords].slice(0, 40) },
  };
}
