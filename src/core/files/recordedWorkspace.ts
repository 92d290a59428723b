import { realpathSync } from 'node:fs';

// A trace names the folder its run worked in, and a trace can be forged or copied: commands that
// act on a recorded run (revert, undo, resume, diff) act on the folder the person gives (the CLI's
// --workspace, else the current folder; the editor's open folder) and refuse a trace recorded for
// another one, naming both (docs/design.md, “Checkpoints and revert”).

export class WorkspaceMismatchError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'WorkspaceMismatchError';
  }
}

function canonicalPathSync(path: string): string | undefined {
  try {
    return realpathSync(path);
  } catch {
    return undefined;
  }
}

/** Throws WorkspaceMismatchError unless `recorded` and `given` are the same existing folder. */
export function checkRecordedWorkspace(recorded: string, given: string, doing = 'act on it'): void {
  const real = canonicalPathSync(given);
  if (real === undefined) throw new WorkspaceMismatchError(`the workspace ${given} does not exist`);
  const recordedReal = canonicalPathSync(recorded);
  if (recordedReal === undefined)
    throw new WorkspaceMismatchError(`the run worked in ${recorded}, which no longer exists, not in ${given}; cannot ${doing} here`);
  if (recordedReal !== real)
    throw new WorkspaceMismatchError(
      `the trace was recorded for the workspace ${recorded}, not for ${given} (the folder this command acts on); cannot ${doing} here: run it from that folder or give --workspace`,
    );
}

/** Whether two paths are the same existing folder (after symlinks). */
export function sameFolder(a: string, b: string): boolean {
  const real = canonicalPathSync(a);
  return real !== undefined && real === canonicalPathSync(b);
}
