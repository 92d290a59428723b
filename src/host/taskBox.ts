import * as vscode from 'vscode';

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
 * land in it. `ignoreFocusOut` keeps it and its text until Enter or Escape, and callers wait for
 * `settled` before opening anything that takes the focus (the first-start walkthrough), so the
 * box is never opened under something that grabs the keyboard afterwards.
 */
export class TaskBox {
  private before: PromiseLike<unknown> = Promise.resolve();

  /** Anything Cortex opens on its own at start-up (the walkthrough): the box waits for it to finish opening. */
  openAfter(pending: PromiseLike<unknown>): void {
    this.before = Promise.resolve(pending).then(
      () => undefined,
      () => undefined,
    );
  }

  /** The trimmed task, or undefined on Escape. */
  async ask(folderName?: string): Promise<string | undefined> {
    await this.before;
    const where = folderName ? ` in ${folderName}` : '';
    const task = await vscode.window.showInputBox({
      title: 'Cortex: Run agent task',
      prompt: `What should the agent do${where}?${vscode.workspace.isTrusted ? '' : ' (Restricted Mode: read-only)'}`,
      placeHolder: 'e.g. Add a unit test for the date parser and make it pass',
      ignoreFocusOut: true,
      validateInput: taskProblem,
    });
    if (task === undefined || task.trim() === '') return undefined;
    return task.trim();
  }
}
