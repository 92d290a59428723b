import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { chmod, mkdir, open, stat, symlink, writeFile } from 'node:fs/promises';
import net from 'node:net';
import path from 'node:path';
import { builtinTools } from '../../../src/core/tools/workspace/builtinTools';
import { executeTool, type ToolRunResult } from '../../../src/core/tools/toolExecutor';
import { openRegularFile, openVerified, readAtMost } from '../../../src/core/files/regularFile';
import { createTempWorkspace, toolContext } from './workspaceFixture';

// File tools act on regular files only, and never block opening something else: a FIFO opened
// for reading without a writer (or for writing without a reader) would hold a libuv pool thread
// forever. Each call here must fail (or skip) at once; the mocha timeout is the backstop.

const tool = (name: string) => builtinTools.find((t) => t.name === name)!;

describe('special files (FIFOs, sockets) and regular-file checks', function () {
  this.timeout(5000);
  let ws: string;
  let workspace: { ws: string; cleanup(): Promise<void> };
  let socketServer: net.Server;
  const run = (name: string, args: Record<string, unknown>): Promise<ToolRunResult> =>
    executeTool(tool(name), tool(name).schema.parse(args), toolContext(ws, { timeoutMs: 3000 }), 32_768);

  before(async () => {
    workspace = await createTempWorkspace();
    ws = workspace.ws;
    execFileSync('mkfifo', [path.join(ws, 'pipe')]);
    await mkdir(path.join(ws, 'dir'));
    execFileSync('mkfifo', [path.join(ws, 'dir', 'inner-pipe')]);
    await writeFile(path.join(ws, 'dir', 'text.txt'), 'needle\n');
    socketServer = net.createServer();
    await new Promise<void>((done) => socketServer.listen(path.join(ws, 'dir', 'agent.sock'), done));
    await symlink('pipe', path.join(ws, 'pipe-link'));
  });
  after(async () => {
    socketServer.close();
    await workspace.cleanup();
  });

  it('read_file, write_file, edit_file and search_text refuse a FIFO at once, also through a symlink', async () => {
    for (const [name, args] of [
      ['read_file', { path: 'pipe' }],
      ['write_file', { path: 'pipe', content: 'x' }],
      ['edit_file', { path: 'pipe', old_text: 'a', new_text: 'b' }],
      ['search_text', { pattern: 'x', path: 'pipe' }],
      ['write_file', { path: 'pipe-link', content: 'x' }],
      ['read_file', { path: 'pipe-link' }],
    ] as const) {
      const started = Date.now();
      const result = await run(name, args);
      assert.equal(result.ok, false, `${name} ${JSON.stringify(args)}: ${result.output}`);
      assert.match(result.output, /'pipe(-link)?' is a FIFO \(named pipe\), not a regular file/, name);
      assert.ok(Date.now() - started < 1000, `${name} took ${Date.now() - started} ms`);
    }
  });

  it('a socket is refused the same way', async () => {
    for (const [name, args] of [
      ['read_file', { path: 'dir/agent.sock' }],
      ['write_file', { path: 'dir/agent.sock', content: 'x' }],
      ['search_text', { pattern: 'x', path: 'dir/agent.sock' }],
    ] as const) {
      assert.match((await run(name, args)).output, /'dir\/agent\.sock' is a socket, not a regular file/, name);
    }
  });

  it('walkers skip them: search_text and find_files see only the regular file, list_directory counts them', async () => {
    assert.equal((await run('search_text', { pattern: 'needle', path: 'dir' })).output, 'dir/text.txt:1: needle');
    assert.equal((await run('find_files', { pattern: '*', path: 'dir' })).output, 'dir/text.txt');
    assert.equal((await run('list_directory', { path: 'dir' })).output, 'text.txt\n[2 special files (FIFOs, sockets or devices) not shown]');
  });

  it('openRegularFile decides on what it opened (fstat), and does not follow a final symlink', async () => {
    await assert.rejects(openRegularFile(path.join(ws, 'pipe'), 'pipe', 'read'), /FIFO/);
    await assert.rejects(openRegularFile(path.join(ws, 'pipe-link'), 'pipe-link', 'write'), /'pipe-link' is a symbolic link, not a regular file/);
    await assert.rejects(
      openRegularFile(path.join(ws, 'dir'), 'dir', 'read', { directoryHint: '; use list_directory' }),
      /'dir' is a directory; use list_directory/,
    );
    const { handle, stats } = await openRegularFile(path.join(ws, 'dir', 'text.txt'), 'dir/text.txt', 'read');
    assert.equal(stats.isFile(), true);
    await handle.close();
  });

  it('the open itself never blocks on a FIFO swapped in after the lstat, and fstat refuses it', async () => {
    const started = Date.now();
    await assert.rejects(openVerified(path.join(ws, 'pipe'), 'pipe', 'read'), /'pipe' is a FIFO \(named pipe\), not a regular file/);
    await assert.rejects(openVerified(path.join(ws, 'pipe'), 'pipe', 'update'), /'pipe' is a FIFO \(named pipe\), not a regular file/);
    await assert.rejects(openVerified(path.join(ws, 'pipe'), 'pipe', 'write'), /'pipe' is a FIFO, socket or device, not a regular file/);
    await assert.rejects(openVerified(path.join(ws, 'pipe-link'), 'pipe-link', 'read'), /'pipe-link' became a symbolic link/);
    assert.ok(Date.now() - started < 1000, `took ${Date.now() - started} ms`);
  });

  it('readAtMost stops one byte past the limit (a file that grew past its checked size)', async () => {
    await writeFile(path.join(ws, 'grown.txt'), 'x'.repeat(200_000));
    const handle = await open(path.join(ws, 'grown.txt'), 'r');
    try {
      const { buffer, truncated } = await readAtMost(handle, 100_000);
      assert.equal(truncated, true);
      assert.equal(buffer.length, 100_000);
      assert.deepEqual(await readAtMost(handle, 200_000).then((r) => [r.buffer.length, r.truncated]), [200_000, false]);
    } finally {
      await handle.close();
    }
  });

  it("write_file keeps an existing file's mode and creates new files without execute bits", async () => {
    await writeFile(path.join(ws, 'mode.txt'), 'a');
    await chmod(path.join(ws, 'mode.txt'), 0o640);
    assert.equal((await run('write_file', { path: 'mode.txt', content: 'bb' })).ok, true);
    assert.equal((await stat(path.join(ws, 'mode.txt'))).mode & 0o777, 0o640);
    assert.equal((await run('write_file', { path: 'new/deep/script.sh', content: '#!/bin/sh\n' })).output, "Created 'new/deep/script.sh' (10 bytes)");
    assert.equal((await stat(path.join(ws, 'new', 'deep', 'script.sh'))).mode & 0o111, 0);
  });

  it('write_file replaces a longer content completely (no stale tail)', async () => {
    await writeFile(path.join(ws, 'shrink.txt'), 'a much longer original content\n');
    assert.equal((await run('write_file', { path: 'shrink.txt', content: 'short' })).output, "Overwrote 'shrink.txt' (5 bytes)");
    assert.equal((await run('read_file', { path: 'shrink.txt' })).output, 'short');
    assert.equal((await run('edit_file', { path: 'shrink.txt', old_text: 'short', new_text: 's' })).ok, true);
    assert.equal((await run('read_file', { path: 'shrink.txt' })).output, 's');
  });
});
