import * as vscode from 'vscode';

/** How long the first-start walkthrough is given to build and focus its page before the box opens. */
const WALKTHROUGH_SETTLE_MS = 1_500;

/** The longest task the box accepts. */
export const MAX_TASK_LENGTH = 20_000;

/** Why a typed task cannot be run yet, or undefined when it can. */
export function taskProblem(value: string): string | undefined {
  if (value.trim() === '') return 'Describe the task for the agent.';
  if (value.length > MAX_TASK_LENGTH) return 'The task is too long (over 20,000 characters).';
  return undefined;
}

/**
 * The "Run agent task" input box. It is part of activation (it imports nothing but `vscode`) so
 * that it opens at once, before the agent core loads: keystrokes typed right after the command
 * land in it. `ignoreFocusOut` keeps it and its text until Enter or Escape, and it opens only once
 * what Cortex opened at start-up (the first-start walkthrough) has taken the focus it takes, so
 * nothing Cortex opens grabs the keyboard from it afterwards.
 */
export class TaskBox {
  private before: PromiseLike<unknown> = Promise.resolve();

  /**
   * Anything Cortex opens on its own at start-up (the walkthrough): the box waits for it to open
   * and then `settleMs` more. The walkthrough's page focuses its first step after the open command
   * has returned, once its content is built; a box shown in that window would open empty and lose
   * every keystroke to the page (seen in code-server), so it is shown after.
   */
  openAfter(pending: PromiseLike<unknown>, settleMs = WALKTHROUGH_SETTLE_MS): void {
    this.before = Promise.resolve(pending).then(
      (opened) => (opened === 'opened' ? new Promise((resolve) => setTimeout(resolve, settleMs)) : undefined),
      () => undefined,
    );
  }

  /** A task typed whose run did not start (settings to fix, a key to set): the next box offers it again. */
  private unsent: string | undefined;

  /** The trimmed task, or undefined on Escape. */
  async ask(folderName?: string): Promise<string | undefined> {
    await this.before;
    const where = folderName ? ` in ${folderName}` : '';
    const task = await vscode.window.showInputBox({
      title: 'Cortex: Run agent task',
      prompt: `What should the agent do${where}?${vscode.workspace.isTrusted ? '' : ' (Restricted Mode: read-only)'}`,
      placeHolder: 'e.g. Add a unit test for the date parser and make it pass',
      value: this.unsent,
      ignoreFocusOut: true,
      validateInput: taskProblem,
    });
    if (task === undefined || task.trim() === '') return undefined;
    this.unsent = task.trim();
    return this.unsent;
  }

  /** The run of the last task asked for has started: the next box starts empty. */
  started(): void {
    this.unsent = undefined;
  }
}
