import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { builtinTools } from '../../../src/core/tools/workspace/builtinTools';
import { executeTool, type ToolRunResult } from '../../../src/core/tools/toolExecutor';
import type { ToolContext } from '../../../src/core/tools/toolTypes';
import { createTempWorkspace, toolContext } from './workspaceFixture';

// search_text reads files in 64 KB chunks and matches line by line: line numbers, multi-byte
// characters and long lines must come out the same as for a file read whole, and files over the
// size limit are skipped before any read, with a note.

const CHUNK = 64 * 1024;
const search = builtinTools.find((t) => t.name === 'search_text')!;

describe('search_text streaming', () => {
  let ws: string;
  let workspace: { ws: string; cleanup(): Promise<void> };
  const run = (args: Record<string, unknown>, overrides: Partial<ToolContext> = {}): Promise<ToolRunResult> =>
    executeTool(search, search.schema.parse(args), toolContext(ws, overrides), 32_768);

  beforeEach(async () => {
    workspace = await createTempWorkspace();
    ws = workspace.ws;
  });
  afterEach(async () => workspace.cleanup());

  it('numbers lines correctly across chunk boundaries, also inside a line longer than a chunk', async () => {
    const filler = `${'x'.repeat(100)}\n`.repeat(Math.ceil(CHUNK / 101)); // ends past the first chunk
    const fillerLines = Math.ceil(CHUNK / 101);
    const long = `${'y'.repeat(CHUNK * 2)} needle-long`;
    await writeFile(path.join(ws, 'a.txt'), `needle-first\n${filler}needle-after\n${long}\nlast needle-end`);
    const result = await run({ pattern: 'needle-(first|after|end)' });
    assert.equal(result.output, `a.txt:1: needle-first\na.txt:${fillerLines + 2}: needle-after\na.txt:${fillerLines + 4}: last needle-end`);
    const longHit = await run({ pattern: 'needle-long$' });
    assert.match(longHit.output, new RegExp(`^a\\.txt:${fillerLines + 3}: y{300}…$`));
  });

  it('decodes a multi-byte character split between two chunks', async () => {
    await writeFile(path.join(ws, 'u.txt'), `${'a'.repeat(CHUNK - 2)}\n\u00e9t\u00e9 needle \u{1F600}\n`);
    await writeFile(path.join(ws, 'v.txt'), `${'b'.repeat(CHUNK - 1)}\u00e9 needle\n`);
    const result = await run({ pattern: 'needle' });
    assert.match(result.output, /^u\.txt:2: été needle 😀$/m);
    assert.match(result.output, /^v\.txt:1: b{300}…$/m);
    assert.equal((await run({ pattern: '^b+é needle$', path: 'v.txt' })).ok, true);
    assert.match((await run({ pattern: '^b+é needle$', path: 'v.txt' })).output, /^v\.txt:1: /);
  });

  it('handles CRLF line ends ($ anchors work) and a last line without a newline', async () => {
    await writeFile(path.join(ws, 'crlf.txt'), 'one needle\r\ntwo\r\nthree needle');
    assert.equal((await run({ pattern: 'needle$' })).output, 'crlf.txt:1: one needle\ncrlf.txt:3: three needle');
  });

  it('skips files over cortex.limits.maxReadFileBytes before reading them, and names them', async () => {
    await writeFile(path.join(ws, 'big.log'), `needle\n${'z'.repeat(5000)}\n`);
    await writeFile(path.join(ws, 'small.txt'), 'needle\n');
    const result = await run({ pattern: 'needle' }, { maxReadFileBytes: 2048 });
    assert.equal(result.output, 'small.txt:1: needle\n[not searched, over the 2048-byte size limit (cortex.limits.maxReadFileBytes): big.log]');
    const single = await run({ pattern: 'needle', path: 'big.log' }, { maxReadFileBytes: 2048 });
    assert.equal(
      single.output,
      'No matches for "needle" in \'big.log\'\n[not searched, over the 2048-byte size limit (cortex.limits.maxReadFileBytes): big.log]',
    );
  });

  it('skips binary files and stops at max_results across files', async () => {
    await writeFile(path.join(ws, 'bin.dat'), Buffer.concat([Buffer.from('needle\n'), Buffer.from([0, 1, 2])]));
    for (const name of ['a.txt', 'b.txt', 'c.txt']) await writeFile(path.join(ws, name), 'needle\nneedle\n');
    assert.equal(
      (await run({ pattern: 'needle', max_results: 3 })).output,
      'a.txt:1: needle\na.txt:2: needle\nb.txt:1: needle\n[more matches not shown; limit 3]',
    );
    assert.doesNotMatch((await run({ pattern: 'needle' })).output, /bin\.dat/);
  });
});
