import { realpath } from 'node:fs/promises';

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

// Asynchronous: in the editor these run on the extension host's thread, and a workspace can be on a
// slow or network disk.
function canonicalPath(path: string): Promise<string | undefined> {
  return realpath(path).catch(() => undefined);
}

/** Throws WorkspaceMismatchError unless `recorded` and `given` are the same existing folder. */
export async function checkRecordedWorkspace(recorded: string, given: string, doing = 'act on it'): Promise<void> {
  const real = await canonicalPath(given);
  if (real === undefined) throw new WorkspaceMismatchError(`the workspace ${given} does not exist`);
  const recordedReal = await canonicalPath(recorded);
  if (recordedReal === undefined)
    throw new WorkspaceMismatchError(`the run worked in ${recorded}, which no longer exists, not in ${given}; cannot ${doing} here`);
  if (recordedReal !== real)
    throw new WorkspaceMismatchError(
      `the trace was recorded for the workspace ${recorded}, not for ${given} (the folder this command acts on); cannot ${doing} here: run it from that folder or give --workspace`,
    );
}

/** Whether two paths are the same existing folder (after symlinks). */
export async function sameFolder(a: string, b: string): Promise<boolean> {
  const [real, other] = await Promise.all([canonicalPath(a), canonicalPath(b)]);
  return real !== undefined && real === other;
}
