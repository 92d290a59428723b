import assert from 'node:assert/strict';
import { mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { approvalPreview, PREVIEW_MAX_LINES, shortenDiff } from '../../../src/core/checkpoints/approvalPreview';
import { editFileTool } from '../../../src/core/tools/workspace/editFile';
import { readFileTool } from '../../../src/core/tools/workspace/readFile';
import { writeFileTool } from '../../../src/core/tools/workspace/writeFile';
import type { ToolDefinition } from '../../../src/core/tools/toolTypes';
import { callProtection } from '../../../src/core/tools/callProtection';
import { DEFAULT_PROTECTED_PATHS } from '../../../src/core/files/protectedPaths';

describe('approval previews', () => {
  let ws: string;
  beforeEach(() => {
    ws = realpathSync(mkdtempSync(join(tmpdir(), 'cortex-preview-')));
  });
  afterEach(() => rmSync(ws, { recursive: true, force: true }));

  it('cuts a long diff to what a card shows and says how much is left out', () => {
    const long = Array.from({ length: 200 }, (_, i) => `+line ${i}`).join('\n') + '\n';
    const short = shortenDiff(long);
    assert.equal(short.split('\n').length, PREVIEW_MAX_LINES + 2);
    assert.match(short, /… 120 more lines of the diff not shown\n$/);
    assert.equal(shortenDiff('--- a\n+++ b\n'), '--- a\n+++ b\n');
  });

  it('gives none for what the call will refuse (a missing text, a path outside, a binary file), for a read-protected file, or for other tools', async () => {
    writeFileSync(join(ws, 'a.txt'), 'alpha\n');
    writeFileSync(join(ws, 'bin.dat'), Buffer.from([1, 0, 2]));
    const guard = callProtection(ws, DEFAULT_PROTECTED_PATHS).guard(undefined);
    const preview = (tool: unknown, args: unknown) => approvalPreview(ws, tool as ToolDefinition, args, 1_000_000, guard);
    assert.equal(await preview(editFileTool, { path: 'a.txt', old_text: 'absent', new_text: 'x' }), undefined);
    assert.equal(await preview(editFileTool, { path: 'missing.txt', old_text: 'a', new_text: 'b' }), undefined);
    assert.equal(await preview(writeFileTool, { path: '../outside.txt', content: 'x' }), undefined);
    assert.equal(await preview(writeFileTool, { path: 'bin.dat', content: 'x' }), undefined);
    assert.equal(await preview(readFileTool, { path: 'a.txt' }), undefined);
    // A read-protected file is never read for a preview (its content would reach the trace).
    writeFileSync(join(ws, '.env'), 'TOKEN=secret\n');
    assert.equal(await preview(editFileTool, { path: '.env', old_text: 'secret', new_text: 'other' }), undefined);
    assert.equal(await preview(writeFileTool, { path: '.env', content: 'TOKEN=x\n' }), undefined);
    assert.match((await preview(writeFileTool, { path: 'a.txt', content: 'beta\n' })) ?? '', /-alpha\n\+beta/);
    assert.equal(await preview(writeFileTool, { path: 'a.txt', content: 'alpha\n' }), "(no change: 'a.txt' already has this content)\n");
  });
});
