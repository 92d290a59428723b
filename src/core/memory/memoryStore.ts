import { randomBytes } from 'node:crypto';
import { readFile, rename, stat, unlink, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import MiniSearch from 'minisearch';
import { makeFolders } from '../files/makeFolders';

// The workspace's memory (docs/design.md, “Context budget and memory”): short notes the model saved with `memory_store`,
// kept in one JSON file per workspace outside the repository (the extension's global storage, or
// the CLI's cache folder). Every operation reads the file afresh, so two runs of the same
// workspace see each other's notes; a write replaces the file atomically (temporary file, then
// rename), so a crash never leaves half a file. Search is full-text (minisearch, BM25 ranking with
// prefix and fuzzy matching).

export interface MemoryEntry {
  id: string;
  text: string;
  tags: string[];
  /** ms since the epoch. */
  createdAt: number;
}

export interface MemoryHit extends MemoryEntry {
  score: number;
}

interface MemoryFileContent {
  version: 1;
  entries: MemoryEntry[];
}

export const MAX_MEMORY_TEXT_CHARS = 4_000;
export const MAX_MEMORY_ENTRIES = 1_000;

export class MemoryError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'MemoryError';
  }
}

export class MemoryStore {
  /** Serialises this process's writes (read, change, write back). */
  private queue: Promise<unknown> = Promise.resolve();
  /** The index of the file as last read, reused while the file is unchanged. */
  private cache: { key: string; entries: MemoryEntry[]; index: MiniSearch<MemoryEntry> } | undefined;

  constructor(
    readonly file: string,
    private readonly now: () => number = Date.now,
  ) {}

  async list(): Promise<MemoryEntry[]> {
    return (await this.read()).entries;
  }

  async store(text: string, tags: readonly string[] = []): Promise<MemoryEntry> {
    const clean = text.trim();
    if (!clean) throw new MemoryError('a memory needs some text');
    if (clean.length > MAX_MEMORY_TEXT_CHARS)
      throw new MemoryError(`a memory holds at most ${MAX_MEMORY_TEXT_CHARS} characters (this one has ${clean.length}); store the essentials`);
    return this.change((entries) => {
      if (entries.length >= MAX_MEMORY_ENTRIES)
        throw new MemoryError(`the memory is full (${MAX_MEMORY_ENTRIES} entries); forget outdated ones with memory_forget first`);
      const entry: MemoryEntry = { id: newId(entries), text: clean, tags: [...new Set(tags.map((t) => t.trim()).filter(Boolean))], createdAt: this.now() };
      entries.push(entry);
      return entry;
    });
  }

  /** Removes the entry `id`; false when there is none. */
  async forget(id: string): Promise<boolean> {
    return this.change((entries) => {
      const at = entries.findIndex((e) => e.id === id);
      if (at < 0) return false;
      entries.splice(at, 1);
      return true;
    });
  }

  /** The best `limit` entries for `query`, best first (none for a query without words). */
  async search(query: string, limit: number): Promise<MemoryHit[]> {
    if (limit <= 0 || !query.trim()) return [];
    const { entries, index } = await this.read();
    if (entries.length === 0) return [];
    const byId = new Map(entries.map((e) => [e.id, e]));
    return index
      .search(query, { prefix: true, fuzzy: 0.2, boost: { tags: 2 }, combineWith: 'OR' })
      .slice(0, limit)
      .map((hit) => ({ ...byId.get(String(hit.id))!, score: Math.round(hit.score * 1000) / 1000 }));
  }

  private async read(): Promise<{ entries: MemoryEntry[]; index: MiniSearch<MemoryEntry> }> {
    let key: string;
    try {
      const info = await stat(this.file).catch((error: NodeJS.ErrnoException) => {
        if (error.code === 'ENOENT') return undefined;
        throw error;
      });
      key = info ? `${info.mtimeMs}:${info.size}:${info.ino}` : 'missing';
    } catch (error) {
      throw new MemoryError(`cannot read the memory file ${this.file}: ${(error as Error).message}`);
    }
    if (this.cache?.key === key) return this.cache;
    const entries =
      key === 'missing'
        ? []
        : parseMemoryFile(
            await readFile(this.file, 'utf8').catch((error: Error) => {
              throw new MemoryError(`cannot read the memory file ${this.file}: ${error.message}`);
            }),
            this.file,
          );
    const index = new MiniSearch<MemoryEntry>({
      fields: ['text', 'tags'],
      extractField: (doc, field) => (field === 'tags' ? doc.tags.join(' ') : String(doc[field as keyof MemoryEntry])),
    });
    index.addAll(entries);
    this.cache = { key, entries, index };
    return this.cache;
  }

  private change<T>(edit: (entries: MemoryEntry[]) => T): Promise<T> {
    const run = this.queue.then(async () => {
      const entries = [...(await this.read()).entries];
      const result = edit(entries);
      await writeAtomically(this.file, `${JSON.stringify({ version: 1, entries } satisfies MemoryFileContent, null, 1)}\n`);
      this.cache = undefined;
      return result;
    });
    this.queue = run.catch(() => undefined);
    return run;
  }
}

/** The entries of a memory file; a file that is not one is an error (it is never overwritten). */
export function parseMemoryFile(text: string, file: string): MemoryEntry[] {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    throw new MemoryError(`the memory file ${file} is not valid JSON (${(error as Error).message}); fix or delete it`);
  }
  const entries = (data as { entries?: unknown })?.entries;
  if (!data || typeof data !== 'object' || (data as { version?: unknown }).version !== 1 || !Array.isArray(entries)) {
    throw new MemoryError(`the memory file ${file} is not a Cortex memory file (expected {"version": 1, "entries": [...]}); fix or delete it`);
  }
  return (entries as unknown[]).filter(isEntry);
}

function isEntry(value: unknown): value is MemoryEntry {
  if (!value || typeof value !== 'object') return false;
  const e = value as Record<string, unknown>;
  return (
    typeof e.id === 'string' &&
    typeof e.text === 'string' &&
    Array.isArray(e.tags) &&
    e.tags.every((t) => typeof t === 'string') &&
    typeof e.createdAt === 'number'
  );
}

async function writeAtomically(file: string, content: string): Promise<void> {
  await makeFolders(dirname(file)).catch((error: Error) => {
    throw new MemoryError(`cannot write the memory file ${file}: ${error.message}`);
  });
  const temp = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  try {
    await writeFile(temp, content, { encoding: 'utf8', mode: 0o600 });
    await rename(temp, file);
  } catch (error) {
    await unlink(temp).catch(() => undefined);
    throw new MemoryError(`cannot write the memory file ${file}: ${(error as Error).message}`);
  }
}

function newId(entries: readonly MemoryEntry[]): string {
  for (;;) {
    const id = `m${randomBytes(4).toString('hex')}`;
    if (!entries.some((e) => e.id === id)) return id;
  }
}
