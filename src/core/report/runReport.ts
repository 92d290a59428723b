import { summarizeChanges } from '../checkpoints/changeSummary';
import type { PlanState, StepState } from '../plan/planTypes';
import { clip } from '../text/clip';

// A finished run told in compact text, for another agent to act on (Copilot's agent mode calls
// Cortex as a tool: docs/design.md, “Cortex as a tool of other agents”): the plan, each step's
// verdict with its evidence in a line, the files changed, the failures, and where the trace is.
// Every piece of run text is clipped, so the whole stays small whatever the model wrote.

const MAX_STEP_TEXT = 160;
const MAX_EVIDENCE = 240;
const MAX_ANSWER = 1_500;
const MAX_FILES = 40;
const MAX_TOTAL = 8_000;

export type StepProof = 'verified' | 'unverified' | 'failed';

/** How a step's proof ended: its verdict, or failed when it failed without one; undefined when it never ended. */
export function stepProof(step: StepState): StepProof | undefined {
  const verdict = step.verdict;
  if (!verdict) return step.status === 'failed' || step.status === 'blocked' ? 'failed' : undefined;
  if (!verdict.passed) return 'failed';
  return verdict.verdict === 'verified' ? 'verified' : 'unverified';
}

function oneLine(text: string, max: number): string {
  return clip(text.replace(/\s+/g, ' ').trim(), max, { markerWithin: true });
}

/** The step's checks in one line: how many passed, and what the failed ones found (or the passed ones, when all passed). */
function evidenceLine(step: StepState): string {
  const checks = step.verdict?.checks ?? [];
  if (checks.length === 0) return step.verdict ? oneLine(step.verdict.reason, MAX_EVIDENCE) : (step.endReason ?? step.status);
  const failed = checks.filter((check) => !check.passed);
  const shown = (failed.length > 0 ? failed : checks).map((check) => (failed.length > 0 ? `${check.check}: ${check.detail}` : check.check));
  return oneLine(`${checks.length - failed.length}/${checks.length} checks passed${shown.length ? ` — ${shown.join('; ')}` : ''}`, MAX_EVIDENCE);
}

export interface RunReportInput {
  state: PlanState;
  /** `interrupted`: the trace stopped without run_finished (the process ended mid-run). */
  status: 'completed' | 'failed' | 'cancelled' | 'running' | 'interrupted';
  answer?: string;
  error?: string;
  traceFile?: string;
  /** How the person or the calling agent opens the run (a command name). */
  openHint?: string;
}

export function runReportText(input: RunReportInput): string {
  const { state } = input;
  const steps = state.stepOrder.map((id) => state.steps.get(id)!);
  const all = [...steps, ...state.replacedSteps.values()];
  const counts = { verified: 0, unverified: 0, failed: 0 };
  for (const step of all) {
    const proof = stepProof(step);
    if (proof) counts[proof]++;
  }
  const lines: string[] = [
    `Cortex run ${state.runId} ${input.status}: ${steps.length} step(s) in the final plan; proof: ${counts.verified} verified, ${counts.unverified} unverified, ${counts.failed} failed.`,
  ];
  if (state.title) lines.push(`Plan: ${oneLine(state.title, MAX_STEP_TEXT)}`);
  for (const step of steps) {
    lines.push(`- ${step.id} [${stepProof(step) ?? step.status}] ${oneLine(step.description, MAX_STEP_TEXT)}`);
    if (step.verdict || step.status === 'failed' || step.status === 'blocked') lines.push(`  evidence: ${evidenceLine(step)}`);
  }
  if (state.replacedSteps.size > 0)
    lines.push(`Replaced by replans: ${[...state.replacedSteps.values()].map((step) => `${step.id} (${stepProof(step) ?? step.status})`).join(', ')}`);
  const changes = summarizeChanges(state);
  if (changes.length > 0) {
    const shown = changes.slice(0, MAX_FILES).map((file) => {
      const counted = file.added !== undefined ? ` +${file.added} -${file.removed}` : '';
      return `${file.path} (${file.kind}${counted})`;
    });
    lines.push(`Changed files: ${shown.join(', ')}${changes.length > MAX_FILES ? `, and ${changes.length - MAX_FILES} more` : ''}`);
  } else lines.push('Changed files: none recorded.');
  const failures = steps.filter((step) => stepProof(step) === 'failed');
  if (failures.length > 0 || input.error) {
    lines.push('Failures:');
    for (const step of failures)
      lines.push(
        `- ${step.id}: ${oneLine(step.verdict?.reason ?? step.endReason ?? (step.blockedBy ? `blocked by ${step.blockedBy}` : step.status), MAX_EVIDENCE)}`,
      );
    if (input.error) lines.push(`- run: ${oneLine(input.error, MAX_EVIDENCE)}`);
  }
  if (input.answer) lines.push(`Answer: ${clip(input.answer.trim(), MAX_ANSWER, { markerWithin: true })}`);
  if (input.traceFile) lines.push(`Trace: ${input.traceFile}${input.openHint ? ` (${input.openHint})` : ''}`);
  return clip(lines.join('\n'), MAX_TOTAL, { markerWithin: true });
}
