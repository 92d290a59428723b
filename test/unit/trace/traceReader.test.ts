import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { createReadStream, existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EventLog } from '../../../src/core/plan/eventLog';
import { toSnapshot } from '../../../src/core/plan/snapshot';
import { createTraceWriter } from '../../../src/core/trace/traceWriter';
import { parseTrace, readTrace, TraceError } from '../../../src/core/trace/traceReader';
import { readTraceSync } from '../../support/traceFile';

function sampleRun(): EventLog {
  const log = new EventLog();
  log.append({ type: 'run_started', runId: 'r1', task: 't', workspace: '/ws', model: 'm', baseUrl: 'http://127.0.0.1:1/v1' });
  log.append({ type: 'step_added', stepId: 's1', description: 'd', dependsOn: [], lineage: 's1', replanAttempts: 0, origin: 'planner' });
  log.append({ type: 'run_finished', status: 'completed', plan: toSnapshot(log.state) });
  return log;
}

describe('trace files', () => {
  const dir = mkdtempSync(join(tmpdir(), 'cortex-trace-test-'));

  it('writes one event per line and reads the same events back', async () => {
    const log = new EventLog();
    const file = join(dir, 'nested', 'run.jsonl');
    const writer = createTraceWriter(file);
    log.subscribe(writer.listener);
    for (const event of sampleRun().events) log.append(event);
    await writer.close();
    const { events, warnings } = readTraceSync(file);
    assert.deepEqual(events, JSON.parse(JSON.stringify(log.events)));
    assert.deepEqual(warnings, []);
  });

  it('writes each burst of events in one write, readable before close, and appends when asked', async () => {
    const file = join(dir, 'live.jsonl');
    const writer = createTraceWriter(file);
    const run = sampleRun();
    const [first, second, third] = run.events;
    writer.listener(first, run.state);
    writer.listener(second, run.state);
    assert.equal(existsSync(file) ? readFileSync(file, 'utf8') : '', '', 'nothing is written in the turn the events happen');
    const deadline = Date.now() + 5_000;
    while (!(existsSync(file) && readFileSync(file, 'utf8').split('\n').length > 2) && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 5));
    assert.deepEqual(readTraceSync(file).events, JSON.parse(JSON.stringify([first, second])), 'readable while the run goes on');
    await writer.close();
    const resumed = createTraceWriter(file, { append: true });
    resumed.listener(third, run.state);
    await resumed.close();
    assert.equal(readTraceSync(file).events.length, 3);
    assert.equal(resumed.error(), undefined);
  });

  it('never holds the thread while the disk does not answer, and keeps the order of what waited', async function () {
    // A FIFO nobody reads yet: opening it for writing waits until a reader comes, as a hung
    // network disk would. The run's thread must go on meanwhile.
    const fifo = join(dir, 'slow.jsonl');
    execFileSync('mkfifo', [fifo]);
    const writer = createTraceWriter(fifo);
    const run = sampleRun();
    let turns = 0;
    for (const event of run.events) {
      writer.listener(event, run.state);
      await new Promise((resolve) => setImmediate(resolve));
      turns++;
    }
    const closed = writer.close();
    assert.equal(turns, run.events.length, 'the event loop turned while the trace could not be opened');
    const reader = createReadStream(fifo, 'utf8');
    let text = '';
    reader.on('data', (chunk) => (text += String(chunk)));
    await closed;
    await new Promise<void>((resolve) => reader.on('close', () => resolve()));
    assert.deepEqual(parseTrace(text).events, JSON.parse(JSON.stringify(run.events)), 'every event, in order');
    assert.equal(writer.error(), undefined);
  });

  it('reports a trace file that cannot be opened instead of throwing at the run', async () => {
    const writer = createTraceWriter(dir); // a folder, not a file
    const run = sampleRun();
    writer.listener(run.events[0], run.state);
    await writer.close();
    assert.match(writer.error()?.message ?? '', /EISDIR|illegal operation on a directory/);
  });

  it('drops a cut-off last line with a warning, and says when the run did not finish', () => {
    const lines = sampleRun()
      .events.slice(0, 2)
      .map((e) => JSON.stringify(e));
    const { events, warnings } = parseTrace(`${lines.join('\n')}\n{"seq":2,"ty`);
    assert.equal(events.length, 2);
    assert.match(warnings[0], /line 3 is cut off/);
    assert.match(warnings[1], /did not finish/);
  });

  it('names the line of a broken or foreign line, and refuses events out of order', () => {
    const [a, b, c] = sampleRun().events.map((e) => JSON.stringify(e));
    assert.throws(
      () => parseTrace(`${a}\nnot json\n${c}`),
      (e: Error) => e instanceof TraceError && /line 2 is not valid JSON/.test(e.message),
    );
    assert.throws(() => parseTrace(`${a}\n{"seq":1,"time":1,"type":"alien"}\n${c}`), /line 2 is not a Cortex event/);
    assert.throws(() => parseTrace(`${b}\n${a}`), /seq 0 after 1/);
    assert.throws(() => parseTrace('\n\n'), /empty/);
  });

  it("reads a streamed redesign's step (redesignOf) and refuses one whose redesignOf is not a step id", () => {
    const [a, b, c] = sampleRun().events.map((e) => JSON.parse(JSON.stringify(e)) as Record<string, unknown>);
    const line = (redesignOf: unknown) => JSON.stringify({ ...b, stepId: 's2', origin: 'replan', redesignOf });
    const { events } = parseTrace([a, b, JSON.parse(line('s1')) as object].map((e, seq) => JSON.stringify({ ...e, seq })).join('\n'));
    assert.equal((events[2] as { redesignOf?: string }).redesignOf, 's1');
    assert.throws(() => parseTrace(`${JSON.stringify(a)}\n${line({ evil: true })}\n${JSON.stringify(c)}`), /line 2 is not a Cortex event/);
  });

  it('a missing file is a clear error', async () => {
    await assert.rejects(readTrace(join(dir, 'missing.jsonl')), /trace file .*missing\.jsonl does not exist/);
    writeFileSync(join(dir, 'x.jsonl'), '');
    await assert.rejects(readTrace(join(dir, 'x.jsonl')), /empty/);
  });

  it('read from its file in chunks, a trace gives what its text gives, and a FIFO is refused', async () => {
    const file = join(dir, 'async.jsonl');
    const lines = sampleRun().events.map((event) => `${JSON.stringify(event)}\n`);
    // Longer than one read, with a cut-off line at the end.
    const long = { ...sampleRun().events[0], task: 'y'.repeat(2_000_000) };
    writeFileSync(file, `${lines[0]}${JSON.stringify(long).replace('"seq":0', '"seq":1')}\n{"seq":2,"ty`);
    assert.deepEqual(await readTrace(file), parseTrace(readFileSync(file, 'utf8'), file));
    assert.equal((await readTrace(file)).events.length, 2);
    const fifo = join(dir, 'fifo.jsonl');
    execFileSync('mkfifo', [fifo]);
    await assert.rejects(readTrace(fifo), (error: unknown) => error instanceof TraceError && /FIFO|not a regular file/.test(error.message));
  });
});
