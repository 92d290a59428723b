import { createHash, randomBytes } from 'node:crypto';
import { createReadStream, existsSync, mkdirSync, readFileSync } from 'node:fs';
import { link, mkdir, readFile, rename, stat, unlink, writeFile } from 'node:fs/promises';
import path from 'node:path';

// Content-addressed storage of file contents, outside the workspace: each content is stored once,
// under the sha256 of its bytes (objects/ab/cdef…). Writes go to a temporary file that is then
// linked into place, so a reader never sees half an object and two writers of the same content
// never clash. Objects are never rewritten: the name is the content.

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

  constructor(readonly dir: string) {
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
    if (!(await exists(target))) {
      await mkdir(path.dirname(target), { recursive: true });
      const temp = `${target}.${randomBytes(6).toString('hex')}.tmp`;
      await writeFile(temp, bytes, { mode: 0o600 });
      try {
        // link (not rename) fails when the object exists: the first writer's copy stays.
        await link(temp, target);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') {
          // A file system without hard links: rename is atomic too.
          await rename(temp, target).catch(() => undefined);
          if (!(await exists(target))) throw error;
        }
      } finally {
        await unlink(temp).catch(() => undefined);
      }
    }
    this.known.add(hash);
    return hash;
  }

  async has(hash: string): Promise<boolean> {
    return this.known.has(hash) || exists(this.pathOf(hash));
  }

  /** The stored bytes, or undefined when this content was never stored. */
  async get(hash: string): Promise<Buffer | undefined> {
    try {
      return await readFile(this.pathOf(hash));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw error;
    }
  }

  /** Synchronous read for callers that cannot wait (a document provider's first answer). */
  getSync(hash: string): Buffer | undefined {
    const file = this.pathOf(hash);
    return existsSync(file) ? readFileSync(file) : undefined;
  }

  /** Creates the folder (private to the user) if needed. */
  ensureDir(): void {
    mkdirSync(this.objects, { recursive: true, mode: 0o700 });
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
