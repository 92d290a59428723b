import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { repairTraceTail } from '../../../src/core/resume/traceTail';
import { parseTrace } from '../../../src/core/trace/traceReader';

const started = { seq: 0, time: 1, type: 'run_started', runId: 'run-1', task: 't', workspace: '/ws', model: 'm', baseUrl: 'http://x' };
const created = { seq: 1, time: 2, type: 'plan_created', title: 'plan' };
const line = (event: object) => `${JSON.stringify(event)}\n`;

function file(text: string): string {
  const path = join(mkdtempSync(join(tmpdir(), 'cortex-tail-')), 'trace.jsonl');
  writeFileSync(path, text);
  return path;
}

describe('trace tail repair', () => {
  it('leaves a trace that ends with a complete line alone', async () => {
    const path = file(line(started) + line(created));
    assert.deepEqual(await repairTraceTail(path), { removedBytes: 0 });
    assert.equal(readFileSync(path, 'utf8'), line(started) + line(created));
  });

  it('truncates a line cut off mid-write, so the file is valid JSON Lines again', async () => {
    const cut = line(created).slice(0, 20);
    const path = file(line(started) + cut);
    const repair = await repairTraceTail(path);
    assert.equal(repair.removedBytes, Buffer.byteLength(cut));
    assert.match(repair.message ?? '', /last line was cut off .*removed/);
    assert.equal(readFileSync(path, 'utf8'), line(started));
    assert.deepEqual(
      parseTrace(readFileSync(path, 'utf8')).events.map((e) => e.seq),
      [0],
    );
  });

  it('a cut inside a multi-byte character is removed whole', async () => {
    const bytes = Buffer.from(line({ ...created, title: 'plan — ünïcode' }));
    const cutAt = bytes.indexOf(Buffer.from('ü')) + 1; // between the two bytes of ü
    const path = file('');
    writeFileSync(path, Buffer.concat([Buffer.from(line(started)), bytes.subarray(0, cutAt)]));
    await repairTraceTail(path);
    assert.equal(readFileSync(path, 'utf8'), line(started));
  });

  it('a complete last event that lacks only its newline gets it', async () => {
    const path = file(line(started) + JSON.stringify(created));
    const repair = await repairTraceTail(path);
    assert.equal(repair.removedBytes, 0);
    assert.match(repair.message ?? '', /no line end/);
    assert.equal(readFileSync(path, 'utf8'), line(started) + line(created));
  });
});
