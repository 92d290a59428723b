import { lstat } from 'node:fs/promises';
import path from 'node:path';
import { displayPath, isInside } from '../files/workspaceJail';
import type { ChangeLedger } from './changeLedger';
import { describeChange } from './changeDescription';
import type { FileChange } from '../plan/changeSchema';
import type { ContentStore } from './contentStore';
import { readFileState, settleFile, type RawFile } from './fileCapture';

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
  before: RawFile;
  directory: boolean;
}

/** What is on disk right after the call, read before anything else can write there. */
export interface CollectedAfter {
  entry: Captured;
  after: RawFile;
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
        if (!this.captured.has(folder))
          this.captured.set(folder, { real: folder, relative: displayPath(this.realRoot, folder), before: { real: folder, exists: false }, directory: true });
      }
      if (this.captured.has(real)) return;
      // Only read here: hashing and storing wait until the call has returned.
      const before = await readFileState(real, this.maxBytes);
      this.captured.set(real, { real, relative: displayPath(this.realRoot, real), before, directory: options.directory === true });
    })();
    this.pending.push(work);
    await work;
  };

  /** Reads what the call left at every path it was about to write (right after the call). */
  async collect(): Promise<CollectedAfter[]> {
    await Promise.allSettled(this.pending);
    const collected: CollectedAfter[] = [];
    for (const entry of this.captured.values()) collected.push({ entry, after: await readFileState(entry.real, this.maxBytes) });
    return collected;
  }

  /** Hashes, stores and describes what `collect` read; notes each change in the ledger. */
  async changes(callId: string, collected: readonly CollectedAfter[]): Promise<FileChange[]> {
    const changes: FileChange[] = [];
    for (const { entry, after: raw } of collected) {
      const before = await settleFile(entry.before, entry.relative, this.store, this.ledger);
      const after = await settleFile(raw, entry.relative, this.store);
      const change = describeChange(entry.relative, before, after, entry.directory);
      if (!change) continue;
      changes.push(change);
      this.ledger.note(entry.relative, callId, after.directory ? null : after.hash, after.stamp);
    }
    return changes;
  }
}
