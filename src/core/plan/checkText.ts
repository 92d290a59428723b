import type { CheckRecord } from './events';
import type { StepState } from './planTypes';

// How the verifier's checks read as text (docs/design.md, “The verifier and how a step ends”):
// one line per check for the CLI and the log, and the failed step's checks with their evidence
// for the replanner, so it redesigns from what was really found, not from a summary.

const MAX_OUTPUT_IN_PROMPT = 600;

/** What backs a check, in a few words: `call c3`, `exit 1`, `src/a.ts (change #12)`. */
export function evidenceText(record: CheckRecord): string {
  const e = record.evidence;
  if (!e) return '';
  const parts: string[] = [];
  if (e.callId) parts.push(`call ${e.callId}`);
  if (e.path) parts.push(e.changeSeq !== undefined ? `change of ${e.path}` : e.path);
  if (e.exitCode !== undefined) parts.push(e.exitCode === null ? 'killed by a signal' : `exit ${e.exitCode}`);
  return parts.join(', ');
}

/** One line: `✗ changed test/a.ts: no file matching it changed in this step (evidence: …)`. */
export function checkLine(record: CheckRecord): string {
  const what = record.kind === 'claim' ? `claim "${record.check}"` : record.check;
  const evidence = evidenceText(record);
  return `${record.passed ? '✓' : '✗'} ${what}: ${record.detail}${evidence ? ` (evidence: ${evidence})` : ''}`;
}

/** The failed step's checks for the replanner's prompt: every check, failed ones with their output. */
export function formatVerdictChecks(step: StepState): string[] {
  const checks = step.verdict?.checks ?? [];
  if (checks.length === 0) return [];
  const lines = ['Checks of the verifier (✓ held, ✗ failed, with their evidence):'];
  for (const record of checks) {
    lines.push(`- ${checkLine(record)}`);
    const output = record.evidence?.output;
    if (!record.passed && output) lines.push(`  output: ${output.length > MAX_OUTPUT_IN_PROMPT ? `${output.slice(0, MAX_OUTPUT_IN_PROMPT)}…` : output}`);
  }
  return lines;
}
