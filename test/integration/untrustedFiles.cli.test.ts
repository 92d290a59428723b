import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, symlinkSync, truncateSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { main } from '../../src/cli/main';
import { ContentStore, hashBytes } from '../../src/core/checkpoints/contentStore';
import { call, json, message, route, toolCalls, toolMessages } from '../support/scriptedReplies';
import { useScriptedServer } from '../support/useScriptedServer';

// Traces and checkpoint objects are read the way workspace files are (docs/design.md,
// “Checkpoints and revert”): a FIFO, a link to /dev/zero or an oversized file in their place makes
// `cortex diff`, `revert` and `resume` fail at once with one clear line, reading nothing of it.

async function cli(argv: string[]) {
  const collect = () => {
    const stream = new PassThrough();
    let text = '';
    stream.on('data', (d) => (text += d));
    return { stream, text: () => text };
  };
  const stdout = collect();
  const stderr = collect();
  const stdin = Object.assign(new PassThrough(), { isTTY: false });
  const started = Date.now();
  const rssBefore = process.memoryUsage().rss;
  const code = await main(argv, { stdout: stdout.stream, stderr: stderr.stream, stdin, cwd: process.cwd(), env: process.env });
  const result = { code, stdout: stdout.text(), stderr: stderr.text(), ms: Date.now() - started, grewBytes: process.memoryUsage().rss - rssBefore };
  assert.doesNotMatch(result.stderr, /\n\s+at /, `stack trace in:\n${result.stderr}`);
  return result;
}

/** Fails fast, with exactly one line on stderr matching `line`, and without reading a flood into memory. */
function assertFailsFast(result: Awaited<ReturnType<typeof cli>>, line: RegExp, code = 2): void {
  assert.equal(result.code, code, result.stderr);
  assert.ok(result.ms < 2000, `took ${result.ms} ms`);
  assert.ok(result.grewBytes < 100 * 1024 * 1024, `memory grew by ${result.grewBytes} bytes`);
  const lines = result.stderr.split('\n').filter((l) => l.startsWith('cortex:'));
  assert.equal(lines.length, 1, result.stderr);
  assert.match(lines[0], line);
}

describe('traces and checkpoint objects are read as untrusted files', function () {
  this.timeout(30_000);
  const server = useScriptedServer();
  let base: string;
  let ws: string;
  let trace: string;

  beforeEach(async () => {
    base = realpathSync(mkdtempSync(join(tmpdir(), 'cortex-untrusted-')));
    ws = join(base, 'ws');
    mkdirSync(ws);
    writeFileSync(join(ws, 'b.txt'), 'old\n');
    trace = join(base, 'run.jsonl');
    server().setHandler(
      route({
        planner: json({ title: 'One', steps: ['Rewrite b.txt'], dependencies: {} }),
        executor: (req) => (toolMessages(req).length > 0 ? message('done') : toolCalls(call('write_file', { path: 'b.txt', content: 'new\n' }))),
        aggregator: message('done'),
      }),
    );
    const ran = await cli(['run', '--workspace', ws, '--base-url', server().baseUrl, '--model', 'm', '--trace', trace, '--approve', 'all', 'rewrite it']);
    assert.equal(ran.code, 0, ran.stderr);
  });

  const commands = (file: string) => [
    ['diff', '--workspace', ws, '--trace', file],
    ['revert', '--workspace', ws, '--trace', file],
    ['resume', '--workspace', ws, '--trace', file, '--base-url', server().baseUrl, '--model', 'm', '--approve', 'none'],
  ];

  it('a FIFO as the trace', async () => {
    const fifo = join(base, 'fifo.jsonl');
    execFileSync('mkfifo', [fifo]);
    for (const argv of commands(fifo))
      assertFailsFast(await cli(argv), /^cortex: trace file .*fifo\.jsonl is a FIFO \(named pipe\), not a regular file; it was not read$/);
    assert.equal(
      server()
        .chatRequests()
        .filter((r) => r.purpose === 'planner').length,
      1,
      'nothing was resumed',
    );
  });

  it('a symbolic link to /dev/zero as the trace', async () => {
    const zero = join(base, 'zero.jsonl');
    symlinkSync('/dev/zero', zero);
    for (const argv of commands(zero))
      assertFailsFast(await cli(argv), /^cortex: trace file .*zero\.jsonl is a character device, not a regular file; it was not read$/);
  });

  it('a 1 GiB trace (sparse) is refused before it is read', async () => {
    const huge = join(base, 'huge.jsonl');
    writeFileSync(huge, readFileSync(trace));
    truncateSync(huge, 1024 ** 3);
    for (const argv of commands(huge))
      assertFailsFast(await cli(argv), /^cortex: trace file .*huge\.jsonl is 1\.0 GiB, more than the 256 MiB one may hold; it was not read$/);
  });

  it('a FIFO or a /dev/zero link in the checkpoint folder: diff fails with one line, revert leaves the file alone', async () => {
    const object = new ContentStore(`${trace}.checkpoints`).pathOf(hashBytes(Buffer.from('old\n')));
    unlinkSync(object);
    execFileSync('mkfifo', [object]);
    assertFailsFast(
      await cli(['diff', '--workspace', ws, '--trace', trace]),
      /^cortex: checkpoint object .* is a FIFO \(named pipe\), not a regular file; it was not read$/,
    );
    const reverted = await cli(['revert', '--workspace', ws, '--trace', trace]);
    assert.equal(reverted.code, 1, reverted.stderr);
    assert.ok(reverted.ms < 2000, `took ${reverted.ms} ms`);
    assert.match(reverted.stdout, /left alone: b\.txt — checkpoint object .* is a FIFO \(named pipe\), not a regular file; it was not read/);
    assert.equal(readFileSync(join(ws, 'b.txt'), 'utf8'), 'new\n');

    unlinkSync(object);
    symlinkSync('/dev/zero', object);
    assertFailsFast(
      await cli(['diff', '--workspace', ws, '--trace', trace]),
      /^cortex: checkpoint object .* is a symbolic link, not a regular file; it was not read$/,
    );
    const again = await cli(['revert', '--workspace', ws, '--trace', trace]);
    assert.equal(again.code, 1, again.stderr);
    assert.ok(again.grewBytes < 100 * 1024 * 1024, `memory grew by ${again.grewBytes} bytes`);
    assert.equal(readFileSync(join(ws, 'b.txt'), 'utf8'), 'new\n');
  });

  it('a FIFO as the run lock: resume says so at once', async () => {
    const interrupted = join(base, 'interrupted.jsonl');
    writeFileSync(
      interrupted,
      readFileSync(trace, 'utf8')
        .split('\n')
        .filter((line) => line !== '' && !line.includes('"type":"run_finished"'))
        .map((line) => `${line}\n`)
        .join(''),
    );
    execFileSync('mkfifo', [`${interrupted}.lock`]);
    assertFailsFast(
      await cli(['resume', '--workspace', ws, '--trace', interrupted, '--base-url', server().baseUrl, '--model', 'm', '--approve', 'none']),
      /^cortex: run lock .*interrupted\.jsonl\.lock is a FIFO \(named pipe\), not a regular file; it was not read; if no process drives the run, delete it and try again$/,
    );
  });
});
