import type { StepState } from '../src/core/plan/planTypes';
import { auditsOfKind, type StepAudit } from '../src/core/plan/stepAudits';
import { formatTokenCount, usageText } from '../src/core/usage/formatUsage';

// Pure view model of a step's tokens, context-budget decisions and injected memories (the
// `context_cost` and `memory_injected` audits, docs/design.md, “Context budget and memory” and “Usage and cost”), so the wording is
// unit-tested in Node and the DOM code only copies strings.

/** Context decisions listed in the details pane; older ones are counted, not listed. */
export const MAX_DECISION_ROWS = 30;

export interface ContextDecisionRow {
  purpose: string;
  /** "6.9k → 4.4k of 7.0k" */
  tokens: string;
  /** "pruned 2 outputs (−5.3k), dropped 1 turn (−2.7k), compacted (+67)" or "fits". */
  actions: string;
  flag?: 'exhausted' | 'after overflow';
}

export interface StepContextView {
  /** usageText of the step, when any request reported or counted usage. */
  tokens?: string;
  /** "17 requests: 9 pruned, 2 compacted" */
  summary: string;
  rows: ContextDecisionRow[];
  /** Decisions not listed (older than the last MAX_DECISION_ROWS). */
  hiddenRows: number;
  memories: Array<{ id: string; text: string; tags: string[] }>;
}

type ContextCostAudit = Extract<StepAudit, { kind: 'context_cost' }>;

const signed = (tokens: number) => (tokens >= 0 ? `-${formatTokenCount(tokens)}` : `+${formatTokenCount(-tokens)}`);
const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

function actionText(action: NonNullable<ContextCostAudit['actions']>[number]): string {
  switch (action.kind) {
    case 'drop_memory':
      return `memory dropped (${signed(action.tokensSaved)})`;
    case 'prune_tool_outputs':
      return `pruned ${plural(action.count, 'output')} (${signed(action.tokensSaved)})`;
    case 'shrink_turns':
      return `dropped ${plural(action.count, 'turn')} (${signed(action.tokensSaved)})`;
    case 'compact':
      return action.failed ? `summary failed: ${action.failed}` : `compacted into a summary (${signed(action.tokensSaved)})`;
    default:
      return action.kind;
  }
}

/** The tag on a step's node: its tokens, with the breakdown and cost on hover. */
export function stepTokensTag(step: StepState): { text: string; title: string } | undefined {
  const usage = step.usage;
  if (!usage) return undefined;
  return {
    text: `${usage.estimated ? '~' : ''}${formatTokenCount(usage.promptTokens + usage.completionTokens)} tok`,
    title: `Tokens of this step: ${usageText(usage)}`,
  };
}

export function stepContextView(step: StepState): StepContextView | undefined {
  const decisions = auditsOfKind(step.audits, 'context_cost');
  const memories = auditsOfKind(step.audits, 'memory_injected').flatMap((a) => a.memories);
  if (!step.usage && decisions.length === 0 && memories.length === 0) return undefined;
  const rows = decisions.map((d): ContextDecisionRow => {
    const actions = d.actions ?? [];
    return {
      purpose: d.purpose ?? '?',
      tokens: `${formatTokenCount(d.tokensBefore ?? 0)}${actions.length ? ` → ${formatTokenCount(d.tokensAfter ?? 0)}` : ''} of ${formatTokenCount(d.budget ?? 0)}`,
      actions: actions.length ? actions.map(actionText).join(', ') : 'fits',
      ...(d.exhausted ? { flag: 'exhausted' as const } : d.afterOverflow ? { flag: 'after overflow' as const } : {}),
    };
  });
  const pruned = decisions.filter((d) => d.actions?.some((a) => a.kind === 'prune_tool_outputs')).length;
  const compacted = decisions.filter((d) => d.actions?.some((a) => a.kind === 'compact')).length;
  const parts = [
    pruned ? `${pruned} pruned` : '',
    compacted ? `${compacted} compacted` : '',
    decisions.some((d) => d.exhausted) ? 'context exhausted' : '',
  ].filter(Boolean);
  return {
    ...(step.usage ? { tokens: usageText(step.usage) } : {}),
    summary: `${plural(decisions.length, 'request')}${parts.length ? `: ${parts.join(', ')}` : ', all within budget'}`,
    rows: rows.slice(-MAX_DECISION_ROWS),
    hiddenRows: Math.max(0, rows.length - MAX_DECISION_ROWS),
    memories,
  };
}
