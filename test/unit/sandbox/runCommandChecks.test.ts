import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { compileProtectedPaths } from '../../../src/core/files/protectedPaths';
import { requireBubblewrap, runIn, SANDBOXED, tempWorkspace, UNSANDBOXED } from './sandboxSupport';

// What run_command checks on the disk right before a command the default rules would auto-approve:
// its arguments must stay inside the workspace with symbolic links followed, its program must not
// come from the workspace, and git must not find a configuration that runs programs. Both with and
// without the sandbox: these checks do not rely on it.

const SECRET = 'TOP-SECRET-OUTSIDE';

describe('run_command checks before an auto-approvable command runs', function () {
  this.timeout(30_000);
  let ws: string;
  let outside: string;
  let cleanup: () => Promise<void>;
  before(requireBubblewrap);
  beforeEach(async () => {
    ({ ws, cleanup } = await tempWorkspace());
    outside = mkdtempSync(path.join(os.tmpdir(), 'cortex-outside-'));
    writeFileSync(path.join(outside, 'secret.txt'), SECRET);
    symlinkSync(outside, path.join(ws, 'docs'));
    symlinkSync('/proc/self', path.join(ws, 'self'));
    writeFileSync(path.join(ws, 'notes.txt'), 'inside\n');
  });
  afterEach(async () => {
    await cleanup();
    rmSync(outside, { recursive: true, force: true });
  });

  for (const [label, settings] of [
    ['sandboxed', SANDBOXED],
    ['unsandboxed', UNSANDBOXED],
  ] as const) {
    describe(label, () => {
      it('refuses to read through a symlinked folder or a link into /proc, and prints nothing of it', async () => {
        for (const command of [
          'cat docs/secret.txt',
          'head -c 100 self/environ',
          'grep -r SECRET docs',
          'grep -f docs/secret.txt notes.txt',
          'wc --bytes docs/secret.txt',
        ]) {
          const result = await runIn(ws, command, settings);
          assert.equal(result.ok, false, `${command}: ${result.output}`);
          assert.match(result.output, /leads outside the workspace/, command);
          assert.doesNotMatch(result.output, new RegExp(SECRET), command);
        }
        assert.equal((await runIn(ws, 'cat notes.txt', settings)).output, 'inside\n[exit code 0]');
      });

      it('refuses to read a protected file (.env, keys) or search a folder holding one; search elsewhere runs', async () => {
        mkdirSync(path.join(ws, 'config'));
        mkdirSync(path.join(ws, 'src'));
        writeFileSync(path.join(ws, 'config', '.env.local'), `KEY=${SECRET}\n`);
        writeFileSync(path.join(ws, 'src', 'a.ts'), 'const KEY = 1;\n');
        const refused: Array<[string, RegExp]> = [
          ['cat config/.env.local', /names the protected file config\/\.env\.local/],
          ['grep KEY config/.env.local', /names the protected file/],
          ['grep -r KEY .', /would read the protected file config\/\.env\.local/],
          ['grep -rn KEY config', /would read the protected file/],
          ['grep --recursive KEY', /would read the protected file/],
          ['rg KEY', /would read the protected file/],
        ];
        for (const [command, why] of refused) {
          const result = await runIn(ws, command, settings);
          assert.equal(result.ok, false, command);
          assert.match(result.output, why, command);
          assert.doesNotMatch(result.output, new RegExp(SECRET), command);
        }
        assert.match((await runIn(ws, 'grep -rn KEY src', settings)).output, /src\/a\.ts:1:const KEY/);
        const allowedByUser = await runIn(ws, 'cat config/.env.local', settings, { protectedPaths: compileProtectedPaths({ read: [], write: [] }) });
        assert.match(allowedByUser.output, new RegExp(SECRET), 'cortex.policy.protectedPaths with read: [] lets it run');
      });

      it('never runs a program the workspace brings along in place of a safe one, even with . in PATH', async () => {
        const fake = path.join(ws, 'git');
        writeFileSync(fake, '#!/bin/sh\ntouch pwned-fake-git\n');
        chmodSync(fake, 0o755);
        const saved = process.env.PATH;
        process.env.PATH = `.:${ws}:${saved}`;
        try {
          const result = await runIn(ws, 'git --version', settings);
          assert.match(result.output, /^git version /);
          assert.equal(existsSync(path.join(ws, 'pwned-fake-git')), false);
        } finally {
          process.env.PATH = saved;
        }
      });

      it('refuses git in a repository whose configuration runs programs (core.fsmonitor), and nothing runs', async () => {
        execFileSync('git', ['init', '-q', ws]);
        writeFileSync(path.join(ws, '.git', 'config'), '[core]\n\tfsmonitor = touch pwned\n', { flag: 'a' });
        const result = await runIn(ws, 'git status', settings);
        assert.equal(result.ok, false);
        assert.match(result.output, /sets "core\.fsmonitor", which is not known to be inert/);
        assert.equal(existsSync(path.join(ws, 'pwned')), false);
      });

      it('refuses to show a protected file from git history (rev:path)', async () => {
        execFileSync('git', ['init', '-q', ws]);
        assert.match((await runIn(ws, 'git show HEAD:.env', settings)).output, /"HEAD:\.env" names the protected file \.env/);
        assert.match((await runIn(ws, 'git show main:./keys/id_rsa', settings)).output, /names the protected file .*id_rsa/);
      });

      it('runs git in an ordinary repository', async () => {
        execFileSync('git', ['init', '-q', ws]);
        mkdirSync(path.join(ws, 'src'));
        const result = await runIn(ws, 'git status --short', settings, { cwd: 'src' });
        assert.equal(result.ok, true, result.output);
        assert.match(result.output, /notes\.txt/);
      });
    });
  }

  it('a person-approved command is not held to the workspace (the person saw the text)', async () => {
    const shell = await runIn(ws, 'cat docs/secret.txt | tr a-z a-z', UNSANDBOXED);
    assert.equal(shell.ok, true, shell.output);
    assert.match(shell.output, new RegExp(SECRET));
    const literal = await runIn(ws, 'cat docs/secret.txt', UNSANDBOXED, { approvedByPerson: true });
    assert.match(literal.output, new RegExp(SECRET));
  });
});
