import type { PolicyDecision } from '../config/configSchema';
import type { McpAnnotations, McpToolOrigin } from '../config/mcpTypes';

// The policy of MCP tools (docs/design.md, “Policy”, docs/design.md, “MCP tools”). `cortex.policy.tools` takes, besides tool
// names, `mcp:<server>/<tool>`, `mcp:<server>` and `mcp:*`. Among these the most specific level
// that has a rule decides (a tool's own rule, or its registry name, over its server's over
// `mcp:*`), and within one level deny > confirm-required > confirm > allow. The `*` wildcard
// still counts as a floor, as for every tool. Without a rule an MCP tool needs confirmation,
// except a tool annotated read-only of a server listed in `cortex.mcp.allowReadOnly`.

export interface PolicyMatch {
  decision: PolicyDecision;
  rule: string;
  reason: string;
}

/** The `cortex.policy.tools` keys that can name this tool, most specific level first. */
export function mcpPolicyLevels(toolName: string, origin: McpToolOrigin): string[][] {
  return [[`mcp:${origin.server}/${origin.tool}`, toolName], [`mcp:${origin.server}`], ['mcp:*']];
}

/** The rules of the most specific level that has any (all of them; the caller takes the strictest). */
export function mcpRuleMatches(toolName: string, origin: McpToolOrigin, rules: Record<string, PolicyDecision>): PolicyMatch[] {
  for (const level of mcpPolicyLevels(toolName, origin)) {
    const matches = level
      .filter((key, index) => level.indexOf(key) === index && Object.hasOwn(rules, key))
      .map((key) => {
        const rule = `cortex.policy.tools[${JSON.stringify(key)}] = ${rules[key]}`;
        return { decision: rules[key], rule, reason: `the rule ${rule}` };
      });
    if (matches.length > 0) return matches;
  }
  return [];
}

/** The decision when no rule names the tool: confirm, or allow for a read-only tool of an allowed server. */
export function mcpDefaultMatch(toolName: string, origin: McpToolOrigin, allowReadOnly: readonly string[]): PolicyMatch {
  const readOnly = origin.annotations?.readOnlyHint === true;
  if (readOnly && (allowReadOnly.includes(origin.server) || allowReadOnly.includes('*'))) {
    return {
      decision: 'allow',
      rule: 'cortex.mcp.allowReadOnly',
      reason: `"${toolName}" is annotated read-only and MCP server "${origin.server}" is listed in cortex.mcp.allowReadOnly`,
    };
  }
  return { decision: 'confirm', rule: 'default: MCP tool', reason: `"${toolName}" comes from an MCP server, so it needs confirmation` };
}

/** The annotations in words, for the approval ("annotations: read-only, idempotent"). */
export function describeAnnotations(annotations: McpAnnotations | undefined): string {
  if (!annotations) return 'no annotations';
  const words: string[] = [];
  if (annotations.title) words.push(`title "${annotations.title}"`);
  const flag = (value: boolean | undefined, yes: string, no: string) => {
    if (value === true) words.push(yes);
    if (value === false) words.push(no);
  };
  flag(annotations.readOnlyHint, 'read-only', 'may change things');
  flag(annotations.destructiveHint, 'destructive', 'not destructive');
  flag(annotations.idempotentHint, 'idempotent', 'not idempotent');
  flag(annotations.openWorldHint, 'open world', 'closed world');
  return words.length > 0 ? `annotations: ${words.join(', ')}` : 'no annotations';
}

/** What an approval of an MCP call says about the tool (server, tool, annotations as hints). */
export function mcpApprovalNote(origin: McpToolOrigin): string {
  return `MCP server "${origin.server}", tool "${origin.tool}" (${describeAnnotations(origin.annotations)}; annotations are the server's own hints)`;
}
