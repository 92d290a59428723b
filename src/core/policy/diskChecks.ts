import path from 'node:path';
import { realLocation } from '../files/workspaceJail';
import { argumentLeavingByLink } from './argumentPaths';
import type { ProtectedPathMatcher } from '../files/protectedPaths';
import { protectedFileBelow, readsRecursively, searchedFolders } from './recursiveReads';

// The checks a default-safe command passes on the disk right before it runs (the policy judged its
// text only): every argument stays inside the workspace with symbolic links followed and names no
// protected file (on the disk, or in git's history as `rev:path`), and a recursive search crosses no
// protected file. Not covered: a protected file's content shown by `git log -p` or `git diff`.

export interface DiskPlace {
  /** Real working folder. */
  cwd: string;
  realRoot: string;
  protectedPaths: ProtectedPathMatcher;
}

/** Why `argv` must not run without approval, or undefined when it may. */
export async function diskProblem(argv: readonly string[], place: DiskPlace): Promise<string | undefined> {
  const args = argv.slice(1);
  const isProtected = (relative: string) => place.protectedPaths.match('read', relative);
  const problem = await argumentLeavingByLink(args, place.cwd, place.realRoot, isProtected);
  if (problem?.protectedBy !== undefined) {
    return `"${problem.word}" names the protected file ${path.relative(place.realRoot, problem.location)} (cortex.policy.protectedPaths read: ${problem.protectedBy})`;
  }
  if (problem) return `"${problem.word}" leads outside the workspace (${problem.location})`;
  if (argv[0] === 'git') {
    // `git show HEAD:.env` reads a file from the repository's history, not from the disk.
    for (const arg of args) {
      const colon = arg.indexOf(':');
      if (arg.startsWith('-') || colon < 0) continue;
      const inRepository = arg.slice(colon + 1).replace(/^(\.\/)+/, '');
      const glob = inRepository === '' ? undefined : isProtected(inRepository);
      if (glob !== undefined) return `"${arg}" names the protected file ${inRepository} (cortex.policy.protectedPaths read: ${glob})`;
    }
  }
  if (!readsRecursively(argv)) return undefined;
  const locations: string[] = [];
  for (const word of args.filter((arg) => !arg.startsWith('-'))) locations.push(await realLocation(path.resolve(place.cwd, word)));
  const found = await protectedFileBelow(await searchedFolders(locations, place.cwd), place.realRoot, isProtected);
  if (found === undefined) return undefined;
  return found === 'too many files to check'
    ? 'the search would cover more files than can be checked for protected ones (search_text skips them)'
    : `the search would read the protected file ${found} (cortex.policy.protectedPaths read; search_text skips it)`;
}
