import path from 'node:path';
import { isInside, realLocation } from '../files/workspaceJail';

// Where the arguments of an auto-approved command may point. A read-only command is only
// auto-approved when it reads inside the workspace, so every argument that could name a file is
// checked: the word itself, the value after `=` in `--opt=value`, and the value glued to a short
// option (`-fFILE`, so every tail of the word). First by its text (absolute, `~`, `..`: no file
// system needed), then, right before the command runs, by its real location with every symbolic
// link followed: `cat docs/secret` where `docs` links to a folder outside is refused too, and so is
// a protected file inside (`cat .env`), which the file tools would only read after approval.

const HARMLESS_PATHS = new Set(['/dev/null', '/dev/stdin']);
/** More candidate paths than this in one command: refuse rather than stat them all. */
const MAX_CANDIDATES = 2000;

/** Every reading of `word` that a program could open as a path. */
export function pathCandidates(word: string): string[] {
  const candidates = [word];
  if (word.startsWith('-')) {
    const equals = word.indexOf('=');
    if (equals > 0) candidates.push(word.slice(equals + 1));
    if (!word.startsWith('--')) for (let i = 2; i < word.length; i++) candidates.push(word.slice(i));
  }
  return [...new Set(candidates.filter((candidate) => candidate !== ''))];
}

/** A path that leaves the workspace by its text alone: absolute, home-relative or climbing with `..`. */
export function leavesByText(candidate: string): boolean {
  return (
    (candidate.startsWith('/') && !HARMLESS_PATHS.has(candidate)) ||
    candidate.startsWith('~') ||
    /^[A-Za-z]:[\\/]/.test(candidate) ||
    candidate.startsWith('\\\\') ||
    /(?:^|[\\/])\.\.(?:[\\/]|$)/.test(candidate)
  );
}

/** The first argument that points outside the workspace by its text, if any. */
export function argumentLeavingByText(args: readonly string[]): string | undefined {
  return args.find((word) => pathCandidates(word).some(leavesByText));
}

export interface ArgumentProblem {
  word: string;
  /** Where it leads (or why it cannot be resolved). */
  location: string;
  /** Set when it stays inside but names a protected file: the glob that matched. */
  protectedBy?: string;
}

/**
 * The first argument whose real location (symbolic links followed) is outside `realRoot`, or that
 * names a file `protectedRead` reports (a glob of cortex.policy.protectedPaths.read, given the
 * workspace-relative path), or undefined when all are fine. `cwd` is the command's real working folder.
 */
export async function argumentLeavingByLink(
  args: readonly string[],
  cwd: string,
  realRoot: string,
  protectedRead?: (relativePath: string) => string | undefined,
): Promise<ArgumentProblem | undefined> {
  let budget = MAX_CANDIDATES;
  for (const word of args) {
    for (const candidate of pathCandidates(word)) {
      if (--budget < 0) return { word, location: 'too many arguments to check' };
      if (HARMLESS_PATHS.has(candidate)) continue;
      let location: string;
      try {
        location = await realLocation(path.resolve(cwd, candidate));
      } catch (error) {
        return { word, location: `cannot be resolved (${(error as Error).message})` };
      }
      if (!isInside(realRoot, location)) return { word, location };
      const glob = protectedRead?.(path.relative(realRoot, location).split(path.sep).join('/'));
      if (glob !== undefined) return { word, location, protectedBy: glob };
    }
  }
  return undefined;
}
