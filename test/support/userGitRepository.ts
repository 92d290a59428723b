import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { hashBytes } from '../../src/core/checkpoints/contentStore';

// A workspace's own git repository as a person leaves it mid-work: one commit, an edit put away in
// the stash and a new file staged. Cortex records and reverts changes in a shadow repository of its
// own, so everything `state()` reads must be the same after a run, a revert or an undo as before.

/** What Cortex must never change in a workspace's own repository. */
export interface UserRepositoryState {
  head: string;
  branches: string;
  stash: string;
  /** sha256 of the index file's bytes. */
  index: string;
  config: string;
  status: string;
}

/** Makes `ws` such a repository: `trackedFile` committed, then edited and stashed; `staged.txt` staged. */
export function userGitRepository(ws: string, trackedFile: string): { state: () => UserRepositoryState } {
  // No user or system configuration, and no optional locks: the `git status` of `state()` must not
  // refresh the index that `state()` compares.
  const env = {
    ...process.env,
    GIT_CONFIG_GLOBAL: '/dev/null',
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_OPTIONAL_LOCKS: '0',
    GIT_AUTHOR_NAME: 't',
    GIT_AUTHOR_EMAIL: 't@t',
    GIT_COMMITTER_NAME: 't',
    GIT_COMMITTER_EMAIL: 't@t',
  };
  const git = (...args: string[]) => execFileSync('git', args, { cwd: ws, env }).toString();
  git('init', '-q');
  writeFileSync(join(ws, trackedFile), 'committed\n');
  git('add', '.');
  git('commit', '-q', '-m', 'first');
  writeFileSync(join(ws, trackedFile), 'stashed\n');
  git('stash', '-q');
  writeFileSync(join(ws, 'staged.txt'), 'staged\n');
  git('add', 'staged.txt');
  return {
    state: () => ({
      head: git('rev-parse', 'HEAD'),
      branches: git('branch', '-a'),
      stash: git('stash', 'list'),
      index: hashBytes(readFileSync(join(ws, '.git', 'index'))),
      config: readFileSync(join(ws, '.git', 'config'), 'utf8'),
      status: git('status', '--porcelain'),
    }),
  };
}
