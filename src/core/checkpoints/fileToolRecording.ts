import { lstat } from 'node:fs/promises';
import path from 'node:path';
import { displayPath, isInside } from '../tools/workspaceJail';
import type { ChangeLedger } from './changeLedger';
import { describeChange } from './changeDescription';
import type { FileChange } from './changeSchema';
import type { ContentStore } from './contentStore';
import { captureFile, type CapturedFile } from './fileCapture';

// What one file-tool call changed. The tool says which real path it is about to write (the
// `beforeWrite` hook in its context, called after its checks and before it touches anything); the
// content there is captured first, then, when the call has ended (well or not), compared with
// what is there now. Folders the write creates on the way are recorded too, so a revert removes
// them again.

export interface BeforeWriteOptions {
  /** The path is a folder to create (create_directory). */
  directory?: boolean;
}

interface Captured {
  real: string;
  relative: string;
  before: CapturedFile;
  directory: boolean;
}

async function missingFolders(realRoot: string, folder: string): Promise<string[]> {
  const missing: string[] = [];
  for (let current = folder; isInside(realRoot, current) && current !== realRoot; current = path.dirname(current)) {
    try {
      await lstat(current);
      break;
    } catch {
      missing.push(current);
    }
  }
  return missing.reverse();
}

export class FileToolRecording {
  private readonly captured = new Map<string, Captured>();
  private pending: Promise<unknown>[] = [];

  constructor(
    private readonly realRoot: string,
    private readonly store: ContentStore,
    private readonly maxBytes: number,
    private readonly ledger: ChangeLedger,
    /** Relative paths that are never recorded (the run's own trace and checkpoint folder). */
    private readonly excluded: ReadonlySet<string> = new Set(),
  ) {}

  private isExcluded(relative: string): boolean {
    for (const item of this.excluded) if (relative === item || relative.startsWith(`${item}/`)) return true;
    return false;
  }

  /** The hook the tool calls right before it writes `real` (a real path inside the workspace). */
  readonly beforeWrite = async (real: string, options: BeforeWriteOptions = {}): Promise<void> => {
    if (!isInside(this.realRoot, real) || real === this.realRoot || this.captured.has(real) || this.isExcluded(displayPath(this.realRoot, real))) return;
    const work = (async () => {
      for (const folder of await missingFolders(this.realRoot, options.directory ? real : path.dirname(real))) {
        if (!this.captured.has(folder)) this.captured.set(folder, { real: folder, relative: displayPath(this.realRoot, folder), before: { exists: false, hash: null, restorable: true }, directory: true });
      }
      if (this.captured.has(real)) return;
      const relative = displayPath(this.realRoot, real);
      const before = await captureFile(real, relative, this.store, this.maxBytes, this.ledger);
      this.captured.set(real, { real, relative, before, directory: options.directory === true });
    })();
    this.pending.push(work);
    await work;
  };

  /** The changes of the call, after it ended; also noted in the ledger. */
  async finish(callId: string): Promise<FileChange[]> {
    await Promise.allSettled(this.pending);
    const changes: FileChange[] = [];
    for (const entry of this.captured.values()) {
      const after = await captureFile(entry.real, entry.relative, this.store, this.maxBytes);
      const change = describeChange(entry.relative, entry.before, after, entry.directory);
      if (!change) continue;
      changes.push(change);
      this.ledger.note(entry.relative, callId, after.directory ? null : after.hash, after.stamp);
    }
    return changes;
  }
}
