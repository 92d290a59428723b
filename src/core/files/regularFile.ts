import { constants, type Stats } from 'node:fs';
import { lstat, open, type FileHandle } from 'node:fs/promises';
import { ToolError } from './toolError';
import { describeFsError } from './fsErrors';

// File tools act on regular files only. Opening a FIFO blocks until the other end shows up, and it
// blocks one of libuv's four pool threads: after four such opens no file I/O of the process
// completes (the trace is never flushed, the process never exits). So the type is checked with
// lstat before any open, and the open itself is non-blocking and does not follow a final symlink,
// with fstat deciding again on what was really opened (a FIFO swapped in after the lstat).

const O_NONBLOCK = constants.O_NONBLOCK ?? 0;
const O_NOFOLLOW = constants.O_NOFOLLOW ?? 0;

const OPEN_FLAGS = {
  read: constants.O_RDONLY,
  write: constants.O_WRONLY | constants.O_CREAT,
  update: constants.O_RDWR,
} as const;

export type OpenMode = keyof typeof OPEN_FLAGS;

/** What a non-regular file is, for messages. */
export function describeFileType(stats: Stats): string {
  if (stats.isDirectory()) return 'a directory';
  if (stats.isFIFO()) return 'a FIFO (named pipe)';
  if (stats.isSocket()) return 'a socket';
  if (stats.isCharacterDevice()) return 'a character device';
  if (stats.isBlockDevice()) return 'a block device';
  if (stats.isSymbolicLink()) return 'a symbolic link';
  return 'not a regular file';
}

function notRegular(shownPath: string, stats: Stats, directoryHint: string): ToolError {
  if (stats.isDirectory()) return new ToolError(`'${shownPath}' is a directory${directoryHint}`);
  return new ToolError(`'${shownPath}' is ${describeFileType(stats)}, not a regular file; file tools only read and write regular files`);
}

export interface RegularFileOptions {
  /** Appended to "'x' is a directory", e.g. "; use list_directory". */
  directoryHint?: string;
  /** A missing file is fine (write creates it): returns undefined instead of throwing. */
  allowMissing?: boolean;
}

/** lstat of a (jailed, real) path that must be a regular file, or missing when allowed. Never opens it. */
export async function lstatRegularFile(realPath: string, shownPath: string, options: RegularFileOptions = {}): Promise<Stats | undefined> {
  let stats: Stats;
  try {
    stats = await lstat(realPath);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (options.allowMissing && code === 'ENOENT') return undefined;
    throw describeFsError(error, shownPath);
  }
  if (!stats.isFile()) throw notRegular(shownPath, stats, options.directoryHint ?? '');
  return stats;
}

/**
 * Opens a regular file without ever blocking: lstat first, then a non-blocking, no-follow open,
 * then fstat on the handle. The caller closes the handle.
 */
export async function openRegularFile(
  realPath: string,
  shownPath: string,
  mode: OpenMode,
  options: RegularFileOptions = {},
): Promise<{ handle: FileHandle; stats: Stats }> {
  await lstatRegularFile(realPath, shownPath, { ...options, allowMissing: mode === 'write' });
  return openVerified(realPath, shownPath, mode, options.directoryHint ?? '');
}

/**
 * The open half of `openRegularFile`, on its own for what can change after the lstat: never
 * blocks (a FIFO opened for reading opens at once, for writing fails with ENXIO), never follows a
 * final symlink, and refuses whatever fstat says is not a regular file.
 */
export async function openVerified(realPath: string, shownPath: string, mode: OpenMode, directoryHint = ''): Promise<{ handle: FileHandle; stats: Stats }> {
  let handle: FileHandle;
  try {
    handle = await open(realPath, OPEN_FLAGS[mode] | O_NONBLOCK | O_NOFOLLOW, 0o666);
  } catch (error) {
    throw openFailure(error, shownPath);
  }
  try {
    const stats = await handle.stat();
    if (!stats.isFile()) throw notRegular(shownPath, stats, directoryHint);
    return { handle, stats };
  } catch (error) {
    await handle.close().catch(() => undefined);
    throw error;
  }
}

function openFailure(error: unknown, shownPath: string): Error {
  const code = (error as NodeJS.ErrnoException).code;
  // ENXIO: a FIFO without a reader (opened for writing); ELOOP: the name became a symlink.
  if (code === 'ENXIO') return new ToolError(`'${shownPath}' is a FIFO, socket or device, not a regular file; file tools only read and write regular files`);
  if (code === 'ELOOP') return new ToolError(`'${shownPath}' became a symbolic link while it was being opened; it was not touched`);
  return describeFsError(error, shownPath);
}

const READ_CHUNK_BYTES = 64 * 1024;

/** Reads at most `maxBytes` (+1 to tell "more"): the bytes and whether the file had more. */
export async function readAtMost(handle: FileHandle, maxBytes: number): Promise<{ buffer: Buffer; truncated: boolean }> {
  const chunks: Buffer[] = [];
  let total = 0;
  for (let want = nextRead(maxBytes, total); want > 0; want = nextRead(maxBytes, total)) {
    const chunk = Buffer.allocUnsafe(want);
    const { bytesRead } = await handle.read(chunk, 0, want, total);
    if (bytesRead === 0) break;
    chunks.push(chunk.subarray(0, bytesRead));
    total += bytesRead;
  }
  return atMost(chunks, total, maxBytes);
}

function nextRead(maxBytes: number, total: number): number {
  return Math.min(READ_CHUNK_BYTES, maxBytes + 1 - total);
}

function atMost(chunks: Buffer[], total: number, maxBytes: number): { buffer: Buffer; truncated: boolean } {
  const buffer = Buffer.concat(chunks, total);
  return total > maxBytes ? { buffer: buffer.subarray(0, maxBytes), truncated: true } : { buffer, truncated: false };
}

/** Replaces the whole content of an open file with `content`. */
export async function replaceContent(handle: FileHandle, content: string): Promise<void> {
  const data = Buffer.from(content, 'utf8');
  await handle.truncate(0);
  for (let written = 0; written < data.length;) {
    const { bytesWritten } = await handle.write(data, written, data.length - written, written);
    written += bytesWritten;
  }
}
