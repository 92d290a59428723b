import assert from 'node:assert/strict';
import { capOutput, prepareToolOutput, stripAnsi } from '../../../src/core/tools/outputCap';

describe('outputCap', () => {
  it('strips ANSI colour, cursor and hyperlink sequences', () => {
    const text = '\u001b[31mred\u001b[0m \u001b[1;32mbold green\u001b[39m \u001b[2K\u001b[1Gline \u001b]8;;http://x\u0007link\u001b]8;;\u0007';
    assert.equal(stripAnsi(text), 'red bold green line link');
  });

  it('leaves text under the cap untouched', () => {
    assert.equal(capOutput('hello', 100), 'hello');
  });

  it('keeps head and tail within the cap and says how much was cut', () => {
    const text = `HEAD${'x'.repeat(10_000)}TAIL`;
    const capped = capOutput(text, 500);
    assert.ok(Buffer.byteLength(capped) <= 500, `got ${Buffer.byteLength(capped)} bytes`);
    assert.ok(capped.startsWith('HEAD'));
    assert.ok(capped.endsWith('TAIL'));
    const omitted = Number(/output truncated: (\d+) of 10008 bytes omitted/.exec(capped)?.[1]);
    assert.equal(omitted, 10_008 - Buffer.byteLength(capped.split('\n\n[')[0]) - Buffer.byteLength(capped.split(']\n\n')[1]));
  });

  it('never splits a multi-byte character', () => {
    const capped = capOutput('€'.repeat(2000), 300);
    assert.ok(!capped.includes('\uFFFD'));
    assert.ok(Buffer.byteLength(capped) <= 300);
  });

  it('strips before capping', () => {
    const text = `\u001b[31m${'a'.repeat(100)}\u001b[0m`;
    assert.equal(prepareToolOutput(text, 100), 'a'.repeat(100));
  });
});
