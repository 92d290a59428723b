import { unlinkSync } from 'node:fs';
import { open, stat, unlink } from 'node:fs/promises';
import { readRegular, readRegularSync, UnreadableFileError } from '../files/regularRead';
import { hostname } from 'node:os';
import { dirname } from 'node:path';
import { makeFolders } from '../files/makeFolders';
import { ownStartTicks, processIsAlive } from './processState';

// Only one process drives a run (docs/design.md, “Resuming a run”): the live run and a resume take
// `<trace>.lock`, created with O_EXCL and holding who took it. A second driver is refused with the
// holder's process id and host; a lock whose holder died on this machine is taken over.

export interface LockHolder {
  pid: number;
  host: string;
  /** ms since the epoch. */
  startedAt: number;
  /** The holder process's start time (Linux clock ticks since boot): tells a reused process id. */
  pidStart?: string;
}

/** A lock holds one short JSON line; anything larger is not a lock. */
const MAX_LOCK_BYTES = 4096;

/** The lock's text, read as a regular file only (a FIFO or device put there must not block or flood the reader). */
function readLockTextSync(file: string): string {
  return readRegularSync(file, { what: 'run lock', maxBytes: MAX_LOCK_BYTES }).toString('utf8');
}

/** A lock file that is unreadable this long after it was written is left over, not being written. */
const HALF_WRITTEN_GRACE_MS = 10_000;

export class RunLockedError extends Error {
  constructor(
    message: string,
    readonly lockFile: string,
    readonly holder?: LockHolder,
  ) {
    super(message);
    this.name = 'RunLockedError';
  }
}

export interface RunLock {
  readonly file: string;
  readonly holder: LockHolder;
  /** The dead holder this lock was taken over from, if it was. */
  readonly recoveredFrom?: LockHolder;
  /** Removes the lock file if it is still this lock's; safe to call more than once. */
  release(): Promise<void>;
  /** release, for a process that is exiting (no later turn of the event loop). */
  releaseSync(): void;
}

export interface LockOptions {
  pid?: number;
  host?: string;
  now?: () => number;
  /** Whether a process of this machine is alive and is the holder (default: processIsAlive). */
  isAlive?: (pid: number, pidStart?: string) => boolean;
}

export function lockFileFor(traceFile: string): string {
  return `${traceFile}.lock`;
}

function parseHolder(text: string): LockHolder | undefined {
  try {
    const value = JSON.parse(text) as Partial<LockHolder>;
    if (Number.isInteger(value.pid) && (value.pid as number) > 0 && typeof value.host === 'string' && typeof value.startedAt === 'number')
      return { pid: value.pid!, host: value.host, startedAt: value.startedAt, ...(typeof value.pidStart === 'string' ? { pidStart: value.pidStart } : {}) };
  } catch {
    // Not a lock this code wrote (or half written): the caller decides.
  }
  return undefined;
}

/** Who holds the lock of `traceFile`, or undefined when there is no lock (or it cannot be read). */
export async function readLockHolder(traceFile: string): Promise<LockHolder | undefined> {
  try {
    return parseHolder(await readLockText(lockFileFor(traceFile)));
  } catch {
    return undefined;
  }
}

export function describeHolder(holder: LockHolder): string {
  return `process ${holder.pid} on ${holder.host} (since ${new Date(holder.startedAt).toISOString()})`;
}

async function tryCreate(file: string, holder: LockHolder): Promise<boolean> {
  let handle;
  try {
    handle = await open(file, 'wx', 0o644);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw new RunLockedError(`cannot create the run lock ${file}: ${(error as Error).message}`, file);
  }
  try {
    await handle.writeFile(`${JSON.stringify(holder)}\n`);
  } finally {
    await handle.close();
  }
  return true;
}

/** The lock's text, read as a regular file only (a FIFO or device put there must not block or flood the reader). */
async function readLockText(file: string): Promise<string> {
  const bytes = await readRegular(file, { what: 'run lock', maxBytes: MAX_LOCK_BYTES });
  if (!bytes) throw new UnreadableFileError(`run lock ${file} does not exist`, 'ENOENT');
  return bytes.toString('utf8');
}

/** Removes `file` only while it still holds exactly `text` (another process may have replaced it). */
async function removeIfUnchanged(file: string, text: string): Promise<void> {
  try {
    if ((await readLockText(file)) === text) await unlink(file);
  } catch {
    // Already gone.
  }
}

/** removeIfUnchanged, for a process that is exiting. */
function removeIfUnchangedSync(file: string, text: string): void {
  try {
    if (readLockTextSync(file) === text) unlinkSync(file);
  } catch {
    // Already gone.
  }
}

/**
 * Takes the lock of the run whose trace is `traceFile`. Throws RunLockedError naming the holder
 * when a live process (or one on another host, which cannot be checked) holds it. Asynchronous:
 * in the editor the lock, in the user's storage, is taken on the extension host's thread.
 */
export async function acquireRunLock(traceFile: string, options: LockOptions = {}): Promise<RunLock> {
  const file = lockFileFor(traceFile);
  const pidStart = options.pid === undefined ? ownStartTicks() : undefined;
  const me: LockHolder = {
    pid: options.pid ?? process.pid,
    host: options.host ?? hostname(),
    startedAt: (options.now ?? Date.now)(),
    ...(pidStart ? { pidStart } : {}),
  };
  const isAlive = options.isAlive ?? processIsAlive;
  let recoveredFrom: LockHolder | undefined;
  // A new run's trace folder may not exist yet (the trace writer would make it too).
  await makeFolders(dirname(file));
  for (let attempt = 0; attempt < 3; attempt++) {
    if (await tryCreate(file, me)) return ownLock(file, me, recoveredFrom);
    let text: string;
    try {
      text = await readLockText(file);
    } catch (error) {
      if (error instanceof UnreadableFileError && error.code !== 'ENOENT')
        throw new RunLockedError(`${error.message}; if no process drives the run, delete it and try again`, file);
      continue; // Released between our attempt and the read: try again.
    }
    const holder = parseHolder(text);
    if (!holder) {
      const stats = await stat(file).catch(() => undefined);
      if (!stats) continue;
      if (Date.now() - stats.mtimeMs < HALF_WRITTEN_GRACE_MS)
        throw new RunLockedError(`another process is taking the run lock ${file} right now; try again in a few seconds`, file);
      await removeIfUnchanged(file, text);
      continue;
    }
    if (holder.host !== me.host) {
      throw new RunLockedError(
        `the run is driven by ${describeHolder(holder)}, another machine; if that process is gone, delete ${file} and try again`,
        file,
        holder,
      );
    }
    if (isAlive(holder.pid, holder.pidStart)) {
      throw new RunLockedError(`the run is already driven by ${describeHolder(holder)}; only one process may drive a run (lock ${file})`, file, holder);
    }
    // Its holder died without releasing it (killed, crashed): the lock is ours to take.
    recoveredFrom = holder;
    await removeIfUnchanged(file, text);
  }
  throw new RunLockedError(`could not take the run lock ${file}: other processes keep taking it`, file);
}

function ownLock(file: string, holder: LockHolder, recoveredFrom: LockHolder | undefined): RunLock {
  const text = `${JSON.stringify(holder)}\n`;
  let released = false;
  return {
    file,
    holder,
    recoveredFrom,
    release: async () => {
      if (released) return;
      released = true;
      await removeIfUnchanged(file, text);
    },
    releaseSync: () => {
      if (released) return;
      released = true;
      removeIfUnchangedSync(file, text);
    },
  };
}
