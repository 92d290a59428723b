import { createHash } from 'node:crypto';
import { realpathSync } from 'node:fs';
import { realpath } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';

// Where a workspace's memory lives: outside the repository, one file per workspace, named by the
// sha256 of the workspace's real path (so the repository's contents never name it).

export function memoryFileNameSync(workspace: string): string {
  let path = resolve(workspace);
  try {
    path = realpathSync(path);
  } catch {
    // A workspace that does not exist yet keeps its resolved path.
  }
  return nameFor(path);
}

/** memoryFileNameSync without holding the thread (the extension host's way). */
async function memoryFileName(workspace: string): Promise<string> {
  const path = resolve(workspace);
  return nameFor(await realpath(path).catch(() => path));
}

function nameFor(realPath: string): string {
  return `${createHash('sha256').update(realPath).digest('hex')}.json`;
}

/** Under a storage folder (the extension's global storage): `<dir>/memory/<sha256>.json`. */
export async function memoryFileIn(storageDir: string, workspace: string): Promise<string> {
  return join(storageDir, 'memory', await memoryFileName(workspace));
}

/** The user's cache folder: `$XDG_CACHE_HOME` when it is an absolute path, else `~/.cache`. */
export function userCacheDir(env: NodeJS.ProcessEnv = process.env, home = homedir()): string {
  return env.XDG_CACHE_HOME && env.XDG_CACHE_HOME.startsWith('/') ? env.XDG_CACHE_HOME : join(home, '.cache');
}

/** The CLI's default: `$XDG_CACHE_HOME/cortex/memory/<sha256>.json`, else `~/.cache/cortex/memory/…`. */
export function defaultCliMemoryFile(workspace: string, env: NodeJS.ProcessEnv = process.env, home = homedir()): string {
  return join(userCacheDir(env, home), 'cortex', 'memory', memoryFileNameSync(workspace));
}
