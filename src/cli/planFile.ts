import { writeFileSync } from 'node:fs';
import { planDocument } from '../core/agent/planDocument';
import { parsePlannerReply, PlanReplyError, type ParsedPlan } from '../core/agent/planParsing';
import { readRegularSync, UnreadableFileError } from '../core/files/regularRead';
import { isRecord } from '../core/text/isRecord';
import { UsageError } from './cliArgs';
import { describeFsError } from './fsErrorText';

// Plans as files (docs/design.md, “Step scopes and plan approval”): `cortex plan --out FILE` writes
// the planner's plan, `cortex run --plan FILE` runs it. A plan file is untrusted input (it may come
// from a pull request): it is read as a regular file under a size cap, must be exactly one JSON
// object, and its plan is checked by the planner reply's own reader, so its errors name the step
// and the field just as a refused planner reply does.

/** Largest plan file read. */
export const MAX_PLAN_FILE_BYTES = 1024 * 1024;
const MAX_TASK_CHARS = 100_000;

/** What a plan file holds: the task and the plan in the planner's reply form. */
export function planFileText(task: string, plan: ParsedPlan): string {
  return `${JSON.stringify({ task, ...planDocument(plan) }, null, 2)}\n`;
}

/** Writes the plan file; a failure is a UsageError in words. */
export function writePlanFileSync(file: string, task: string, plan: ParsedPlan): void {
  try {
    writeFileSync(file, planFileText(task, plan), 'utf8');
  } catch (error) {
    throw new UsageError(describeFsError(error, 'plan file', file), false);
  }
}

/** Reads and checks a plan file; every problem is a UsageError naming the file (and the step and field). */
export function readPlanFileSync(file: string, maxSteps = 100): { task: string; plan: ParsedPlan } {
  let bytes: Buffer;
  try {
    bytes = readRegularSync(file, { what: 'plan file', maxBytes: MAX_PLAN_FILE_BYTES, followLinks: true });
  } catch (error) {
    if (error instanceof UnreadableFileError) throw new UsageError(error.message, false);
    throw error;
  }
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw new UsageError(`plan file ${file} is not UTF-8 text`, false);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new UsageError(`plan file ${file} is not valid JSON: ${(error as Error).message}`, false);
  }
  if (!isRecord(value)) throw new UsageError(`plan file ${file} must hold one JSON object {"task", "title", "steps", "dependencies"}`, false);
  const task = value.task;
  if (typeof task !== 'string' || !task.trim()) throw new UsageError(`plan file ${file}: "task" must be the task, as non-empty text`, false);
  if (task.length > MAX_TASK_CHARS) throw new UsageError(`plan file ${file}: "task" is longer than ${MAX_TASK_CHARS.toLocaleString('en')} characters`, false);
  try {
    return { task: task.trim(), plan: parsePlannerReply(JSON.stringify(value), { maxSteps }) };
  } catch (error) {
    if (error instanceof PlanReplyError)
      throw new UsageError(`plan file ${file} is not a valid plan: ${error.message.replace(/^the JSON is not a valid plan: /, '')}`, false);
    throw error;
  }
}
