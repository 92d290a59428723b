import { lstat, readFile } from 'node:fs/promises';
import { hashFileStreaming, type ContentStore } from './contentStore';
import type { ChangeLedger } from './changeLedger';
import type { FileStamp } from './workspaceScan';

// Reading one file's state for a change record: absent, a folder, or a file with its hash, its
// bytes (when small enough to keep) and whether a revert could bring it back.

export interface CapturedFile {
  exists: boolean;
  directory?: boolean;
  /** sha256 of the content; null when absent or when it could not be read. */
  hash: string | null;
  /** The bytes, when within the size limit (for line counts and the content store). */
  bytes?: Buffer;
  /** The content is in the store (or the file is absent): a revert can restore this state. */
  restorable: boolean;
  note?: string;
  stamp?: FileStamp;
}

export function stampOf(stats: { size: number; mtimeMs: number; ctimeMs: number; ino: number; mode: number }): FileStamp {
  return { size: stats.size, mtimeMs: stats.mtimeMs, ctimeMs: stats.ctimeMs, ino: stats.ino, mode: stats.mode };
}

export function tooLargeNote(size: number, maxBytes: number): string {
  return `${size.toLocaleString('en-US')} bytes, over cortex.checkpoints.maxFileBytes (${maxBytes.toLocaleString('en-US')}): recorded, but its content was not saved`;
}

/** A file's state as read from disk, before anything is hashed or stored. */
export interface RawFile {
  real: string;
  exists: boolean;
  directory?: boolean;
  /** Its bytes, when within the size limit. */
  bytes?: Buffer;
  stamp?: FileStamp;
  /** Why it cannot be saved (too large, not a regular file, unreadable). */
  note?: string;
  /** The hash of a file too large to keep, read as a stream when the state was read. */
  largeHash?: string | null;
}

/** Reads the state of `real` (cheap: one lstat and, for a file within `maxBytes`, one read). */
export async function readFileState(real: string, maxBytes: number): Promise<RawFile> {
  let stats;
  try {
    stats = await lstat(real);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return { real, exists: false };
    throw error;
  }
  if (stats.isDirectory()) return { real, exists: true, directory: true };
  if (!stats.isFile()) return { real, exists: true, note: 'not a regular file' };
  const stamp = stampOf(stats);
  // Hashed now: by the time the rest is settled, the file may hold something else.
  if (stats.size > maxBytes) return { real, exists: true, stamp, largeHash: (await hashFileStreaming(real)) ?? null, note: tooLargeNote(stats.size, maxBytes) };
  try {
    return { real, exists: true, bytes: await readFile(real), stamp };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { real, exists: false };
    return { real, exists: true, stamp, note: `could not be read: ${(error as Error).message}` };
  }
}

/**
 * Hashes and stores what `readFileState` read. A content the run recorded itself, unchanged
 * since (same stamp in the ledger), is neither hashed nor stored again.
 */
export async function settleFile(raw: RawFile, relative: string, store: ContentStore, ledger?: ChangeLedger): Promise<CapturedFile> {
  if (!raw.exists) return { exists: false, hash: null, restorable: true };
  if (raw.directory) return { exists: true, directory: true, hash: null, restorable: true };
  if (raw.bytes)
    return {
      exists: true,
      hash: await store.put(raw.bytes, raw.stamp && ledger?.knownHash(relative, raw.stamp)),
      bytes: raw.bytes,
      restorable: true,
      stamp: raw.stamp,
    };
  return { exists: true, hash: raw.largeHash ?? null, restorable: false, note: raw.note, stamp: raw.stamp };
}

/** The current state of `real`, read, hashed and stored (files within `maxBytes`). */
export async function captureFile(real: string, relative: string, store: ContentStore, maxBytes: number, ledger?: ChangeLedger): Promise<CapturedFile> {
  return settleFile(await readFileState(real, maxBytes), relative, store, ledger);
}
