import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { appendRegular, readLines, readRegularSync } from '../../../src/core/files/regularRead';

// Files a run left behind are read as untrusted: regular files only, never blocking, capped.

async function linesOf(file: string, maxBytes: number, followLinks = false): Promise<Array<{ text: string; complete: boolean }>> {
  const lines: Array<{ text: string; complete: boolean }> = [];
  for await (const line of readLines(file, { what: 'trace file', maxBytes, followLinks })) lines.push(line);
  return lines;
}

describe('reading files a run left behind', () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'cortex-regular-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('yields the same lines as splitting the text, across chunk boundaries and for lines longer than a chunk', async () => {
    const lines = ['a', '', 'x'.repeat(200_000), 'é'.repeat(40_000), 'last without newline'];
    const file = join(dir, 't.jsonl');
    writeFileSync(file, lines.join('\n'));
    const read = await linesOf(file, 1 << 20);
    assert.deepEqual(
      read.map((l) => l.text),
      lines,
    );
    assert.deepEqual(
      read.map((l) => l.complete),
      [true, true, true, true, false],
    );
  });

  it('refuses a FIFO, a device link and an oversized file before reading, and a link unless asked to follow it', async () => {
    const fifo = join(dir, 'fifo');
    execFileSync('mkfifo', [fifo]);
    assert.throws(
      () => readRegularSync(fifo, { what: 'run lock', maxBytes: 10 }),
      /^UnreadableFileError: run lock .*fifo is a FIFO \(named pipe\), not a regular file/,
    );
    const zero = join(dir, 'zero');
    symlinkSync('/dev/zero', zero);
    await assert.rejects(linesOf(zero, 10, true), /is a character device, not a regular file/);
    const big = join(dir, 'big');
    writeFileSync(big, '');
    truncateSync(big, 11);
    assert.throws(() => readRegularSync(big, { what: 'run lock', maxBytes: 10 }), /is 11 bytes, more than the 10 bytes one may hold; it was not read/);
    const link = join(dir, 'link');
    writeFileSync(join(dir, 'real'), 'ok');
    symlinkSync(join(dir, 'real'), link);
    assert.throws(() => readRegularSync(link, { what: 'run lock', maxBytes: 10 }), /is a symbolic link, not a regular file/);
    assert.equal(readRegularSync(link, { what: 'run lock', maxBytes: 10, followLinks: true }).toString(), 'ok');
  });

  it('appends only to a regular file, and says nothing was written to anything else', async () => {
    const file = join(dir, 'run.jsonl');
    writeFileSync(file, 'a\n');
    await appendRegular(file, 'b\n', 'trace file');
    assert.equal(readFileSync(file, 'utf8'), 'a\nb\n');
    const fifo = join(dir, 'swapped.jsonl');
    execFileSync('mkfifo', [fifo]);
    await assert.rejects(appendRegular(fifo, 'c\n', 'trace file'), /trace file .*swapped\.jsonl is a FIFO.*not a regular file; nothing was written to it/);
    await assert.rejects(appendRegular(join(dir, 'gone.jsonl'), 'c\n', 'trace file'), /does not exist/);
  });
});
