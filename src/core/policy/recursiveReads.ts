import { lstat, readdir } from 'node:fs/promises';
import path from 'node:path';

// Auto-approved searches that read whole folders (grep -r, rg, git grep) would read protected files
// (.env, keys) that the file tools only read after approval. Before one runs, the folders it would
// search are walked (symbolic links not followed, like the searches themselves) and it is refused
// when they hold a protected file, or too many entries to check.

/** More entries than this under the searched folders: refuse rather than walk on. */
export const MAX_WALK_ENTRIES = 20_000;

/** Whether the literal command reads the contents of whole folders. */
export function readsRecursively(argv: readonly string[]): boolean {
  const [program, ...args] = argv;
  if (program === 'rg') return true;
  if (program === 'git') return args[0] === 'grep';
  if (program !== 'grep' && program !== 'egrep' && program !== 'fgrep') return false;
  const end = args.indexOf('--');
  const options = end < 0 ? args : args.slice(0, end);
  return options.some(
    (arg, i) =>
      /^-[A-Za-z]*r/.test(arg) ||
      arg === '--recursive' ||
      arg === '-drecurse' ||
      arg === '--directories=recurse' ||
      ((arg === '-d' || arg === '--directories') && options[i + 1] === 'recurse'),
  );
}

/**
 * The first protected file (workspace-relative) found below `roots`, 'too many files to check' when
 * the walk passes MAX_WALK_ENTRIES, or undefined when there is none.
 */
export async function protectedFileBelow(
  roots: readonly string[],
  realRoot: string,
  isProtected: (relativePath: string) => string | undefined,
): Promise<string | undefined> {
  const queue = [...new Set(roots)];
  let seen = 0;
  while (queue.length > 0) {
    const folder = queue.shift()!;
    let entries;
    try {
      entries = await readdir(folder, { withFileTypes: true });
    } catch {
      continue; // unreadable: the search cannot read it either
    }
    for (const entry of entries) {
      if (++seen > MAX_WALK_ENTRIES) return 'too many files to check';
      const absolute = path.join(folder, entry.name);
      const relative = path.relative(realRoot, absolute).split(path.sep).join('/');
      if (isProtected(relative) !== undefined) return relative;
      if (entry.isDirectory()) queue.push(absolute);
    }
  }
  return undefined;
}

/** The folders among `locations` (real paths), or `cwd` when none is a folder. */
export async function searchedFolders(locations: readonly string[], cwd: string): Promise<string[]> {
  const folders: string[] = [];
  for (const location of locations) {
    const stats = await lstat(location).catch(() => undefined);
    if (stats?.isDirectory()) folders.push(location);
  }
  return folders.length > 0 ? folders : [cwd];
}
