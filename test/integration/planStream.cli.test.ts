import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { RunEvent } from '../../src/core/plan/events';
import { readTraceSync } from '../support/traceFile';
import { byStep, call, contentText, json, message, route, sequence, toolCalls } from '../support/scriptedReplies';
import type { MessageReply, ScriptedRequest } from '../support/scriptedServer';
import { useScriptedServer } from '../support/useScriptedServer';
import { runCliWithoutStackTrace } from '../support/inProcessCli';
import { eventsOf, workspaceAndTrace } from '../support/agentHarness';

// Streamed planning through the CLI (docs/design.md, “The planner”): a slow planner streams its
// plan over real SSE; steps start while it is still being written, and a plan that turns out
// invalid at its end has its started steps cancelled and their changes reverted before the
// planner is asked again.

const cli = runCliWithoutStackTrace;

const setup = () => workspaceAndTrace('cortex-planstream-');

const FRAGMENT = 6;
const FRAGMENT_DELAY_MS = 30;

/** A planner reply streamed 6 characters every 30 ms: a plan of ~400 characters takes two seconds. */
function slowPlan(plan: unknown): MessageReply {
  return json(plan, { fragmentSize: FRAGMENT, chunkDelayMs: FRAGMENT_DELAY_MS });
}

describe('streamed planning through the CLI', function () {
  this.timeout(60_000);
  const server = useScriptedServer();

  const run = (ws: string, trace: string, extra: string[] = []) =>
    cli(['run', '--workspace', ws, '--base-url', server().baseUrl, '--model', 'm', '--trace', trace, '--approve', 'all', ...extra, 'do it']);

  it('sends the first step its first executor request before the plan has finished streaming', async () => {
    const { ws, trace } = setup();
    const plan = {
      title: 'Three steps',
      steps: [
        { description: 'Write the first file', dependsOn: [], expects: [{ changed: 'one.txt' }] },
        { description: 'Write the second file', dependsOn: [0], expects: [{ changed: 'two.txt' }] },
        { description: 'Summarise everything that was done', dependsOn: [0, 1], expects: [] },
      ],
    };
    const executorAt: number[] = [];
    let plannerEnds = 0;
    server().setHandler(
      route({
        planner: () => {
          const reply = slowPlan(plan);
          // The server sleeps after every fragment: the stream cannot end before this.
          plannerEnds = Date.now() + Math.ceil(reply.content!.length / FRAGMENT) * FRAGMENT_DELAY_MS;
          return reply;
        },
        executor: (req: ScriptedRequest) => {
          executorAt.push(Date.now());
          return byStep({
            'Write the first file': [toolCalls(call('write_file', { path: 'one.txt', content: '1\n' })), message('wrote one.txt')],
            'Write the second file': [toolCalls(call('write_file', { path: 'two.txt', content: '2\n' })), message('wrote two.txt')],
            'Summarise everything': [message('summary')],
          })(req);
        },
        aggregator: message('All done.'),
      }),
    );
    const result = await run(ws, trace);
    assert.equal(result.code, 0, result.stdout + result.stderr);
    assert.ok(executorAt[0] < plannerEnds, `first executor request ${plannerEnds - executorAt[0]} ms before the planner's stream could end`);
    const { events } = readTraceSync(trace);
    const seqOf = (find: (e: RunEvent) => boolean) => events.find(find)?.seq ?? -1;
    const plannerDone = seqOf((e) => e.type === 'llm_request' && e.purpose === 'planner');
    const firstExecutor = seqOf((e) => e.type === 'llm_request' && e.purpose === 'executor' && e.stepId === 's1');
    assert.ok(
      firstExecutor >= 0 && firstExecutor < plannerDone,
      `s1's first executor request (seq ${firstExecutor}) ended before the plan did (seq ${plannerDone})`,
    );
    assert.deepEqual(
      eventsOf(events, 'step_added').map((e) => [e.stepId, e.dependsOn]),
      [
        ['s1', []],
        ['s2', ['s1']],
        ['s3', ['s1', 's2']],
      ],
    );
    assert.equal(readFileSync(join(ws, 'two.txt'), 'utf8'), '2\n');
    assert.match(result.stderr, /plan: Three steps \(streaming\)\n {2}\+ s1: Write the first file\n/);
    assert.match(result.stderr, /plan: Three steps \(3 steps, whole\)/);
  });

  it('cancels and reverts the steps of a plan that turns out invalid at its end, then plans again', async () => {
    const { ws, trace } = setup();
    writeFileSync(join(ws, 'keep.txt'), 'original\n');
    const invalid = {
      title: 'Broken',
      steps: [
        { description: 'Rewrite keep.txt', dependsOn: [], expects: [{ changed: 'keep.txt' }] },
        // Fails its check while the plan streams: its replan waits for the plan, which is then discarded.
        { description: 'Create never.txt', dependsOn: [], expects: [{ exists: 'never.txt' }] },
        { description: 'Write slow.txt slowly', dependsOn: [0], expects: [{ changed: 'slow.txt' }] },
        { description: 'Padding step one that is waiting for the slow step', dependsOn: [2] },
        { description: 'Padding step two that is waiting for the slow step', dependsOn: [2] },
        { description: 'Padding step three that is waiting for the slow step', dependsOn: [2] },
        { description: 'Check the result', dependsOn: [9] },
      ],
    };
    const valid = { title: 'Fixed', steps: [{ description: 'Say hello', dependsOn: [], expects: [] }] };
    const planner = sequence(slowPlan(invalid), message(JSON.stringify(valid)));
    let slowStarted = 0;
    server().setHandler(
      route({
        planner,
        executor: byStep({
          'Rewrite keep.txt': [toolCalls(call('write_file', { path: 'keep.txt', content: 'changed by a discarded step\n' })), message('rewrote keep.txt')],
          'Write slow.txt slowly': () => {
            slowStarted++;
            // Still in flight when the plan ends: the cancel must not wait for it.
            return { ...toolCalls(call('write_file', { path: 'slow.txt', content: 'x' })), delayMs: 20_000 };
          },
          'Create never.txt': [message('I could not create it.')],
          'Say hello': [message('hello')],
        }),
        aggregator: message('Done.'),
      }),
    );
    const started = Date.now();
    const result = await run(ws, trace);
    assert.equal(result.code, 0, result.stdout + result.stderr);
    assert.ok(Date.now() - started < 15_000, 'the cancelled step did not hold the run');
    assert.equal(slowStarted, 1, 'the second step started while the plan streamed');
    assert.equal(readFileSync(join(ws, 'keep.txt'), 'utf8'), 'original\n');
    assert.equal(existsSync(join(ws, 'slow.txt')), false);

    const { events } = readTraceSync(trace);
    const discarded = eventsOf(events, 'plan_discarded');
    assert.equal(discarded.length, 1);
    assert.deepEqual(discarded[0].stepIds, ['s1', 's2', 's3', 's4', 's5', 's6']);
    assert.match(discarded[0].reason, /invalid: .*step 6 depends on step 9, which does not exist/);
    const reverted = eventsOf(events, 'files_reverted');
    assert.deepEqual(
      reverted.map((e) => [e.reason, e.stepIds]),
      [['plan_discarded', ['s1', 's2', 's3']]],
    );
    const statuses = eventsOf(events, 'step_status_changed').filter((e) => e.stepId === 's3');
    assert.deepEqual(
      statuses.map((e) => [e.status, e.reason]),
      [
        ['in_progress', undefined],
        ['failed', 'cancelled'],
      ],
    );
    // The corrective retry carries the reason; the new plan's steps get fresh ids and complete.
    const retry = server()
      .chatRequests()
      .filter((r) => r.purpose === 'planner')[1];
    assert.match(contentText(retry.body.messages.at(-1).content), /not a valid plan: .*step 6 depends on step 9/);
    const finished = eventsOf(events, 'run_finished')[0];
    assert.equal(finished.status, 'completed');
    assert.deepEqual(
      finished.plan.steps.map((s) => [s.id, s.description, s.status]),
      [['s8', 'Say hello', 'completed']],
    );
    assert.deepEqual(
      finished.plan.replacedSteps.map((s) => [s.id, s.status]),
      [
        ['s1', 'completed'],
        ['s2', 'failed'],
        ['s3', 'failed'],
        ['s4', 'not_started'],
        ['s5', 'not_started'],
        ['s6', 'not_started'],
      ],
    );
    assert.match(result.stderr, /plan discarded \(s1, s2, s3, s4, s5, s6\)/);
    assert.match(result.stderr, /Streamed plan discarded: .*3 started step\(s\) \(s1, s2, s3\) cancelled and their changes reverted/);
  });

  it('with --no-plan-stream asks for the plan whole before any step starts', async () => {
    const { ws, trace } = setup();
    server().setHandler(
      route({
        planner: slowPlan({ title: 'One', steps: [{ description: 'Say hello', dependsOn: [], expects: [] }] }),
        executor: message('hello'),
        aggregator: message('Done.'),
      }),
    );
    const result = await run(ws, trace, ['--no-plan-stream']);
    assert.equal(result.code, 0, result.stdout + result.stderr);
    const planner = server()
      .chatRequests()
      .find((r) => r.purpose === 'planner')!;
    assert.equal(planner.stream, false);
    const { events } = readTraceSync(trace);
    const plannerDone = events.find((e) => e.type === 'llm_request' && e.purpose === 'planner')!.seq;
    assert.ok(eventsOf(events, 'step_added').every((e) => e.seq > plannerDone));
  });
});
