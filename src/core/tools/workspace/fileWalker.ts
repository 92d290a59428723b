import { readdir } from 'node:fs/promises';
import path from 'node:path';

// Walks a workspace folder for find_files and search_text. Symbolic links are reported but never
// followed, so a link to a folder outside the workspace cannot leak its names or contents. Only
// regular files are yielded: FIFOs, sockets and devices are skipped (opening a FIFO blocks).

/** Folders skipped unless the walk starts inside them. */
export const IGNORED_DIRECTORIES = new Set(['.git', 'node_modules']);

export interface WalkEntry {
  absolute: string;
  /** Relative to the walk's start folder, '/'-separated. */
  relative: string;
  kind: 'file' | 'symlink';
}

export interface WalkOptions {
  signal?: AbortSignal;
  /** Epoch ms after which the walk stops (the caller reports it as partial). */
  deadline?: number;
}

/** Yields regular files and symlinks below `start`, folders sorted by name, depth first. */
export async function* walkFiles(start: string, options: WalkOptions = {}): AsyncGenerator<WalkEntry> {
  const stack: string[] = [''];
  while (stack.length) {
    if (options.signal?.aborted || (options.deadline !== undefined && Date.now() > options.deadline)) return;
    const relativeDir = stack.pop()!;
    let entries;
    try {
      entries = await readdir(path.join(start, relativeDir), { withFileTypes: true });
    } catch {
      continue; // unreadable folder: skip it rather than fail the whole search
    }
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    const subdirectories: string[] = [];
    for (const entry of entries) {
      const relative = relativeDir === '' ? entry.name : `${relativeDir}/${entry.name}`;
      if (entry.isSymbolicLink()) yield { absolute: path.join(start, relative), relative, kind: 'symlink' };
      else if (entry.isDirectory()) {
        if (!IGNORED_DIRECTORIES.has(entry.name)) subdirectories.push(relative);
      } else if (entry.isFile()) yield { absolute: path.join(start, relative), relative, kind: 'file' };
    }
    for (let i = subdirectories.length - 1; i >= 0; i--) stack.push(subdirectories[i]);
  }
}
