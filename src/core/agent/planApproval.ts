import { planIsApproved } from '../plan/planApprovalFold';
import type { ScopeWidening } from '../plan/planApprovalSchema';
import type { PlanState } from '../plan/planTypes';
import type { StepScope } from '../plan/stepScope';
import { coveringCommand, writeInScope } from '../policy/stepScopeMatch';
import type { PlanRevision } from './planner';
import type { ParsedPlan } from './planParsing';
import { proposedSteps } from './planDocument';
import type { RunContext } from './runContext';

// The `plan` approval mode in the run (docs/design.md, “Step scopes and plan approval”): the
// planner's plan is approved once before any step runs (a denial with feedback gets a rewritten
// plan, at most twice), and a replan whose new steps need more than the approved scopes asks again,
// showing what is new. In the `call` mode nothing here asks anything.

/** Rewrites after a denial with feedback: the first plan plus two more. */
const MAX_REWRITES = 2;

/** The plan was denied (or the run cancelled while it waited): the run stops before any step. */
export class PlanNotApproved extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PlanNotApproved';
  }
}

/** True when the run asks for the plan once instead of every call. */
export function planMode(context: Pick<RunContext, 'config'>): boolean {
  return context.config['cortex.approval.mode'] === 'plan';
}

/**
 * The plan to run: `first` in the `call` mode; in the `plan` mode, the plan a person approved.
 * `rewrite` asks the planner for a new plan after a denial with feedback (absent for a plan file).
 */
export async function approvedPlan(context: RunContext, first: ParsedPlan, rewrite?: (revision: PlanRevision) => Promise<ParsedPlan>): Promise<ParsedPlan> {
  if (!planMode(context)) return first;
  let plan = first;
  for (let attempt = 1; ; attempt++) {
    const { outcome } = context.approvals.plans.request({ kind: 'plan', title: plan.title, steps: proposedSteps(plan), attempt }, context.signal);
    const answer = await outcome;
    if (answer.decision === 'approve') return plan;
    if (answer.decision === 'cancelled') throw new PlanNotApproved(answer.reason);
    if (!answer.feedback || !rewrite || attempt > MAX_REWRITES)
      throw new PlanNotApproved(`The plan was not approved${answer.feedback ? `: ${answer.feedback}` : ''}`);
    plan = await rewrite({ plan, feedback: answer.feedback });
  }
}

/** Every scope the person approved in this run: the scopes of every step the plan holds or held. */
function approvedScopes(state: PlanState): { write: string[]; commands: string[] } {
  const write = new Set<string>();
  const commands = new Set<string>();
  for (const step of [...state.steps.values(), ...state.replacedSteps.values()]) {
    step.scope?.write?.forEach((glob) => write.add(glob));
    step.scope?.commands?.forEach((command) => commands.add(command));
  }
  return { write: [...write], commands: [...commands] };
}

const GLOB_SYNTAX = /[*?[\]{}]/;

/**
 * What the new steps' scopes need beyond the approved ones, by step index. A glob is within the
 * approved scopes when one of them is the same glob or, for a plain path, matches it; a command
 * when an approved entry covers it.
 */
export function scopeWidening(state: PlanState, scopes: ReadonlyArray<StepScope | undefined> | undefined): ScopeWidening[] {
  const approved = approvedScopes(state);
  const widening: ScopeWidening[] = [];
  (scopes ?? []).forEach((scope, index) => {
    const write = (scope?.write ?? []).filter(
      (glob) => !approved.write.includes(glob) && (GLOB_SYNTAX.test(glob) || !writeInScope({ write: approved.write }, glob.replace(/^\.\//, ''))),
    );
    const commands = (scope?.commands ?? []).filter(
      (command) => !approved.commands.includes(command) && !coveringCommand({ commands: approved.commands }, command),
    );
    if (write.length > 0 || commands.length > 0) widening.push({ index, write, commands });
  });
  return widening;
}

/**
 * Whether a redesign may go on: always in the `call` mode and within the approved scopes; a wider
 * one asks for approval of the new steps. Denied (or no one to ask): the reason the step ends blocked.
 */
export async function approveRedesign(context: RunContext, failedStepId: string, redesign: ParsedPlan): Promise<{ ok: true } | { ok: false; reason: string }> {
  const { log } = context;
  if (!planMode(context) || !planIsApproved(log.state)) return { ok: true };
  const widening = scopeWidening(log.state, redesign.scopes);
  if (widening.length === 0) return { ok: true };
  const { outcome } = context.approvals.plans.request({ kind: 'replan', steps: proposedSteps(redesign), failedStepId, widening, attempt: 1 }, context.signal);
  const answer = await outcome;
  if (answer.decision === 'approve') return { ok: true };
  const asked = widening.map((w) => [...w.write.map((g) => `write ${g}`), ...w.commands.map((c) => `run \`${c}\``)].join(', ')).join('; ');
  const why = answer.decision === 'deny' && answer.feedback ? `: ${answer.feedback}` : answer.decision === 'cancelled' ? `: ${answer.reason}` : '';
  return { ok: false, reason: `plan_approval_denied: the redesign needs more than the approved plan (${asked}) and was not approved${why}` };
}
