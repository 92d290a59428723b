import type { Page } from 'playwright-core';
import { contentText, firstUserMessage } from '../../support/scriptedReplies';
import type { ScriptedRequest } from '../../support/scriptedServer';
import { answerInput, runCommand } from './workbench';

/**
 * The step an executor request is about ("Your step:\n<description>" in its user message; the
 * project's instructions, when the workspace has them, come in a user message before it).
 */
export function stepOf(request: ScriptedRequest): string {
  const messages = (request.body as { messages: Array<{ role: string; content: unknown }> }).messages;
  for (const message of messages) {
    if (message.role !== 'user') continue;
    const match = /Your step:\n([^\n]*)/.exec(contentText(message.content));
    if (match) return match[1];
  }
  throw new Error(`executor request #${request.index} names no step: ${firstUserMessage(request).slice(0, 200)}`);
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
