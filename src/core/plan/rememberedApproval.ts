import { z } from 'zod';

// Remembered answers as the plan records them (docs/design.md, “Remembered approvals”): plain data,
// so the reducer and the webview share it without the policy that decides what matches.

/** How far an approval reaches: this call only, the rest of the run, or this workspace (commands only). */
export const ApprovalScopeSchema = z.enum(['call', 'run', 'workspace']);
export type ApprovalScope = z.infer<typeof ApprovalScopeSchema>;

const Word = z.string().min(1).max(200);

/**
 * What one remembered answer approves: a command prefix (the literal words a later command must
 * start with), a folder (workspace-relative, '/'-separated, '.' for the root) for a file tool, or
 * the exact arguments (their sha256) for any other tool.
 */
export const RememberedRuleSchema = z.union([
  z.object({ tool: z.string().min(1).max(200), prefix: z.array(Word).min(1).max(16) }).strict(),
  z.object({ tool: z.string().min(1).max(200), folder: z.string().min(1).max(4096) }).strict(),
  z.object({ tool: z.string().min(1).max(200), argsHash: z.string().regex(/^[0-9a-f]{64}$/) }).strict(),
]);
export type RememberedRule = z.infer<typeof RememberedRuleSchema>;

/**
 * Recorded on a request that may be remembered: what "Approve for this run" would remember, and
 * whether "Always allow in this workspace" is offered (command prefixes only).
 */
export const RememberOfferSchema = z.object({ rule: RememberedRuleSchema, workspace: z.boolean() }).strict();
export type RememberOffer = z.infer<typeof RememberOfferSchema>;

/** The rule in a few words, for buttons, prompts and the Manage approvals list. */
export function describeRule(rule: RememberedRule): string {
  if ('prefix' in rule) return `${rule.tool} \`${rule.prefix.map(quoteWord).join(' ')} …\``;
  if ('folder' in rule) return `${rule.tool} in ${rule.folder === '.' ? 'the workspace folder' : `${rule.folder}/`}`;
  return `${rule.tool} with these exact arguments`;
}

/** A word as a shell user would type it back: quoted when it is not plain. */
function quoteWord(word: string): string {
  return /^[A-Za-z0-9_\-.,/:@%+=^]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}
