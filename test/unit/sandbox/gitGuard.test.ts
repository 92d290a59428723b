import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { CONFIG_LISTING_ARGS, guardedGitArgs, guardedGitEnv, inertConfigProblem } from '../../../src/core/sandbox/gitGuard';

// The guard against a hostile repository configuration, with the real git: a repository whose
// .git/config and hooks would run `touch` on the plain commands, run through the guard instead.

const HOSTILE = `[core]
\tfsmonitor = touch pwned-fsmonitor
\tpager = touch pwned-pager
[diff]
\texternal = touch pwned-external
[diff "evil"]
\ttextconv = touch pwned-textconv
[log]
\tshowSignature = true
[gpg]
\tprogram = touch pwned-gpg
`;

function git(cwd: string, args: string[], env: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: cwd }) {
  return spawnSync('git', args, { cwd, env, encoding: 'utf8' });
}

function hostileRepository(): string {
  const repo = mkdtempSync(path.join(os.tmpdir(), 'cortex-git-guard-'));
  execFileSync('git', ['init', '-q', repo]);
  writeFileSync(path.join(repo, 'a.txt'), 'one\n');
  writeFileSync(path.join(repo, '.gitattributes'), 'a.txt diff=evil\n');
  execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', 'add', '.'], { cwd: repo });
  execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-qm', 'one'], { cwd: repo });
  writeFileSync(path.join(repo, 'a.txt'), 'one\ntwo\n');
  writeFileSync(path.join(repo, '.git', 'config'), `${HOSTILE}`, { flag: 'a' });
  const hook = path.join(repo, '.git', 'hooks', 'post-index-change');
  mkdirSync(path.dirname(hook), { recursive: true });
  writeFileSync(hook, '#!/bin/sh\ntouch pwned-hook\n');
  chmodSync(hook, 0o755);
  return repo;
}

const pwned = (repo: string) => readdirSync(repo).filter((name) => name.startsWith('pwned') || /^\d+$/.test(name));

describe('git guard (real git, hostile repository config)', function () {
  this.timeout(20_000);
  let repo: string;
  beforeEach(() => {
    repo = hostileRepository();
  });
  afterEach(() => rmSync(repo, { recursive: true, force: true }));

  it('the unguarded commands do run the repository programs (the test can fail)', () => {
    git(repo, ['status']);
    git(repo, ['diff']);
    assert.ok(pwned(repo).length > 0, 'expected the hostile config to run something');
  });

  it('the guarded status, diff, log -p, show, blame and grep run nothing from the repository, even without the config check', () => {
    const env = guardedGitEnv({ PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: repo, GIT_DIR: '/nonexistent', GIT_EXTERNAL_DIFF: 'touch pwned-env' });
    for (const args of [['status'], ['diff'], ['log', '-p', '-1'], ['show', 'HEAD'], ['blame', 'a.txt'], ['grep', 'one'], ['stash', 'list', '-p']]) {
      const result = git(repo, guardedGitArgs(args), env);
      assert.equal(result.status, 0, `${args.join(' ')}: ${result.stderr}`);
    }
    assert.deepEqual(pwned(repo), []);
  });

  it('the config check names the first key that is not known to be inert', () => {
    const listing = git(repo, [...CONFIG_LISTING_ARGS], guardedGitEnv({ PATH: process.env.PATH ?? '' }));
    assert.equal(listing.status, 0, listing.stderr);
    assert.match(inertConfigProblem(listing.stdout) ?? '', /the local git configuration sets "core\.fsmonitor"/);
    assert.deepEqual(pwned(repo), [], 'listing the configuration ran something');
  });

  it('a plain repository passes the config check; an include, a filter, core.worktree or fsmonitor=true do not', () => {
    const plain = mkdtempSync(path.join(os.tmpdir(), 'cortex-git-plain-'));
    try {
      execFileSync('git', ['init', '-q', plain]);
      execFileSync('git', ['-C', plain, 'remote', 'add', 'origin', 'https://example.com/x.git']);
      const check = () => inertConfigProblem(git(plain, [...CONFIG_LISTING_ARGS], guardedGitEnv({ PATH: process.env.PATH ?? '' })).stdout);
      assert.equal(check(), undefined);
      for (const [key, value] of [
        ['core.fsmonitor', 'false'],
        ['user.name', 'x'],
        ['color.ui', 'auto'],
      ]) {
        execFileSync('git', ['-C', plain, 'config', key, value]);
        assert.equal(check(), undefined, key);
      }
      for (const [key, value] of [
        ['include.path', '/elsewhere/config'],
        ['filter.x.clean', 'evil'],
        ['core.worktree', '/'],
        ['core.fsmonitor', 'true'],
        ['alias.st', '!evil'],
      ]) {
        execFileSync('git', ['-C', plain, 'config', key, value]);
        assert.match(check() ?? '', new RegExp(`sets "${key.replace('.', '\\.')}"`, 'i'), key);
        execFileSync('git', ['-C', plain, 'config', '--unset', key]);
      }
    } finally {
      rmSync(plain, { recursive: true, force: true });
    }
  });

  it('adds --no-ext-diff/--no-textconv after the sub-command and keeps the user arguments in order', () => {
    const args = guardedGitArgs(['stash', 'list', '--oneline']);
    assert.equal(args[0], '--no-pager');
    assert.deepEqual(args.slice(-5), ['stash', 'list', '--no-ext-diff', '--no-textconv', '--oneline']);
    assert.ok(args.includes('core.fsmonitor=false') && args.includes('core.hooksPath=/dev/null'));
    assert.deepEqual(guardedGitArgs(['--version']).slice(-1), ['--version']);
  });
});
