import assert from 'node:assert/strict';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { builtinTools } from '../../../src/core/tools/workspace/builtinTools';
import { executeTool } from '../../../src/core/tools/toolExecutor';
import { isInside, resolveInWorkspace } from '../../../src/core/files/workspaceJail';
import { createJailFixture, type JailFixture, SECRET, toolContext } from './workspaceFixture';

const tool = (name: string) => builtinTools.find((t) => t.name === name)!;

async function rejects(promise: Promise<unknown>, pattern: RegExp): Promise<void> {
  await assert.rejects(promise, (error: Error) => {
    assert.equal(error.name, 'ToolError');
    assert.match(error.message, pattern);
    return true;
  });
}

describe('workspaceJail: isInside', () => {
  it('uses separator boundaries', () => {
    assert.equal(isInside('/ws', '/ws'), true);
    assert.equal(isInside('/ws', '/ws/a/b'), true);
    assert.equal(isInside('/ws', '/ws/..foo'), true);
    assert.equal(isInside('/ws', '/ws-evil/a'), false);
    assert.equal(isInside('/ws', '/'), false);
    assert.equal(isInside('/ws', '/other'), false);
  });
});

describe('workspaceJail: resolveInWorkspace', () => {
  let fx: JailFixture;
  before(async () => {
    fx = await createJailFixture();
  });
  after(async () => fx.cleanup());

  it('resolves paths inside, existing or not, to real locations', async () => {
    assert.equal(await resolveInWorkspace(fx.ws, 'inside.txt'), path.join(fx.ws, 'inside.txt'));
    assert.equal(await resolveInWorkspace(fx.ws, 'sub/../inside.txt'), path.join(fx.ws, 'inside.txt'));
    assert.equal(await resolveInWorkspace(fx.ws, path.join(fx.ws, 'sub', 'file.txt')), path.join(fx.ws, 'sub', 'file.txt'));
    assert.equal(await resolveInWorkspace(fx.ws, 'link-in/file.txt'), path.join(fx.ws, 'sub', 'file.txt'));
    assert.equal(await resolveInWorkspace(fx.ws, 'new/deeper/file.txt', { forWrite: true }), path.join(fx.ws, 'new', 'deeper', 'file.txt'));
    assert.equal(await resolveInWorkspace(fx.ws, '.'), fx.ws);
  });

  it('refuses .., absolute paths outside and prefix look-alikes', async () => {
    const outsidePaths = [
      '..',
      '../outside/secret.txt',
      'sub/../../outside/secret.txt',
      path.join(fx.outside, 'secret.txt'),
      path.join(fx.evil, 'secret.txt'),
      '../ws-evil/secret.txt',
      '/etc/passwd',
      '/',
    ];
    for (const p of outsidePaths)
      await rejects(resolveInWorkspace(fx.ws, p), new RegExp(`Path '${p.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}' is outside the workspace`));
  });

  it('refuses symlinks pointing out: file, parent folder, dangling target, dangling folder', async () => {
    for (const p of [
      'link-file-out',
      'link-out',
      'link-out/secret.txt',
      'link-out/new.txt',
      'dangling',
      'dangling-dir/x.txt',
      'link-in/../link-out/secret.txt',
    ]) {
      await rejects(resolveInWorkspace(fx.ws, p, { forWrite: true }), /is outside the workspace/);
    }
  });

  it('works when the workspace itself is opened through a symlink', async () => {
    assert.equal(await resolveInWorkspace(fx.wsLink, 'inside.txt'), path.join(fx.ws, 'inside.txt'));
    assert.equal(await resolveInWorkspace(fx.wsLink, path.join(fx.wsLink, 'inside.txt')), path.join(fx.ws, 'inside.txt'));
    assert.equal(await resolveInWorkspace(fx.wsLink, path.join(fx.ws, 'inside.txt')), path.join(fx.ws, 'inside.txt'));
    await rejects(resolveInWorkspace(fx.wsLink, '../outside/secret.txt'), /outside the workspace/);
  });

  it('refuses empty paths, NUL bytes, symlink loops and writing the root itself', async () => {
    await rejects(resolveInWorkspace(fx.ws, ''), /empty/);
    await rejects(resolveInWorkspace(fx.ws, 'a\0b'), /NUL/);
    await rejects(resolveInWorkspace(fx.ws, 'loop-a/x'), /symbolic links/);
    await rejects(resolveInWorkspace(fx.ws, '.', { forWrite: true }), /workspace folder itself/);
  });
});

describe('workspace tools stay in the jail', () => {
  let fx: JailFixture;
  beforeEach(async () => {
    fx = await createJailFixture();
  });
  afterEach(async () => fx.cleanup());

  const escapes = ['../outside/secret.txt', 'link-file-out', 'link-out/secret.txt', '../ws-evil/secret.txt'];

  async function run(name: string, args: Record<string, unknown>) {
    const result = await executeTool(tool(name), args, toolContext(fx.ws), 32_768);
    assert.ok(!result.output.includes(SECRET), `${name} leaked outside content: ${result.output}`);
    return result;
  }

  it('read_file refuses every escape with a clear error', async () => {
    for (const p of [...escapes, path.join(fx.outside, 'secret.txt'), path.join(fx.evil, 'secret.txt')]) {
      const result = await run('read_file', { path: p });
      assert.equal(result.ok, false, p);
      assert.match(result.output, /is outside the workspace/, p);
    }
  });

  it('write_file refuses escapes, including through a dangling link and a symlinked parent', async () => {
    for (const p of ['../outside/new.txt', 'dangling', 'dangling-dir/x.txt', 'link-out/new.txt', path.join(fx.evil, 'x.txt')]) {
      const result = await run('write_file', { path: p, content: 'pwned' });
      assert.equal(result.ok, false, p);
      assert.match(result.output, /is outside the workspace/, p);
    }
    assert.deepEqual((await readdir(fx.outside)).sort(), ['secret.txt']);
    assert.deepEqual(await readdir(fx.evil), ['secret.txt']);
  });

  it('edit_file and create_directory refuse escapes and change nothing outside', async () => {
    for (const p of escapes) {
      const result = await run('edit_file', { path: p, old_text: 'TOP', new_text: 'PWNED' });
      assert.match(result.output, /is outside the workspace/, p);
    }
    assert.equal(await readFile(path.join(fx.outside, 'secret.txt'), 'utf8'), SECRET);
    const dir = await run('create_directory', { path: 'dangling-dir' });
    assert.match(dir.output, /is outside the workspace/);
    assert.deepEqual((await readdir(fx.outside)).sort(), ['secret.txt']);
  });

  it('list_directory, find_files, search_text and run_command refuse outside folders', async () => {
    for (const [name, args] of [
      ['list_directory', { path: 'link-out' }],
      ['list_directory', { path: '..' }],
      ['find_files', { pattern: '*', path: 'link-out' }],
      ['search_text', { pattern: 'SECRET', path: 'link-out' }],
      ['search_text', { pattern: 'SECRET', path: 'link-file-out' }],
      ['run_command', { command: 'cat secret.txt', cwd: 'link-out' }],
      ['run_command', { command: 'ls', cwd: '../ws-evil' }],
    ] as const) {
      const result = await run(name, args);
      assert.equal(result.ok, false, `${name} ${JSON.stringify(args)}`);
      assert.match(result.output, /is outside the workspace/);
    }
  });

  it('recursive tools never follow a link out of the workspace', async () => {
    const found = await run('find_files', { pattern: '**/*' });
    assert.ok(!found.output.includes('secret.txt'), found.output);
    assert.match(found.output, /inside\.txt/);
    const searched = await run('search_text', { pattern: 'SECRET|content' });
    assert.match(searched.output, /inside\.txt:1: inside content/);
    assert.ok(!searched.output.includes('secret'), searched.output);
    const listed = await run('list_directory', {});
    assert.match(listed.output, /^link-out@$/m);
  });
});
