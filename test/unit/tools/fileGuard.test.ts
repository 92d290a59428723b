import assert from 'node:assert/strict';
import { link, mkdir, readFile, rename, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { ProtectedAccess } from '../../../src/core/policy/fileProtection';
import { compileProtectedPaths, DEFAULT_PROTECTED_PATHS } from '../../../src/core/files/protectedPaths';
import { builtinTools } from '../../../src/core/tools/workspace/builtinTools';
import { executeTool, type ToolRunResult } from '../../../src/core/tools/toolExecutor';
import { createFileGuard, type FileGuard, type GuardedToolContext } from '../../../src/core/tools/fileGuard';
import { createTempWorkspace, toolContext } from './workspaceFixture';

// The tools' own check right before the access: it holds when the policy layer is skipped, and
// when the disk changed between the question and the access.

const tool = (name: string) => builtinTools.find((t) => t.name === name)!;
const matcher = compileProtectedPaths(DEFAULT_PROTECTED_PATHS);
const GIT_CONFIG: ProtectedAccess = { access: 'write', path: '.git/config', kind: 'pattern', detail: '**/.git/**' };

describe('file guard in the workspace tools', () => {
  let ws: string;
  let workspace: { ws: string; cleanup(): Promise<void> };
  const run = (name: string, args: Record<string, unknown>, fileGuard?: FileGuard): Promise<ToolRunResult> => {
    const context: GuardedToolContext = { ...toolContext(ws), ...(fileGuard ? { fileGuard } : {}) };
    return executeTool(tool(name), tool(name).schema.parse(args), context, 32_768);
  };

  beforeEach(async () => {
    workspace = await createTempWorkspace();
    ws = workspace.ws;
    await mkdir(path.join(ws, '.git'));
    await writeFile(path.join(ws, '.git', 'config'), 'ORIGINAL');
    await writeFile(path.join(ws, '.env'), 'SECRET=1\n');
    await writeFile(path.join(ws, 'notes.txt'), 'notes\n');
  });
  afterEach(async () => workspace.cleanup());

  it('without a guard from the policy, the default lists apply and nothing is approved', async () => {
    const write = await run('write_file', { path: '.git/config', content: 'pwned' });
    assert.equal(write.ok, false);
    assert.match(write.output, /^Refused: protected path \.git\/config \(cortex\.policy\.protectedPaths write: \*\*\/\.git\/\*\*\) needs approval/);
    assert.equal(await readFile(path.join(ws, '.git', 'config'), 'utf8'), 'ORIGINAL');
    for (const [name, args] of [
      ['read_file', { path: '.env' }],
      ['search_text', { pattern: 'SECRET', path: '.env' }],
      ['edit_file', { path: '.env', old_text: 'SECRET', new_text: 'X' }],
      ['create_directory', { path: '.vscode' }],
      ['edit_file', { path: '.git/config', old_text: 'ORIGINAL', new_text: 'X' }],
    ] as const) {
      const result = await run(name, args);
      assert.equal(result.ok, false, name);
      assert.match(result.output, /needs approval/, name);
    }
    assert.equal(await readFile(path.join(ws, '.env'), 'utf8'), 'SECRET=1\n');
  });

  it('an approved finding lets exactly that access through', async () => {
    const approved = createFileGuard(ws, matcher, [GIT_CONFIG]);
    assert.equal((await run('write_file', { path: '.git/config', content: 'approved' }, approved)).ok, true);
    assert.equal(await readFile(path.join(ws, '.git', 'config'), 'utf8'), 'approved');
    const other = await run('write_file', { path: '.git/hooks/pre-commit', content: 'x' }, approved);
    assert.match(other.output, /protected path \.git\/hooks\/pre-commit/);
  });

  it('a symlink swapped in after the question is refused at the access', async () => {
    const guard = createFileGuard(ws, matcher, []); // the policy saw an ordinary notes.txt
    await rename(path.join(ws, 'notes.txt'), path.join(ws, 'notes.old'));
    await symlink('.git/config', path.join(ws, 'notes.txt'));
    const result = await run('write_file', { path: 'notes.txt', content: 'pwned' }, guard);
    assert.equal(result.ok, false);
    assert.match(result.output, /protected path \.git\/config/);
    assert.equal(await readFile(path.join(ws, '.git', 'config'), 'utf8'), 'ORIGINAL');
  });

  it('a hard link made after the question is refused before anything is written', async () => {
    const guard = createFileGuard(ws, matcher, []);
    await link(path.join(ws, 'notes.txt'), path.join(ws, 'other-name.txt'));
    for (const [name, args] of [
      ['write_file', { path: 'notes.txt', content: 'pwned' }],
      ['edit_file', { path: 'notes.txt', old_text: 'notes', new_text: 'pwned' }],
    ] as const) {
      const result = await run(name, args, guard);
      assert.equal(result.ok, false, name);
      assert.match(result.output, /notes\.txt has 2 hard links/, name);
    }
    assert.equal(await readFile(path.join(ws, 'other-name.txt'), 'utf8'), 'notes\n');
  });

  it('a folder search skips read-protected files and says so; find_files and list_directory still list names', async () => {
    await mkdir(path.join(ws, 'deploy'));
    await writeFile(path.join(ws, 'deploy', 'server.pem'), 'SECRET key\n');
    await writeFile(path.join(ws, 'app.txt'), 'SECRET word in code\n');
    const searched = await run('search_text', { pattern: 'SECRET' });
    assert.equal(searched.ok, true);
    assert.equal(
      searched.output,
      'app.txt:1: SECRET word in code\n[not searched, protected from reading without approval (cortex.policy.protectedPaths): .env, deploy/server.pem; use read_file on one to ask]',
    );
    assert.match((await run('find_files', { pattern: '*.pem' })).output, /deploy\/server\.pem/);
    assert.match((await run('list_directory', {})).output, /\.env/);
  });
});
