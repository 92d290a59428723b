import { closeSync, constants, fstatSync, lstatSync, openSync, readSync, realpathSync, type Stats } from 'node:fs';
import { lstat, open, realpath, type FileHandle } from 'node:fs/promises';
import { describeFileType } from './regularFile';

// Reading a file a run left behind (its trace, its lock, its checkpoint objects) the way the file
// tools read workspace files (files/regularFile.ts): those files are input anyone with
// write access to them can replace. A FIFO would block the open (and one of libuv's four pool
// threads) for good, a link to /dev/zero would be read until memory runs out, and a huge file would
// be read whole before it is judged. So: lstat first, then a non-blocking open that does not follow
// a final link, fstat on what was opened, and a size cap checked before reading and enforced while
// reading (a file can grow between the two).

const O_NONBLOCK = constants.O_NONBLOCK ?? 0;
const O_NOFOLLOW = constants.O_NOFOLLOW ?? 0;
const CHUNK_BYTES = 64 * 1024;

/** A file that cannot be read as it is: missing, not a regular file, or too large. One line, naming it. */
export class UnreadableFileError extends Error {
  constructor(
    message: string,
    readonly code?: string,
  ) {
    super(message);
    this.name = 'UnreadableFileError';
  }
}

/** "1.0 GiB", "12 MiB", "900 bytes". */
export function formatBytes(bytes: number): string {
  if (bytes >= 1024 ** 3) return `${(bytes / 1024 ** 3).toFixed(1)} GiB`;
  if (bytes >= 1024 ** 2) return `${Math.round(bytes / 1024 ** 2)} MiB`;
  if (bytes >= 1024) return `${Math.round(bytes / 1024)} KiB`;
  return `${bytes} bytes`;
}

function fsFailure(error: unknown, what: string, file: string): UnreadableFileError {
  const code = (error as NodeJS.ErrnoException).code;
  switch (code) {
    case 'ENOENT':
      return new UnreadableFileError(`${what} ${file} does not exist`, code);
    case 'EACCES':
    case 'EPERM':
      return new UnreadableFileError(`${what} ${file} is not accessible (permission denied)`, code);
    case 'ENOTDIR':
      return new UnreadableFileError(`${what} ${file} is not under a directory (a parent is a file)`, code);
    case 'ELOOP':
      return new UnreadableFileError(`${what} ${file} is a symbolic link (or became one while it was opened); it was not read`, code);
    case 'ENXIO':
      return new UnreadableFileError(`${what} ${file} is a FIFO, socket or device, not a regular file; it was not read`, code);
    default:
      return new UnreadableFileError(`${what} ${file} cannot be read: ${(error as Error).message}`, code);
  }
}

export interface RegularOpenOptions {
  /** What the file is, for messages ("trace file", "checkpoint object"). */
  what: string;
  /** Largest size read. */
  maxBytes: number;
  /** Follow links in the given path (the person named it); else a link is refused. The final file must be regular either way. */
  followLinks?: boolean;
  /** Open for reading and writing (to repair a trace's last line). */
  write?: boolean;
}

/** Opens a regular file without ever blocking; throws UnreadableFileError. The caller closes `fd`. */
export function openRegularSync(file: string, options: RegularOpenOptions): { fd: number; size: number; path: string } {
  let target = file;
  let stats: Stats;
  try {
    if (options.followLinks) target = realpathSync(file);
    stats = lstatSync(target);
  } catch (error) {
    throw fsFailure(error, options.what, file);
  }
  if (!stats.isFile()) throw new UnreadableFileError(`${options.what} ${file} is ${describeFileType(stats)}, not a regular file; it was not read`);
  const size = checkSize(stats.size, file, options);
  let fd: number;
  try {
    fd = openSync(target, (options.write ? constants.O_RDWR : constants.O_RDONLY) | O_NONBLOCK | O_NOFOLLOW);
  } catch (error) {
    throw fsFailure(error, options.what, file);
  }
  try {
    const opened = fstatSync(fd);
    if (!opened.isFile()) throw new UnreadableFileError(`${options.what} ${file} is ${describeFileType(opened)}, not a regular file; it was not read`);
    return { fd, size: Math.max(size, checkSize(opened.size, file, options)), path: target };
  } catch (error) {
    closeSync(fd);
    throw error;
  }
}

function checkSize(size: number, file: string, options: RegularOpenOptions): number {
  if (size > options.maxBytes)
    throw new UnreadableFileError(
      `${options.what} ${file} is ${formatBytes(size)}, more than the ${formatBytes(options.maxBytes)} one may hold; it was not read`,
    );
  return size;
}

function overCap(file: string, options: RegularOpenOptions): UnreadableFileError {
  return new UnreadableFileError(`${options.what} ${file} grew past the ${formatBytes(options.maxBytes)} one may hold while it was read; it was not read`);
}

/** The whole of a small regular file (a lock), or throws UnreadableFileError. */
export function readRegularSync(file: string, options: RegularOpenOptions): Buffer {
  const { fd } = openRegularSync(file, options);
  try {
    const chunks: Buffer[] = [];
    let total = 0;
    for (;;) {
      const chunk = Buffer.allocUnsafe(Math.min(CHUNK_BYTES, options.maxBytes + 1 - total));
      const read = readSync(fd, chunk, 0, chunk.length, total);
      if (read === 0) break;
      chunks.push(chunk.subarray(0, read));
      total += read;
      if (total > options.maxBytes) throw overCap(file, options);
    }
    return Buffer.concat(chunks, total);
  } finally {
    closeSync(fd);
  }
}

/**
 * Opens a regular file without ever blocking, asynchronously; undefined when it does not exist.
 * Throws UnreadableFileError. The caller closes the handle.
 */
export async function openRegular(
  file: string,
  options: RegularOpenOptions,
  flags = constants.O_RDONLY,
): Promise<{ handle: FileHandle; size: number } | undefined> {
  let target = file;
  let stats: Stats;
  try {
    if (options.followLinks) target = await realpath(file);
    stats = await lstat(target);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw fsFailure(error, options.what, file);
  }
  if (!stats.isFile()) throw new UnreadableFileError(`${options.what} ${file} is ${describeFileType(stats)}, not a regular file; it was not read`);
  checkSize(stats.size, file, options);
  let handle: FileHandle;
  try {
    handle = await open(target, flags | O_NONBLOCK | O_NOFOLLOW);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw fsFailure(error, options.what, file);
  }
  try {
    const opened = await handle.stat();
    if (!opened.isFile()) throw new UnreadableFileError(`${options.what} ${file} is ${describeFileType(opened)}, not a regular file; it was not read`);
    return { handle, size: Math.max(stats.size, checkSize(opened.size, file, options)) };
  } catch (error) {
    await handle.close();
    throw error;
  }
}

/** A regular file's bytes, asynchronously; undefined when it does not exist. Links are followed only with `followLinks`. */
export async function readRegular(file: string, options: RegularOpenOptions): Promise<Buffer | undefined> {
  const opened = await openRegular(file, options);
  if (!opened) return undefined;
  const { handle } = opened;
  try {
    const chunks: Buffer[] = [];
    let total = 0;
    for (;;) {
      const chunk = Buffer.allocUnsafe(Math.min(CHUNK_BYTES * 16, options.maxBytes + 1 - total));
      const { bytesRead } = await handle.read(chunk, 0, chunk.length, total);
      if (bytesRead === 0) break;
      chunks.push(chunk.subarray(0, bytesRead));
      total += bytesRead;
      if (total > options.maxBytes) throw overCap(file, options);
    }
    return Buffer.concat(chunks, total);
  } finally {
    await handle.close();
  }
}

/**
 * The lines of a regular file, read in chunks (never the whole file at once), each with whether
 * it ended with a newline. Enforces the cap while reading. Nothing waits on the disk on the
 * caller's thread.
 */
export async function* readLines(file: string, options: RegularOpenOptions): AsyncGenerator<{ text: string; complete: boolean }> {
  const opened = await openRegular(file, options);
  if (!opened) throw fsFailure(Object.assign(new Error('missing'), { code: 'ENOENT' }), options.what, file);
  const { handle } = opened;
  try {
    const lines = new LineSplitter();
    let total = 0;
    const chunk = Buffer.allocUnsafe(CHUNK_BYTES * 16);
    for (;;) {
      const { bytesRead } = await handle.read(chunk, 0, chunk.length, total);
      if (bytesRead === 0) break;
      total += bytesRead;
      if (total > options.maxBytes) throw overCap(file, options);
      yield* lines.push(chunk.subarray(0, bytesRead));
    }
    yield* lines.end();
  } finally {
    await handle.close();
  }
}

/** Cuts bytes read in chunks into lines (UTF-8), each with whether it ended with a newline. */
class LineSplitter {
  private pending: Buffer[] = [];

  *push(read: Buffer): Generator<{ text: string; complete: boolean }> {
    let data = read;
    for (let newline = data.indexOf(0x0a); newline !== -1; newline = data.indexOf(0x0a)) {
      this.pending.push(data.subarray(0, newline));
      yield { text: Buffer.concat(this.pending).toString('utf8'), complete: true };
      this.pending = [];
      data = data.subarray(newline + 1);
    }
    // The caller's buffer is reused: keep a copy of the unfinished line.
    if (data.length > 0) this.pending.push(Buffer.from(data));
  }

  *end(): Generator<{ text: string; complete: boolean }> {
    if (this.pending.length > 0) yield { text: Buffer.concat(this.pending).toString('utf8'), complete: false };
    this.pending = [];
  }
}

/**
 * Appends `text` to an existing regular file (a trace a revert is recorded in): opened without
 * blocking, following only the links of the path the person named, and refused unless fstat says
 * it is a regular file, so a FIFO swapped in since it was read cannot hang the append.
 */
export async function appendRegular(file: string, text: string, what: string): Promise<void> {
  const opened = await openRegular(file, { what, maxBytes: Number.MAX_SAFE_INTEGER, followLinks: true }, constants.O_WRONLY | constants.O_APPEND).catch(
    (error: unknown) => {
      // Said as what it is: an append that did not happen.
      if (error instanceof UnreadableFileError)
        throw new UnreadableFileError(error.message.replace(/; it was not read$/, '; nothing was written to it'), error.code);
      throw error;
    },
  );
  if (!opened) throw fsFailure(Object.assign(new Error('missing'), { code: 'ENOENT' }), what, file);
  try {
    await opened.handle.writeFile(text);
  } finally {
    await opened.handle.close();
  }
}
