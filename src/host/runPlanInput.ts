// The input and the confirmation of the cortex_runVerifiedPlan tool (docs/design.md, “Cortex as a
// tool of other agents”), without vscode so they are tested in plain Node.

const MAX_TASK = 20_000;
const MAX_SCOPE = 1_000;

export interface RunPlanInput {
  task: string;
  scope?: string;
}

/** The tool's input, or an error a model can act on (VS Code validated the schema; a caller may not have). */
export function parseRunPlanInput(input: unknown): RunPlanInput {
  const value = (typeof input === 'object' && input !== null ? input : {}) as Record<string, unknown>;
  const task = typeof value.task === 'string' ? value.task.trim() : '';
  if (!task) throw new Error('The input needs "task": the coding task for Cortex, in words (for example "Add a --verbose flag to the CLI and test it").');
  if (task.length > MAX_TASK) throw new Error(`"task" is ${task.length} characters; give Cortex a task of at most ${MAX_TASK} characters.`);
  if (value.scope !== undefined && typeof value.scope !== 'string')
    throw new Error('"scope" must be a string naming the files or folders the task is about (for example "src/parser").');
  const scope = typeof value.scope === 'string' ? value.scope.trim() : '';
  if (scope.length > MAX_SCOPE) throw new Error(`"scope" is ${scope.length} characters; name the files or folders in at most ${MAX_SCOPE}.`);
  return scope ? { task, scope } : { task };
}

/** The task Cortex plans: the scope, when given, is told to the planner as where the work belongs. */
export function taskWithScope(input: RunPlanInput): string {
  return input.scope ? `${input.task}\n\nScope: keep the work within ${input.scope} (workspace-relative).` : input.task;
}

export function quoted(text: string, max = 200): string {
  const line = text.replace(/\s+/g, ' ');
  return `“${line.length > max ? `${line.slice(0, max - 1)}…` : line}”`;
}

/** What the person is asked before the run starts (VS Code shows it in the chat, or as a dialog for a call from outside a chat). */
export function runPlanConfirmation(input: RunPlanInput, folder: string | undefined, trusted: boolean): { title: string; message: string } {
  return {
    title: 'Run a verified Cortex plan?',
    message: [
      `Cortex will plan ${quoted(input.task)}${input.scope ? ` within ${input.scope}` : ''} as checked steps in ${folder ?? 'the open folder'} and carry them out in its panel.`,
      trusted
        ? 'Every file change and command still goes through Cortex’s approvals and policy.'
        : 'This workspace is in Restricted Mode: Cortex only reads and searches files.',
    ].join(' '),
  };
}
