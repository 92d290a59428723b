import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { RunEvent } from '../../src/core/plan/events';
import { readTraceSync } from '../support/traceFile';
import { assistantTurns, byStep, call, json, message, route, toolCalls } from '../support/scriptedReplies';
import type { MessageReply, ScriptedRequest } from '../support/scriptedServer';
import { useScriptedServer } from '../support/useScriptedServer';
import { runCliWithoutStackTrace } from '../support/inProcessCli';
import { eventsOf, workspaceAndTrace } from '../support/agentHarness';

// A redesign that streams, through the CLI (docs/design.md, “The replanner”): a slow replanner
// writes its reply over real SSE; a redesigned step starts while the reply is still being written,
// and a redesign that turns out invalid at its end has its started steps cancelled and their
// changes reverted, and the failed step ends blocked.

const cli = runCliWithoutStackTrace;

const setup = () => workspaceAndTrace('cortex-replanstream-');

const FRAGMENT = 6;
const FRAGMENT_DELAY_MS = 30;

/** A replanner reply streamed 6 characters every 30 ms. */
function slowReply(reply: unknown): MessageReply {
  return json(reply, { fragmentSize: FRAGMENT, chunkDelayMs: FRAGMENT_DELAY_MS });
}

/** The plan: one step whose executor claims work it did not do, so its check fails and it is replanned. */
const PLAN = { title: 'Greeting', steps: [{ description: 'Create the greeting file', dependsOn: [], expects: [{ changed: 'greeting.txt' }] }] };

/** Steps that make the reply long enough to stream for a while after its first step. */
const padding = (count: number, after: number) =>
  Array.from({ length: count }, (_, i) => ({ description: `Padding check number ${i + 1} that reads the greeting again`, dependsOn: [after], uses: [] }));

describe('a streamed redesign through the CLI', function () {
  this.timeout(60_000);
  const server = useScriptedServer();

  const run = (ws: string, trace: string, extra: string[] = []) =>
    cli(['run', '--workspace', ws, '--base-url', server().baseUrl, '--model', 'm', '--trace', trace, '--approve', 'all', ...extra, 'greet']);

  it("sends a redesigned step its first executor request before the replanner's reply has ended", async () => {
    const { ws, trace } = setup();
    const redesign = {
      action: 'redesign',
      reason: 'the file was never written',
      new_steps: [{ description: 'Write greeting.txt with write_file', dependsOn: [], uses: [], expects: [{ changed: 'greeting.txt' }] }, ...padding(5, 0)],
    };
    const redesignedAt: number[] = [];
    let replannerEnds = 0;
    server().setHandler(
      route({
        planner: json(PLAN),
        replanner: () => {
          const reply = slowReply(redesign);
          // The server sleeps after every fragment: the stream cannot end before this.
          replannerEnds = Date.now() + Math.ceil(reply.content!.length / FRAGMENT) * FRAGMENT_DELAY_MS;
          return reply;
        },
        executor: byStep({
          'Create the greeting file': [message('I created greeting.txt.')],
          'Write greeting.txt with write_file': (req: ScriptedRequest) => {
            const turn = assistantTurns(req);
            if (turn === 0) redesignedAt.push(Date.now());
            return [toolCalls(call('write_file', { path: 'greeting.txt', content: 'hello\n' })), message('wrote greeting.txt')][turn];
          },
          'Padding check number': [message('checked')],
        }),
        aggregator: message('All done.'),
      }),
    );
    const result = await run(ws, trace);
    assert.equal(result.code, 0, result.stdout + result.stderr);
    assert.ok(redesignedAt.length > 0 && redesignedAt[0] < replannerEnds, `first request ${replannerEnds - redesignedAt[0]} ms before the reply could end`);
    assert.equal(readFileSync(join(ws, 'greeting.txt'), 'utf8'), 'hello\n');

    const { events } = readTraceSync(trace);
    const seqOf = (find: (e: RunEvent) => boolean) => events.find(find)?.seq ?? -1;
    const replannerDone = seqOf((e) => e.type === 'llm_request' && e.purpose === 'replanner');
    const firstRedesigned = seqOf((e) => e.type === 'llm_request' && e.purpose === 'executor' && e.stepId === 's2');
    assert.ok(
      firstRedesigned >= 0 && firstRedesigned < replannerDone,
      `s2's first executor request (seq ${firstRedesigned}) ended before the reply did (seq ${replannerDone})`,
    );
    // The new steps joined while the failed step was still in the plan; it leaves once the reply is whole.
    const added = eventsOf(events, 'step_added').filter((e) => e.origin === 'replan');
    assert.deepEqual(
      added.map((e) => [e.stepId, e.dependsOn, e.redesignOf]),
      [['s2', [], 's1'], ...['s3', 's4', 's5', 's6', 's7'].map((id) => [id, ['s2'], 's1'])],
    );
    const replaced = eventsOf(events, 'subgraph_replaced');
    assert.equal(replaced.length, 1);
    assert.deepEqual([replaced[0].replan.replacedStepIds, replaced[0].replan.newStepIds], [['s1'], ['s2', 's3', 's4', 's5', 's6', 's7']]);
    assert.match(replaced[0].replan.reason, /replanner: the file was never written/);
    assert.ok(replaced[0].seq > replannerDone && added.every((e) => e.seq < replaced[0].seq));
    const finished = eventsOf(events, 'run_finished')[0];
    assert.equal(finished.status, 'completed');
    assert.deepEqual(
      finished.plan.replacedSteps.map((s) => [s.id, s.status]),
      [['s1', 'failed']],
    );
    assert.match(result.stderr, / {2}\+ s2: Write greeting\.txt with write_file \[replan\]\n/);
    assert.match(result.stderr, /replan 1 of 2 for s1: redesign \(s1 → s2, s3, s4, s5, s6, s7\)/);
  });

  it('cancels and reverts the started steps of a redesign that turns out invalid at its end, and blocks the failed step', async () => {
    const { ws, trace } = setup();
    writeFileSync(join(ws, 'keep.txt'), 'original\n');
    const invalid = {
      action: 'redesign',
      new_steps: [
        { description: 'Rewrite keep.txt', dependsOn: [], uses: [], expects: [{ changed: 'keep.txt' }] },
        { description: 'Write slow.txt slowly', dependsOn: [], uses: [], expects: [{ changed: 'slow.txt' }] },
        // They wait for the slow step: they never start.
        ...padding(4, 1),
        { description: 'Check the result', dependsOn: [9], uses: [] },
      ],
    };
    let slowStarted = 0;
    server().setHandler(
      route({
        planner: json(PLAN),
        replanner: slowReply(invalid),
        executor: byStep({
          'Create the greeting file': [message('I created greeting.txt.')],
          'Rewrite keep.txt': [toolCalls(call('write_file', { path: 'keep.txt', content: 'changed by a discarded step\n' })), message('rewrote keep.txt')],
          'Write slow.txt slowly': () => {
            slowStarted++;
            // Still in flight when the reply ends: the cancel must not wait for it.
            return { ...toolCalls(call('write_file', { path: 'slow.txt', content: 'x' })), delayMs: 20_000 };
          },
          'Padding check number': [message('checked')],
        }),
        aggregator: message('Not done.'),
      }),
    );
    const started = Date.now();
    const result = await run(ws, trace);
    assert.equal(result.code, 1, result.stdout + result.stderr);
    assert.ok(Date.now() - started < 15_000, 'the cancelled step did not hold the run');
    assert.equal(slowStarted, 1, 'the slow step started while the reply streamed');
    assert.equal(readFileSync(join(ws, 'keep.txt'), 'utf8'), 'original\n');
    assert.equal(existsSync(join(ws, 'slow.txt')), false);

    const { events } = readTraceSync(trace);
    const discarded = eventsOf(events, 'plan_discarded');
    assert.equal(discarded.length, 1);
    assert.deepEqual(discarded[0].stepIds, ['s2', 's3', 's4', 's5', 's6', 's7']);
    assert.match(discarded[0].reason, /the streamed redesign is invalid: .*depends on step 9, which does not exist/);
    assert.deepEqual(
      eventsOf(events, 'files_reverted').map((e) => [e.reason, e.stepIds]),
      [['plan_discarded', ['s2', 's3']]],
    );
    assert.deepEqual(
      eventsOf(events, 'step_status_changed')
        .filter((e) => e.stepId === 's3')
        .map((e) => [e.status, e.reason]),
      [
        ['in_progress', undefined],
        ['failed', 'cancelled'],
      ],
    );
    assert.equal(eventsOf(events, 'subgraph_replaced').length, 0, 'no redesign was recorded');
    const finished = eventsOf(events, 'run_finished')[0];
    assert.equal(finished.status, 'failed');
    const failed = finished.plan.steps.find((s) => s.id === 's1')!;
    assert.equal(failed.status, 'blocked');
    assert.match(failed.endReason ?? '', /^replan_failed: .*depends on step 9, which does not exist/);
    assert.deepEqual(
      finished.plan.steps.map((s) => s.id),
      ['s1'],
    );
    assert.match(result.stderr, /Streamed redesign of s1 discarded: the streamed redesign is invalid: .*cancelled and their changes reverted/);
  });

  it('with --no-plan-stream reads the replanner reply whole before a redesigned step joins', async () => {
    const { ws, trace } = setup();
    server().setHandler(
      route({
        planner: json(PLAN),
        replanner: slowReply({ action: 'redesign', new_steps: [{ description: 'Write greeting.txt with write_file', dependsOn: [], uses: [] }] }),
        executor: byStep({
          'Create the greeting file': [message('I created greeting.txt.')],
          'Write greeting.txt with write_file': [toolCalls(call('write_file', { path: 'greeting.txt', content: 'hello\n' })), message('wrote it')],
        }),
        aggregator: message('Done.'),
      }),
    );
    const result = await run(ws, trace, ['--no-plan-stream']);
    assert.equal(result.code, 0, result.stdout + result.stderr);
    const { events } = readTraceSync(trace);
    const replannerDone = events.find((e) => e.type === 'llm_request' && e.purpose === 'replanner')!.seq;
    const added = eventsOf(events, 'step_added').filter((e) => e.origin === 'replan');
    assert.deepEqual(
      added.map((e) => [e.stepId, e.redesignOf]),
      [['s2', undefined]],
    );
    assert.ok(added[0].seq > eventsOf(events, 'subgraph_replaced')[0].seq && added[0].seq > replannerDone);
  });
});
