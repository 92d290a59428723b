import { lstat, readlink, realpath } from 'node:fs/promises';
import path from 'node:path';
import { ToolError } from './toolError';

// Every path a tool touches goes through here. The path is resolved against the workspace root,
// then the real location is checked: realpath of the target, or, when it does not exist yet, of
// its nearest existing parent, following dangling symlinks by hand (a write through a dangling
// link would create its target). Anything whose real location is outside the root is refused
// before any content is read or written.
// The lookups are asynchronous: a workspace can be on a slow disk (a network mount, a remote
// folder), and in the editor this runs on the extension host's thread, which must not wait on it.

const MAX_LINK_HOPS = 40;

export interface JailOptions {
  /** The path will be written or created: the workspace root itself is refused as a target. */
  forWrite?: boolean;
}

/** True when `target` is `root` or below it (a separator boundary, so /ws-evil is not in /ws). */
export function isInside(root: string, target: string): boolean {
  const relative = path.relative(root, target);
  return relative === '' || (!path.isAbsolute(relative) && relative !== '..' && !relative.startsWith(`..${path.sep}`));
}

function isMissing(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException)?.code;
  return code === 'ENOENT' || code === 'ENOTDIR';
}

/**
 * The real absolute location of `target`, whether or not it exists: realpath when it does; else
 * realpath of the deepest existing ancestor plus the missing rest, with a dangling symlink on the
 * way followed to its (missing) target.
 */
export async function realLocation(target: string, hops = 0): Promise<string> {
  if (hops > MAX_LINK_HOPS) throw new ToolError(`Path '${target}' has too many levels of symbolic links`);
  try {
    return await realpath(target);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ELOOP') throw new ToolError('Too many levels of symbolic links');
    if (!isMissing(error)) throw error;
  }
  const rest: string[] = [];
  let existing = target;
  for (;;) {
    try {
      const stats = await lstat(existing);
      if (stats.isSymbolicLink()) {
        try {
          return path.join(await realpath(existing), ...rest);
        } catch (error) {
          if (!isMissing(error)) throw error;
          // Dangling link: continue from where it points.
          const pointsTo = path.resolve(path.dirname(existing), await readlink(existing));
          return await realLocation(path.join(pointsTo, ...rest), hops + 1);
        }
      }
      return path.join(await realpath(existing), ...rest);
    } catch (error) {
      if (!isMissing(error)) throw error;
      const parent = path.dirname(existing);
      if (parent === existing) return path.join(existing, ...rest);
      rest.unshift(path.basename(existing));
      existing = parent;
    }
  }
}

/**
 * Resolves a tool's path argument inside the workspace and returns its real absolute location, or
 * throws ToolError "Path '…' is outside the workspace". Covers `..`, absolute paths, prefix
 * look-alikes and symlinks (the target, any parent folder, dangling links).
 */
export async function resolveInWorkspace(workspaceRoot: string, userPath: string, options: JailOptions = {}): Promise<string> {
  if (typeof userPath !== 'string' || userPath.trim() === '') throw new ToolError('The path is empty');
  if (userPath.includes('\0')) throw new ToolError('The path contains a NUL character');
  // Absolute paths are taken as written; relative ones from the root (original spelling first, so
  // an absolute path through a symlinked root still compares against the real root below).
  const lexical = path.resolve(workspaceRoot, userPath);
  let root: string;
  try {
    root = await realpath(workspaceRoot);
  } catch {
    throw new ToolError(`The workspace folder '${workspaceRoot}' does not exist`);
  }
  const outside = () => new ToolError(`Path '${userPath}' is outside the workspace`);
  if (!isInside(path.resolve(workspaceRoot), lexical) && !isInside(root, lexical)) throw outside();
  const real = await realLocation(lexical);
  if (!isInside(root, real)) throw outside();
  if (options.forWrite && real === root) throw new ToolError(`Path '${userPath}' is the workspace folder itself, not a file`);
  return real;
}

/** The path as the model should see it: relative to the workspace root, with forward slashes. */
export function displayPath(realRoot: string, absolute: string): string {
  const relative = path.relative(realRoot, absolute);
  return relative === '' ? '.' : relative.split(path.sep).join('/');
}
