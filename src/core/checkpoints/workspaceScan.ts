import { lstatSync, readdirSync, type Dirent } from 'node:fs';

// What a command changed is found by comparing the workspace before and after it: every regular
// file's size, modification and change times, inode and mode, and every folder. Only entries whose
// stamp differs are read and hashed afterwards. Only the fixed bulk folders below are skipped, never
// what the workspace's own .gitignore files say: the model can write those (`*` would make every
// deletion that follows unrestorable), so they do not decide what can be restored. The walk is
// synchronous on purpose (hence its name): for ten thousand files it takes a few tens of
// milliseconds on a local disk, about a third of the same walk with promises, and a command's own
// run is far longer. On a slow disk it holds the thread it runs on (in the editor, the extension
// host's) for as long as the walk takes.

/** Folders never scanned, wherever they are. */
export const SKIPPED_FOLDERS: ReadonlySet<string> = new Set(['.git', 'node_modules', '.hg', '.svn']);

/** More entries than this and the scan gives up (changes are then not tracked for that command). */
export const MAX_SCAN_ENTRIES = 200_000;

const NOTHING: ReadonlySet<string> = new Set();

export interface FileStamp {
  size: number;
  mtimeMs: number;
  ctimeMs: number;
  ino: number;
  mode: number;
}

export interface WorkspaceScan {
  /** Regular files by relative, '/'-separated path. */
  files: Map<string, FileStamp>;
  /** Folders by relative path (the root itself not included). */
  folders: Set<string>;
  /** Set when the scan stopped at MAX_SCAN_ENTRIES. */
  truncated: boolean;
}

/**
 * Scans `root` (a real, absolute folder). `exclude` holds relative paths never looked at (the
 * run's own trace and checkpoint folder when they are inside the workspace).
 */
export function scanWorkspaceSync(root: string, maxEntries = MAX_SCAN_ENTRIES, exclude: ReadonlySet<string> = NOTHING): WorkspaceScan {
  const files = new Map<string, FileStamp>();
  const folders = new Set<string>();
  const stack: string[] = [''];
  let count = 0;
  while (stack.length > 0) {
    const rel = stack.pop()!;
    let entries: Dirent[];
    try {
      entries = readdirSync(rel === '' ? root : `${root}/${rel}`, { withFileTypes: true });
    } catch {
      continue; // unreadable or vanished folder: nothing in it can be tracked
    }
    // Plain string joins and lstat without exceptions: a third faster than path.join and try/catch.
    const prefix = rel === '' ? '' : `${rel}/`;
    for (const entry of entries) {
      const relative = prefix + entry.name;
      if (exclude.has(relative)) continue;
      if (entry.isDirectory()) {
        if (SKIPPED_FOLDERS.has(entry.name)) continue;
        folders.add(relative);
        stack.push(relative);
      } else if (entry.isFile()) {
        const stats = lstatSync(`${root}/${relative}`, { throwIfNoEntry: false });
        if (!stats?.isFile()) continue;
        files.set(relative, { size: stats.size, mtimeMs: stats.mtimeMs, ctimeMs: stats.ctimeMs, ino: stats.ino, mode: stats.mode });
      }
      if (++count > maxEntries) return { files, folders, truncated: true };
    }
  }
  return { files, folders, truncated: false };
}

export function sameStamp(a: FileStamp, b: FileStamp): boolean {
  return a.size === b.size && a.mtimeMs === b.mtimeMs && a.ctimeMs === b.ctimeMs && a.ino === b.ino && a.mode === b.mode;
}

export interface ScanDifference {
  created: string[];
  /** Files whose stamp changed (their content may still be the same: hash to know). */
  touched: string[];
  deleted: string[];
  createdFolders: string[];
  deletedFolders: string[];
}

/** What differs between two scans of the same folder. */
export function compareScans(before: WorkspaceScan, after: WorkspaceScan): ScanDifference {
  const difference: ScanDifference = { created: [], touched: [], deleted: [], createdFolders: [], deletedFolders: [] };
  for (const [file, stamp] of after.files) {
    const old = before.files.get(file);
    if (!old) difference.created.push(file);
    else if (!sameStamp(old, stamp)) difference.touched.push(file);
  }
  for (const file of before.files.keys()) if (!after.files.has(file)) difference.deleted.push(file);
  for (const folder of after.folders) if (!before.folders.has(folder)) difference.createdFolders.push(folder);
  for (const folder of before.folders) if (!after.folders.has(folder)) difference.deletedFolders.push(folder);
  return difference;
}
