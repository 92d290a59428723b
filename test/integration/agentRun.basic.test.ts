import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createTraceWriter } from '../../src/core/trace/traceWriter';
import { readTraceSync } from '../support/traceFile';
import { eventsOf, runAgainst, tempWorkspace } from '../support/agentHarness';
import { byStep, call, firstUserMessage, json, message, route, toolCalls } from '../support/scriptedReplies';
import { useScriptedServer } from '../support/useScriptedServer';

describe('agent run: walking skeleton through the scripted endpoint', () => {
  const server = useScriptedServer();

  it('plans, runs dependent steps with real tools, aggregates, and tags every request', async () => {
    server().setHandler(
      route({
        planner: json({ title: 'Greeting files', steps: ['Write hello.txt containing hi', 'Copy hello.txt to copy.txt'], dependencies: { '1': [0] } }),
        executor: byStep({
          'Write hello.txt': [toolCalls(call('write_file', { path: 'hello.txt', content: 'hi' })), message('wrote hello.txt')],
          'Copy hello.txt to copy.txt': [
            toolCalls(call('read_file', { path: 'hello.txt' })),
            toolCalls(call('write_file', { path: 'copy.txt', content: 'hi' })),
            message('copied'),
          ],
        }),
        aggregator: message('Both files exist.'),
      }),
    );
    const workspace = tempWorkspace();
    const trace = join(tempWorkspace('cortex-trace-'), 'run.jsonl');
    const writer = createTraceWriter(trace);
    const { result, events } = await runAgainst(server(), {
      workspace,
      task: 'make greeting files',
      onStart: (_run, log) => log.subscribe(writer.listener),
    });
    await writer.close();
    server().assertNoRejections();

    assert.equal(result.status, 'completed', result.error);
    assert.equal(result.answer, 'Both files exist.');
    assert.equal(readFileSync(join(workspace, 'hello.txt'), 'utf8'), 'hi');
    assert.equal(readFileSync(join(workspace, 'copy.txt'), 'utf8'), 'hi');

    // Every request is tagged with its purpose; executor requests name their step.
    const purposes = server().requests.map((r) => r.purpose);
    assert.deepEqual([...new Set(purposes)].sort(), ['aggregator', 'executor', 'planner']);
    const stepIds = result.snapshot.steps.map((s) => s.id);
    for (const req of server().requests.filter((r) => r.purpose === 'executor')) assert.ok(stepIds.includes(req.stepId!), `x-cortex-step ${req.stepId}`);

    // The dependent step's first user message has its description verbatim and its dependency's output.
    const copyReq = server().requests.find((r) => r.purpose === 'executor' && firstUserMessage(r).includes('Copy hello.txt to copy.txt'))!;
    assert.match(firstUserMessage(copyReq), /wrote hello\.txt/);

    // Snapshot shape promised by the README.
    const [first, second] = result.snapshot.steps;
    assert.deepEqual(second.dependsOn, [first.id]);
    assert.equal(first.toolCalls[0].name, 'write_file');
    assert.equal(first.toolCalls[0].status, 'success');
    assert.equal(first.toolCalls[0].nameResolution, 'exact');

    // The trace is the same events, one per line, ending with run_finished + the plan snapshot.
    const { events: traced } = readTraceSync(trace);
    assert.equal(traced.length, events.length);
    const last = traced[traced.length - 1];
    assert.equal(last.type, 'run_finished');
    assert.equal(last.type === 'run_finished' && last.status, 'completed');
    assert.equal(last.type === 'run_finished' && last.plan.steps.length, 2);
    assert.deepEqual(
      traced.map((e) => e.seq),
      traced.map((_, i) => i),
    );
  });

  it('runs the two branches of a diamond at the same time', async () => {
    const active = new Set<string>();
    let maxConcurrent = 0;
    const slow = (text: string) => async () => {
      active.add(text);
      maxConcurrent = Math.max(maxConcurrent, active.size);
      await new Promise((r) => setTimeout(r, 150));
      active.delete(text);
      return message(`${text} done`);
    };
    server().setHandler(
      route({
        planner: json({
          title: 'Diamond',
          steps: ['Top step', 'Left branch', 'Right branch', 'Bottom join'],
          dependencies: { '1': [0], '2': [0], '3': [1, 2] },
        }),
        executor: byStep({ 'Top step': slow('top'), 'Left branch': slow('left'), 'Right branch': slow('right'), 'Bottom join': slow('bottom') }),
        aggregator: message('ok'),
      }),
    );
    const { result, events } = await runAgainst(server());
    assert.equal(result.status, 'completed', result.error);
    assert.equal(maxConcurrent, 2, 'left and right must overlap, and nothing else');
    const starts = eventsOf(events, 'step_status_changed')
      .filter((e) => e.status === 'in_progress')
      .map((e) => e.stepId);
    const [top, left, right, bottom] = result.snapshot.steps.map((s) => s.id);
    assert.equal(starts[0], top);
    assert.deepEqual(new Set(starts.slice(1, 3)), new Set([left, right]));
    assert.equal(starts[3], bottom);
  });

  it('never lets OPENAI_BASE_URL override cortex.llm.baseUrl', async () => {
    const previous = process.env.OPENAI_BASE_URL;
    process.env.OPENAI_BASE_URL = 'http://127.0.0.1:9/v1';
    try {
      server().setHandler(route({ planner: json({ title: 't', steps: ['Say hi'], dependencies: {} }), executor: message('hi'), aggregator: message('done') }));
      const { result } = await runAgainst(server());
      assert.equal(result.status, 'completed', result.error);
    } finally {
      if (previous === undefined) delete process.env.OPENAI_BASE_URL;
      else process.env.OPENAI_BASE_URL = previous;
    }
  });

  it('leaves the workspace untouched when planning fails', async () => {
    server().setHandler(route({ planner: message('I would rather write a poem about plans.') }));
    const workspace = tempWorkspace();
    const { result, events } = await runAgainst(server(), { workspace });
    assert.equal(result.status, 'failed');
    assert.match(result.error ?? '', /valid plan/);
    assert.equal(events[events.length - 1].type, 'run_finished');
    assert.equal(existsSync(join(workspace, 'hello.txt')), false);
  });

  it('says once, before any step starts, that commands run without a sandbox', async () => {
    server().setHandler(route({ planner: json({ title: 't', steps: ['Say hi'], dependencies: {} }), executor: message('hi'), aggregator: message('done') }));
    const { result, events } = await runAgainst(server(), { settings: { 'cortex.sandbox.mode': 'off' } });
    assert.equal(result.status, 'completed', result.error);
    const notices = events.filter((e) => e.type === 'log' && /without a sandbox in this run/.test(e.message));
    assert.equal(notices.length, 1);
    const at = events.indexOf(notices[0]);
    const firstStart = events.findIndex((e) => e.type === 'step_status_changed' && e.status === 'in_progress');
    assert.ok(at >= 0 && at < firstStart, `the notice (event ${at}) comes before the first step starts (event ${firstStart})`);
  });

  it('says nothing about the sandbox to an untrusted run, which cannot run commands', async () => {
    server().setHandler(route({ planner: json({ title: 't', steps: ['Say hi'], dependencies: {} }), executor: message('hi'), aggregator: message('done') }));
    const { events } = await runAgainst(server(), { trusted: false, settings: { 'cortex.sandbox.mode': 'off' } });
    assert.equal(events.filter((e) => e.type === 'log' && /sandbox/.test(e.message)).length, 0);
  });
});
