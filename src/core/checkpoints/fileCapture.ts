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

/**
 * The current state of `real` (`relative` in the workspace): files within `maxBytes` are read,
 * hashed and stored; larger ones are hashed as a stream and not stored. A known stamp in the
 * ledger skips reading a file the run wrote itself.
 */
export async function captureFile(real: string, relative: string, store: ContentStore, maxBytes: number, ledger?: ChangeLedger): Promise<CapturedFile> {
  let stats;
  try {
    stats = await lstat(real);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return { exists: false, hash: null, restorable: true };
    throw error;
  }
  if (stats.isDirectory()) return { exists: true, directory: true, hash: null, restorable: true };
  if (!stats.isFile()) return { exists: true, hash: null, restorable: false, note: 'not a regular file' };
  const stamp = stampOf(stats);
  if (stats.size > maxBytes) {
    return { exists: true, hash: (await hashFileStreaming(real)) ?? null, restorable: false, note: tooLargeNote(stats.size, maxBytes), stamp };
  }
  let bytes: Buffer;
  try {
    bytes = await readFile(real);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { exists: false, hash: null, restorable: true };
    return { exists: true, hash: null, restorable: false, note: `could not be read: ${(error as Error).message}` };
  }
  // A content the run recorded itself, unchanged since (same stamp), is neither hashed nor stored again.
  const hash = await store.put(bytes, ledger?.knownHash(relative, stamp));
  return { exists: true, hash, bytes, restorable: true, stamp };
}
