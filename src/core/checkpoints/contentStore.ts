import { createHash, randomBytes } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdir, rename, stat, writeFile } from 'node:fs/promises';
import { readRegular, UnreadableFileError } from '../files/regularRead';
import path from 'node:path';
import { makeFolders } from '../files/makeFolders';

// Content-addressed storage of file contents, outside the workspace: each content is stored once,
// under the sha256 of its bytes (objects/ab/cdef…). An object is written once with an exclusive
// create (a second writer of the same content finds it there, which is fine: the name is the
// content). A write cut short by a crash would leave a wrong object behind, so every read checks
// the bytes against their name, and a wrong object counts as missing and is replaced by the next
// put of that content. The folder is input like any file (it can be written by others, or be a
// copy): an object is read only as a regular file that is not a link, without blocking, and at most
// `maxObjectBytes`; anything else is a CheckpointObjectError of one clear line.

/** Objects larger than this are not read (cortex.checkpoints.maxFileBytes can raise it for a run). */
export const DEFAULT_MAX_OBJECT_BYTES = 64 * 1024 * 1024;

/** An object that is not a regular file, or too large: the checkpoint folder was tampered with. */
export class CheckpointObjectError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CheckpointObjectError';
  }
}

export const HASH_PATTERN = /^[0-9a-f]{64}$/;

/** sha256 of `bytes`, as 64 hex digits. */
export function hashBytes(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/** sha256 of a file read as a stream (for files too large to hold), or undefined when it is gone. */
export async function hashFileStreaming(file: string): Promise<string | undefined> {
  const hash = createHash('sha256');
  try {
    for await (const chunk of createReadStream(file)) hash.update(chunk as Buffer);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  return hash.digest('hex');
}

export class ContentStore {
  private readonly objects: string;
  /** Hashes known to be stored, so a repeated content costs no file system call. */
  private readonly known = new Set<string>();
  /** Object folders known to exist. */
  private readonly folders = new Set<string>();

  constructor(
    readonly dir: string,
    private readonly maxObjectBytes = DEFAULT_MAX_OBJECT_BYTES,
  ) {
    this.objects = path.join(dir, 'objects');
  }

  pathOf(hash: string): string {
    if (!HASH_PATTERN.test(hash)) throw new Error(`not a content hash: ${JSON.stringify(hash)}`);
    return path.join(this.objects, hash.slice(0, 2), hash.slice(2));
  }

  /** Stores `bytes` (once) and returns their hash. */
  async put(bytes: Uint8Array, knownHash?: string): Promise<string> {
    const hash = knownHash ?? hashBytes(bytes);
    if (this.known.has(hash)) return hash;
    const target = this.pathOf(hash);
    const folder = path.dirname(target);
    if (!this.folders.has(folder)) {
      await mkdir(folder, { recursive: true, mode: 0o700 });
      this.folders.add(folder);
    }
    try {
      await writeFile(target, bytes, { flag: 'wx', mode: 0o600 });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      // Stored before (by this or another process): keep it unless it is not what its name says.
      const existing = await this.read(target).catch(() => undefined);
      if (!existing || hashBytes(existing) !== hash) {
        const temp = `${target}.${randomBytes(6).toString('hex')}.tmp`;
        await writeFile(temp, bytes, { mode: 0o600 });
        await rename(temp, target);
      }
    }
    this.known.add(hash);
    return hash;
  }

  async has(hash: string): Promise<boolean> {
    return this.known.has(hash) || exists(this.pathOf(hash));
  }

  /** The stored bytes, or undefined when this content was never stored (or its object is damaged). */
  /** Throws CheckpointObjectError for an object that is not a regular file or is too large. */
  async get(hash: string): Promise<Buffer | undefined> {
    const bytes = await this.read(this.pathOf(hash));
    if (bytes === undefined) return undefined;
    if (hashBytes(bytes) === hash) return bytes;
    this.known.delete(hash);
    return undefined;
  }

  private async read(file: string): Promise<Buffer | undefined> {
    try {
      return await readRegular(file, { what: 'checkpoint object', maxBytes: this.maxObjectBytes });
    } catch (error) {
      if (error instanceof UnreadableFileError) throw new CheckpointObjectError(error.message);
      throw error;
    }
  }

  /** Creates the folder (private to the user) if needed. */
  async ensureDir(): Promise<void> {
    await makeFolders(this.objects, 0o700);
  }
}

async function exists(file: string): Promise<boolean> {
  try {
    await stat(file);
    return true;
  } catch {
    return false;
  }
}
