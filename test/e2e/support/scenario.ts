import type { Page } from 'playwright-core';
import { firstUserMessage } from '../../support/scriptedReplies';
import type { ScriptedRequest } from '../../support/scriptedServer';
import { answerInput, runCommand } from './workbench';

/** The step an executor request is about ("Your step:\n<description>" in its first user message). */
export function stepOf(request: ScriptedRequest): string {
  const match = /Your step:\n([^\n]*)/.exec(firstUserMessage(request));
  if (!match) throw new Error(`executor request #${request.index} names no step: ${firstUserMessage(request).slice(0, 200)}`);
  return match[1];
}

/** Command palette → "Cortex: Run agent task" → type the task → Enter. */
export async function startTask(page: Page, task: string): Promise<void> {
  await runCommand(page, 'Cortex: Run agent task');
  await answerInput(page, task, 'Cortex: Run agent task');
}

/** Waits until `check` returns true (polling), else throws with `describe()`'s text. */
export async function eventually(
  page: Page,
  check: () => boolean | Promise<boolean>,
  describe: () => string | Promise<string>,
  timeout = 30_000,
): Promise<void> {
  const deadline = Date.now() + timeout;
  while (Date.now() < deadline) {
    if (await check()) return;
    await page.waitForTimeout(200);
  }
  throw new Error(`timed out after ${timeout} ms: ${await describe()}`);
}
