import { mkdirSync, statSync, type Stats } from 'node:fs';
import { mkdir, stat } from 'node:fs/promises';
import { dirname } from 'node:path';

// Creates a folder and its missing parents, one level at a time. Node's own recursive mkdir (sync
// and async, Node 20 and 24) never returns for a path under /proc: procfs answers ENOENT to the
// mkdir while the parent exists, and Node tries again forever. A user's `--trace /proc/x/run.jsonl`
// would hang the CLI at full CPU; here it fails with the system's error for the first missing level.
// makeFolders for the asynchronous callers (the extension host's thread must not wait on a slow
// disk), makeFoldersSync for the few that must finish before they go on (a trace or a lock opened
// at the start of a run).

/** Creates `folder` and any missing parents (with `mode`), like `mkdir -p`; throws the first error. */
export async function makeFolders(folder: string, mode?: number): Promise<void> {
  const missing: string[] = [];
  for (let at = folder; ; at = dirname(at)) {
    const stats = await stat(at).catch(missingAsUndefined);
    if (stats) {
      if (!stats.isDirectory()) throw notADirectory(folder, at);
      break;
    }
    missing.push(at);
    if (dirname(at) === at) break;
  }
  for (const level of missing.reverse()) {
    try {
      await mkdir(level, mode === undefined ? undefined : { mode });
    } catch (error) {
      // Made meanwhile by someone else: fine, as with mkdir -p.
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST' || !(await stat(level).catch(missingAsUndefined))?.isDirectory()) throw error;
    }
  }
}

/** makeFolders, synchronously. */
export function makeFoldersSync(folder: string, mode?: number): void {
  const missing: string[] = [];
  for (let at = folder; ; at = dirname(at)) {
    const stats = statSync(at, { throwIfNoEntry: false });
    if (stats) {
      if (!stats.isDirectory()) throw notADirectory(folder, at);
      break;
    }
    missing.push(at);
    if (dirname(at) === at) break;
  }
  for (const level of missing.reverse()) {
    try {
      mkdirSync(level, mode === undefined ? undefined : { mode });
    } catch (error) {
      // Made meanwhile by someone else: fine, as with mkdir -p.
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST' || !statSync(level, { throwIfNoEntry: false })?.isDirectory()) throw error;
    }
  }
}

function missingAsUndefined(error: NodeJS.ErrnoException): Stats | undefined {
  if (error.code === 'ENOENT') return undefined;
  throw error;
}

function notADirectory(folder: string, at: string): Error {
  return Object.assign(new Error(`ENOTDIR: not a directory, mkdir '${folder}'`), { code: 'ENOTDIR', path: at });
}
