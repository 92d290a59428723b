import type { FlatConfig, PolicyDecision } from '../config/configSchema';
import { mcpApprovalNote, mcpDefaultMatch, mcpRuleMatches } from './mcpPolicy';
import { mcpOriginOf, type ToolOrigin } from './toolOrigin';
import { evaluateCommand, type CommandEvaluation } from './commandRules';
import { describeProtectedAccess, type ProtectedAccess } from './fileProtection';

/** What a tool does, as the policy sees it (the tools declare it; the policy sits below them). */
export type ToolKind = 'read' | 'write' | 'command' | 'other';

// Whether one tool call may run (docs/design.md, “Policy”): allow → run; deny → finish with an error telling
// the model it was denied by policy; confirm → awaiting_approval with {required, deny_effect,
// reason}. Every matching rule counts and the strictest wins: deny > confirm-required > confirm >
// allow. A more specific rule does not override `*`: the wildcard acts as a floor.

export interface PolicyVerdict {
  decision: 'allow' | 'deny' | 'confirm';
  /** confirm-required: a deny blocks the step instead of letting the tool loop continue. */
  required: boolean;
  denyEffect: 'continue' | 'block';
  /** Shown to the user (approval panel) and, on deny, to the model. */
  reason: string;
  /** Every rule that matched, e.g. `cortex.policy.tools["*"] = confirm`, or the default that applied. */
  rules: string[];
  /** For command tools: the per-segment evaluation of the command line. */
  command?: CommandEvaluation;
  /** Protected files the call reaches; an approval of the call approves exactly these. */
  protectedAccess?: ProtectedAccess[];
}

export interface ToolPolicyInput {
  toolName: string;
  /** Undefined when the tool is unknown. */
  tool?: { kind: ToolKind; readOnly: boolean; origin: ToolOrigin };
  /** Parsed arguments (an object, or its JSON text). */
  args: unknown;
  config: Pick<FlatConfig, 'cortex.policy.tools' | 'cortex.policy.commands'> & Partial<Pick<FlatConfig, 'cortex.mcp.allowReadOnly'>>;
  /** Workspace trust: untrusted means read-only. */
  trusted: boolean;
  /** Protected files the call would read or write (found beforehand by `findProtectedAccess`). */
  protectedAccess?: ProtectedAccess[];
}

interface Match {
  decision: PolicyDecision;
  rule: string;
  reason: string;
}

const RANK: Record<PolicyDecision, number> = { allow: 0, confirm: 1, 'confirm-required': 2, deny: 3 };

/**
 * Decides one call. Defaults (used only when no configured rule matches): read-only tools allow,
 * workspace writes allow (the file tools are jailed to the workspace), command tools follow the
 * command rules (confirm unless every segment is allowed), any other or unknown tool confirm.
 * A call that reaches a protected file (`protectedAccess`) needs confirmation whatever the rules
 * allow. An untrusted workspace denies every tool that is not read-only.
 */
export function decideToolPolicy(input: ToolPolicyInput): PolicyVerdict {
  const { toolName, tool, config, trusted } = input;
  const mcp = tool && mcpOriginOf(tool);
  // An MCP server's read-only annotation is only its own hint: Restricted Mode never runs MCP tools.
  if (!trusted && (!tool?.readOnly || mcp)) {
    const what = tool ? `"${toolName}" can change files or run programs` : `"${toolName}" is not a known read-only tool`;
    return verdict({ decision: 'deny', rule: 'untrusted-workspace', reason: `the workspace is untrusted, so Cortex is read-only and ${what}` }, []);
  }

  const matches: Match[] = [];
  // Protected files ask even under a tool-level allow (the strictest match wins); listed first so
  // that, among equally strict matches, the question names the file.
  const protectedAccess = input.protectedAccess ?? [];
  if (protectedAccess.length > 0) {
    matches.push({ decision: 'confirm', rule: 'cortex.policy.protectedPaths', reason: protectedAccess.map(describeProtectedAccess).join('; ') });
  }
  const tools = config['cortex.policy.tools'] ?? {};
  if (mcp) matches.push(...mcpRuleMatches(toolName, mcp, tools));
  for (const key of new Set(mcp ? ['*'] : [toolName, '*'])) {
    if (!Object.hasOwn(tools, key)) continue;
    const decision = tools[key];
    const rule = `cortex.policy.tools[${JSON.stringify(key)}] = ${decision}`;
    matches.push({ decision, rule, reason: `${key === '*' ? 'the wildcard rule' : 'the rule'} ${rule}` });
  }

  let command: CommandEvaluation | undefined;
  if (tool?.kind === 'command') {
    const text = commandText(input.args);
    if (text !== undefined) {
      command = evaluateCommand(text, config['cortex.policy.commands'] ?? { allow: [], deny: [] });
      // A command the rules cannot fully check (parse error) is never auto-allowed, even under a
      // tool-level allow; "not covered by a rule" is no match, so a tool-level allow still applies.
      if (command.decision !== 'confirm' || command.errors.length > 0) {
        matches.push({ decision: command.decision, rule: 'cortex.policy.commands', reason: command.reason });
      }
    }
  }

  if (matches.length === 0)
    matches.push(mcp ? mcpDefaultMatch(toolName, mcp, config['cortex.mcp.allowReadOnly'] ?? []) : defaultMatch(toolName, tool, command));
  const strictest = matches.reduce((best, match) => (RANK[match.decision] > RANK[best.decision] ? match : best));
  const result = verdict(
    strictest,
    matches.map((match) => match.rule),
    command,
  );
  if (protectedAccess.length > 0) {
    result.protectedAccess = protectedAccess;
    if (strictest.rule !== matches[0].rule && result.decision === 'confirm') result.reason += `; ${matches[0].reason}`;
  }
  if (mcp && result.decision === 'confirm') result.reason += `; ${mcpApprovalNote(mcp)}`;
  // Whoever approves a command should know which code in it no deny rule looked at.
  if (command && result.decision === 'confirm' && command.handoffs.length > 0) result.reason += `; ${command.handoffs.join('; ')}`;
  return result;
}

function defaultMatch(toolName: string, tool: ToolPolicyInput['tool'], command: CommandEvaluation | undefined): Match {
  if (!tool) return { decision: 'confirm', rule: 'default: unknown tool', reason: `"${toolName}" is not a known tool, so it needs confirmation` };
  if (tool.kind === 'command') {
    return { decision: 'confirm', rule: 'default: command', reason: command ? command.reason : 'the command line is missing, so it cannot be checked' };
  }
  if (tool.readOnly || tool.kind === 'read') return { decision: 'allow', rule: 'default: read-only', reason: `"${toolName}" only reads` };
  if (tool.kind === 'write') return { decision: 'allow', rule: 'default: workspace write', reason: `"${toolName}" writes inside the workspace` };
  return { decision: 'confirm', rule: 'default: other tool', reason: `"${toolName}" is not known to be safe, so it needs confirmation` };
}

function verdict(match: Match, rules: string[], command?: CommandEvaluation): PolicyVerdict {
  const required = match.decision === 'confirm-required';
  const result: PolicyVerdict = {
    decision: required ? 'confirm' : (match.decision as PolicyVerdict['decision']),
    required,
    denyEffect: required ? 'block' : 'continue',
    reason: match.reason,
    rules: rules.length > 0 ? rules : [match.rule],
  };
  if (command) result.command = command;
  return result;
}

/** The command line of a command tool's arguments (`{ command: "…" }`), parsed from JSON if needed. */
function commandText(args: unknown): string | undefined {
  let value = args;
  if (typeof value === 'string') {
    try {
      value = JSON.parse(value);
    } catch {
      return undefined;
    }
  }
  if (value && typeof value === 'object' && typeof (value as { command?: unknown }).command === 'string') {
    return (value as { command: string }).command;
  }
  return undefined;
}
