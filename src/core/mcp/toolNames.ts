import { createHash } from 'node:crypto';
import { normalizeToolName } from '../tools/nameNormalizer';
import type { McpToolOrigin } from '../config/mcpTypes';

// MCP tools join the registry as `<server>_<tool>`, made into a name every OpenAI-compatible
// endpoint accepts (`^[A-Za-z0-9_-]{1,64}$`). Two tools that end up with the same name, or with
// the same normalize key (docs/design.md, “Tool name resolution”), would make name resolution ambiguous: that is an
// error at run start naming both, never a silent pick.

const MAX_NAME = 64;

/** The registry name of `tool` of `server`: other characters become `_`; a long name keeps a hash of the full one. */
export function mcpToolName(server: string, tool: string): string {
  const full = `${server}_${tool}`;
  const name = full.replace(/[^A-Za-z0-9_-]+/g, '_');
  if (name.length <= MAX_NAME) return name;
  const hash = createHash('sha256').update(full).digest('hex').slice(0, 8);
  return `${name.slice(0, MAX_NAME - hash.length - 1)}_${hash}`;
}

export interface NamedMcpTool {
  name: string;
  origin: McpToolOrigin;
}

const describe = (tool: NamedMcpTool) => `the tool "${tool.origin.tool}" of MCP server "${tool.origin.server}" (as "${tool.name}")`;

/** Every name clash of the MCP tools with the native tools and with each other, one sentence each. */
export function mcpNameConflicts(nativeNames: readonly string[], tools: readonly NamedMcpTool[], normalizeFallback: boolean): string[] {
  const conflicts: string[] = [];
  const nativeByName = new Set(nativeNames);
  const nativeByKey = new Map(nativeNames.map((name) => [normalizeToolName(name), name]));
  const byName = new Map<string, NamedMcpTool>();
  const byKey = new Map<string, NamedMcpTool>();
  for (const tool of tools) {
    const key = normalizeToolName(tool.name);
    if (nativeByName.has(tool.name)) {
      conflicts.push(`${describe(tool)} has the name of the built-in tool "${tool.name}" (rename the server)`);
      continue;
    }
    if (normalizeFallback && nativeByKey.has(key)) {
      conflicts.push(
        `${describe(tool)} and the built-in tool "${nativeByKey.get(key)}" both normalize to "${key}" (rename the server, or set cortex.tools.normalizeFallback to false)`,
      );
      continue;
    }
    const sameName = byName.get(tool.name);
    if (sameName) {
      conflicts.push(`${describe(sameName)} and ${describe(tool)} have the same name (rename one of the servers)`);
      continue;
    }
    const sameKey = normalizeFallback ? byKey.get(key) : undefined;
    if (sameKey) {
      conflicts.push(
        `${describe(sameKey)} and ${describe(tool)} both normalize to "${key}" (rename one of the servers, or set cortex.tools.normalizeFallback to false)`,
      );
      continue;
    }
    byName.set(tool.name, tool);
    byKey.set(key, tool);
  }
  return conflicts;
}
