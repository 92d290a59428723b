import assert from 'node:assert/strict';
import { chmod, link, mkdir, mkdtemp, realpath, rm, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { parseConfig, type PolicyDecision } from '../../../src/core/config/configSchema';
import { describeProtectedAccess, findProtectedAccess, type ProtectedAccess } from '../../../src/core/policy/fileProtection';
import { compileProtectedPaths, DEFAULT_PROTECTED_PATHS } from '../../../src/core/files/protectedPaths';
import { decideToolPolicy } from '../../../src/core/policy/toolPolicy';
import { builtinTools } from '../../../src/core/tools/workspace/builtinTools';

const tool = (name: string) => builtinTools.find((t) => t.name === name)!;
const matcher = compileProtectedPaths(DEFAULT_PROTECTED_PATHS);
const GIT_CONFIG: ProtectedAccess = { access: 'write', path: '.git/config', kind: 'pattern', detail: '**/.git/**' };

describe('findProtectedAccess (before a call runs, on the real disk)', () => {
  let base: string;
  let ws: string;
  const find = (name: string, args: Record<string, unknown>) => findProtectedAccess(tool(name), args, ws, ws, matcher);

  before(async () => {
    base = await realpath(await mkdtemp(path.join(os.tmpdir(), 'cortex-protected-')));
    ws = path.join(base, 'ws');
    await mkdir(path.join(ws, '.git', 'hooks'), { recursive: true });
    await mkdir(path.join(base, 'outside'));
    await writeFile(path.join(ws, '.git', 'config'), '[core]\n');
    await writeFile(path.join(ws, '.env'), 'KEY=1\n');
    await writeFile(path.join(ws, 'plain.txt'), 'x\n');
    await writeFile(path.join(base, 'outside', 'profile'), 'x\n');
    await link(path.join(base, 'outside', 'profile'), path.join(ws, 'linked.txt'));
    await writeFile(path.join(ws, 'run.sh'), '#!/bin/sh\n');
    await chmod(path.join(ws, 'run.sh'), 0o755);
    await symlink('.git', path.join(ws, 'gitdir'));
    await symlink('.git/hooks/post-merge', path.join(ws, 'dangling'));
    await symlink('.env', path.join(ws, 'env-link'));
  });
  after(async () => rm(base, { recursive: true, force: true }));

  it('reports the resolved path for every spelling of a protected target', async () => {
    for (const spelling of [
      '.git/config',
      './.git/config',
      'a/../.git/config',
      'gitdir/config',
      '.git/config/',
      '.git//config',
      path.join(ws, '.git', 'config'),
    ]) {
      assert.deepEqual(await find('write_file', { path: spelling, content: '' }), [GIT_CONFIG], spelling);
    }
    assert.deepEqual(await find('write_file', { path: 'dangling', content: '' }), [{ ...GIT_CONFIG, path: '.git/hooks/post-merge' }]);
    assert.deepEqual(await find('read_file', { path: 'env-link' }), [{ access: 'read', path: '.env', kind: 'pattern', detail: '.env*' }]);
  });

  it('finds hard-linked and executable files for writes only', async () => {
    assert.deepEqual(await find('write_file', { path: 'linked.txt', content: '' }), [{ access: 'write', path: 'linked.txt', kind: 'hard-link', detail: '2' }]);
    assert.deepEqual(await find('read_file', { path: 'linked.txt' }), []);
    const executable = await find('edit_file', { path: 'run.sh', old_text: 'a', new_text: 'b' });
    assert.deepEqual(
      executable.map((f) => [f.access, f.kind]),
      [['write', 'executable']],
    );
    assert.deepEqual(await find('read_file', { path: 'run.sh' }), []);
  });

  it('edit_file is a read and a write; search_text a read of its path; create_directory a write', async () => {
    const edit = await find('edit_file', { path: '.env', old_text: 'a', new_text: 'b' });
    assert.deepEqual(
      edit.map((f) => [f.access, f.path]),
      [['read', '.env']],
    );
    assert.deepEqual(
      (await find('search_text', { pattern: 'x', path: '.env' })).map((f) => f.path),
      ['.env'],
    );
    assert.deepEqual(await find('search_text', { pattern: 'x' }), []);
    assert.deepEqual(
      (await find('create_directory', { path: '.git/hooks/new' })).map((f) => f.path),
      ['.git/hooks/new'],
    );
  });

  it('ordinary paths, paths outside the workspace, listing tools and unknown tools give nothing', async () => {
    assert.deepEqual(await find('write_file', { path: 'plain.txt', content: '' }), []);
    assert.deepEqual(await find('write_file', { path: '../outside/profile', content: '' }), []);
    assert.deepEqual(await find('list_directory', { path: '.git' }), []);
    assert.deepEqual(await find('find_files', { pattern: '.env' }), []);
    assert.deepEqual(await findProtectedAccess(undefined, { path: '.git/config' }, ws, ws, matcher), []);
    const custom = { name: 'custom', fileAccesses: () => [{ path: '.git/config', access: 'write' as const }] };
    assert.deepEqual(await findProtectedAccess(custom, {}, ws, ws, matcher), [GIT_CONFIG]);
  });
});

describe('decideToolPolicy with protected files', () => {
  const WRITE = { kind: 'write', readOnly: false, origin: { kind: 'builtin' } } as const;
  const READ = { kind: 'read', readOnly: true, origin: { kind: 'builtin' } } as const;
  const decide = (tools: Record<string, PolicyDecision>, protectedAccess: ProtectedAccess[], tool: typeof WRITE | typeof READ = WRITE, trusted = true) =>
    decideToolPolicy({ toolName: 'write_file', tool, args: {}, config: parseConfig({ 'cortex.policy.tools': tools }), trusted, protectedAccess });

  it('asks even when the tool (or every tool) is allowed, and says which file and why', () => {
    for (const tools of [{}, { write_file: 'allow' }, { '*': 'allow' }] as Array<Record<string, PolicyDecision>>) {
      const verdict = decide(tools, [GIT_CONFIG]);
      assert.equal(verdict.decision, 'confirm', JSON.stringify(tools));
      assert.equal(verdict.required, false);
      assert.equal(verdict.reason, 'protected path .git/config (cortex.policy.protectedPaths write: **/.git/**)');
      assert.ok(verdict.rules.includes('cortex.policy.protectedPaths'));
      assert.deepEqual(verdict.protectedAccess, [GIT_CONFIG]);
    }
  });

  it('a stricter rule still wins, and the question still names the file', () => {
    assert.equal(decide({ write_file: 'deny' }, [GIT_CONFIG]).decision, 'deny');
    const required = decide({ write_file: 'confirm-required' }, [GIT_CONFIG]);
    assert.deepEqual([required.decision, required.required, required.denyEffect], ['confirm', true, 'block']);
    assert.match(required.reason, /confirm-required; protected path \.git\/config/);
  });

  it('nothing protected: the usual decision, without protectedAccess', () => {
    const verdict = decide({}, []);
    assert.equal(verdict.decision, 'allow');
    assert.equal(verdict.protectedAccess, undefined);
  });

  it('lists every finding; a protected read asks in an untrusted workspace too, where writes stay denied', () => {
    const both: ProtectedAccess[] = [GIT_CONFIG, { access: 'write', path: '.git/config', kind: 'hard-link', detail: '3' }];
    assert.equal(
      decide({}, both).reason,
      `${describeProtectedAccess(both[0])}; .git/config has 3 hard links (writing it changes every linked copy, which may be outside the workspace)`,
    );
    const read = decide({}, [{ access: 'read', path: '.env', kind: 'pattern', detail: '.env*' }], READ, false);
    assert.equal(read.decision, 'confirm');
    assert.equal(decide({}, [GIT_CONFIG], WRITE, false).decision, 'deny');
  });
});
