import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { EventOf, RunEvent } from '../../src/core/plan/events';
import { foldEvents } from '../../src/core/plan/reducer';
import { readTraceSync } from '../support/traceFile';
import { tempWorkspace } from '../support/agentHarness';
import { call, contentText, json, message, route, toolMessages } from '../support/scriptedReplies';
import { startScriptedServer, type ScriptedServer } from '../support/scriptedServer';
import { runCli } from './resumeProcess';

// Retrying a failed or blocked step of a finished run through the real CLI (docs/design.md,
// “Retrying a step”): the first run blocks on its second step; `cortex retry-step` runs that step
// and the one after it in a new run with a new trace. The scripted server is the witness of what
// ran again, and of what did not.

const TASK = 'Write a.txt, then release.txt, then summarise';
const ANSWER = 'a.txt and release.txt written.';

/** s1 writes a.txt; s2 (after s1) must change release.txt but only claims to until `control.fixed`; s3 (after s2) summarises. */
function script(control: { fixed: boolean }) {
  return route({
    planner: json({
      title: 'Release',
      steps: [
        { description: 'Write a.txt', expects: [{ changed: 'a.txt' }] },
        { description: 'Write release.txt', expects: [{ changed: 'release.txt' }] },
        'Summarise the files',
      ],
      dependencies: { '1': [0], '2': [1] },
    }),
    executor: (req) => {
      const done = toolMessages(req).length > 0;
      if (req.stepId === 's1') return done ? message('a.txt written') : toolCalls('a.txt');
      if (req.stepId === 's2') return done || !control.fixed ? message('release.txt written') : toolCalls('release.txt');
      return message('a.txt and release.txt hold a');
    },
    replanner: json({ action: 'give_up', new_steps: [], new_dependencies: {}, reason: 'the model cannot write it' }),
    aggregator: message(ANSWER),
  });
}

function toolCalls(path: string) {
  return { kind: 'message' as const, toolCalls: [call('write_file', { path, content: 'a\n' })] };
}

interface Setup {
  dir: string;
  workspace: string;
  trace: string;
  config: string;
  control: { fixed: boolean };
}

function setup(server: ScriptedServer): Setup {
  const dir = mkdtempSync(join(tmpdir(), 'cortex-retry-step-'));
  const config = join(dir, 'config.json');
  writeFileSync(config, JSON.stringify({ 'cortex.llm.baseUrl': server.baseUrl, 'cortex.llm.model': 'scripted-model', 'cortex.llm.maxRetries': 0 }));
  const control = { fixed: false };
  server.setHandler(script(control));
  return { dir, workspace: tempWorkspace(), trace: join(dir, 'run.jsonl'), config, control };
}

const retryArgs = (s: Setup, step: string, ...more: string[]) => [
  'retry-step',
  '--trace',
  s.trace,
  '--step',
  step,
  '--workspace',
  s.workspace,
  '--config',
  s.config,
  '--approve',
  'all',
  ...more,
];

/** Runs the task to its end: s2 is blocked (its replan gave up), s3 blocked by it. */
async function failedRun(server: ScriptedServer, s: Setup): Promise<RunEvent[]> {
  const first = await runCli(['run', '--workspace', s.workspace, '--config', s.config, '--trace', s.trace, '--approve', 'all', TASK]);
  assert.equal(first.code, 1, first.stderr);
  const { events } = readTraceSync(s.trace);
  const state = foldEvents(events);
  assert.deepEqual(
    state.stepOrder.map((id) => `${id} ${state.steps.get(id)!.status}`),
    ['s1 completed', 's2 blocked', 's3 blocked'],
  );
  assert.equal(server.chatRequests().filter((r) => r.stepId === 's1').length, 2, 's1 made its two requests once');
  return events;
}

describe('cortex retry-step (real CLI processes)', function () {
  this.timeout(120_000);
  let server: ScriptedServer;
  beforeEach(async () => {
    server = await startScriptedServer();
  });
  afterEach(async () => {
    await server.close();
  });

  it('runs the blocked step and the step after it in a new run; the completed step is carried over, not run again; the old trace is unchanged', async () => {
    const s = setup(server);
    const old = await failedRun(server, s);
    const oldRunId = (old[0] as EventOf<'run_started'>).runId;
    const oldBytes = readFileSync(s.trace);

    s.control.fixed = true;
    const mark = server.chatRequests().length;
    const retried = await runCli(retryArgs(s, 's2'));
    assert.equal(retried.code, 0, retried.stderr);
    assert.equal(retried.stdout.trim(), ANSWER);
    const newTrace = join(s.dir, 'run.retry-s2.jsonl');
    assert.match(retried.stderr, new RegExp(`the retry's trace is ${newTrace.replace(/[.]/g, '\\.')}`));
    assert.match(retried.stderr, new RegExp(`retry of step s2 \\("Write release\\.txt"\\) from run ${oldRunId}`));
    assert.match(retried.stderr, /Retry of step s2: carried over from run \S+, not run again: s1; run now: s2, s3/);

    const after = server.chatRequests().slice(mark);
    assert.equal(after.filter((r) => r.stepId === 's1').length, 0, 'the completed step made no request');
    assert.equal(after.filter((r) => r.purpose === 'planner').length, 0, 'the plan is not made again');
    assert.deepEqual([...new Set(after.filter((r) => r.purpose === 'executor').map((r) => r.stepId))], ['s2', 's3']);
    // The carried step's output feeds the step after it.
    const s2Prompt = after
      .find((r) => r.stepId === 's2')!
      .body.messages.map((m: { content: unknown }) => contentText(m.content))
      .join('\n');
    assert.match(s2Prompt, /s1: Write a\.txt\na\.txt written/);

    assert.deepEqual(readFileSync(s.trace), oldBytes, 'the old trace is not modified');
    const { events, warnings } = readTraceSync(newTrace);
    assert.deepEqual(warnings, []);
    const started = events[0] as EventOf<'run_started'>;
    assert.equal(started.type, 'run_started');
    assert.notEqual(started.runId, oldRunId, 'a new run');
    assert.deepEqual(started.retryOf, { runId: oldRunId, stepId: 's2', description: 'Write release.txt' });
    assert.equal(started.task, TASK);
    const state = foldEvents(events);
    assert.equal(state.status, 'completed');
    assert.deepEqual(state.retryOf, started.retryOf);
    assert.deepEqual(
      state.stepOrder.map((id) => `${id} ${state.steps.get(id)!.status}`),
      ['s1 completed', 's2 completed', 's3 completed'],
    );
    const s1 = state.steps.get('s1')!;
    assert.deepEqual(
      s1.audits.filter((a) => a.kind === 'carried_over').map((a) => [a.fromRunId, a.fromStatus]),
      [[oldRunId, 'completed']],
    );
    assert.equal(s1.toolCalls.length, 0, 'the carried step ran no call in the new run');
    assert.equal(s1.output, 'a.txt written');
    assert.equal(state.steps.get('s2')!.replanAttempts, 0, 'a fresh replan budget');
    assert.equal(readFileSync(join(s.workspace, 'release.txt'), 'utf8'), 'a\n');
    assert.equal(readFileSync(join(s.workspace, 'a.txt'), 'utf8'), 'a\n', "the carried step's file stays");

    // The new run completed: nothing of it is left to retry, and a second retry of the old run gets the next name.
    const again = await runCli(retryArgs({ ...s, trace: newTrace }, 's2'));
    assert.equal(again.code, 2);
    assert.match(again.stderr, /run \S+ completed: it has no failed or blocked step to retry/);
    const second = await runCli(retryArgs(s, 's3'));
    assert.equal(second.code, 0, second.stderr);
    assert.equal(existsSync(join(s.dir, 'run.retry-s3.jsonl')), true);
    const secondState = foldEvents(readTraceSync(join(s.dir, 'run.retry-s3.jsonl')).events);
    assert.deepEqual(secondState.retryOf, { runId: oldRunId, stepId: 's3', description: 'Summarise the files' });
  });

  it('refuses a completed step, an unknown step, an unfinished run, another folder, a forged trace and the old trace as the new one, each in one line, asking nothing', async () => {
    const s = setup(server);
    const old = await failedRun(server, s);
    const lines = readFileSync(s.trace, 'utf8').trimEnd().split('\n');
    const mark = server.chatRequests().length;
    const refused = async (args: string[], pattern: RegExp) => {
      const result = await runCli(args);
      assert.equal(result.code, 2, `${args.join(' ')}: ${result.stderr}`);
      assert.match(result.stderr, pattern);
      assert.equal(result.stderr.trim().split('\n').length, 1, result.stderr);
    };

    await refused(retryArgs(s, 's1'), /step s1 \("Write a\.txt"\) is completed: only a failed or blocked step can be retried/);
    await refused(retryArgs(s, 's9'), /run \S+ has no step "s9"/);
    await refused(retryArgs({ ...s, workspace: tempWorkspace() }, 's2'), /the trace was recorded for the workspace .*cannot retry a step of it here/);
    await refused(retryArgs(s, 's2', '--new-trace', s.trace), /is the trace of the run being retried, which is never changed/);

    const unfinished = join(s.dir, 'unfinished.jsonl');
    writeFileSync(unfinished, `${lines.filter((line) => !line.includes('"type":"run_finished"')).join('\n')}\n`);
    await refused(retryArgs({ ...s, trace: unfinished }, 's2'), /has not finished \(no run_finished line\).*resumed instead/);

    const badEvent = join(s.dir, 'bad-event.jsonl');
    const added = lines.findIndex((line) => line.includes('"type":"step_added"'));
    const forged = lines.map((line, i) => (i === added ? line.replace(/"dependsOn":\[[^\]]*\]/, '"dependsOn":"s2"') : line));
    writeFileSync(badEvent, `${forged.join('\n')}\n`);
    await refused(retryArgs({ ...s, trace: badEvent }, 's2'), new RegExp(`line ${added + 1} is not a Cortex event \\(dependsOn:`));

    // A plan with a cycle: s1 made to depend on s3.
    const cycle = join(s.dir, 'cycle.jsonl');
    writeFileSync(cycle, `${lines.map((line, i) => (i === added ? line.replace(/"dependsOn":\[\]/, '"dependsOn":["s3"]') : line)).join('\n')}\n`);
    await refused(retryArgs({ ...s, trace: cycle }, 's2'), /the plan in the trace of run \S+ is broken: the plan has a dependency cycle/);

    // Steps recorded after the run finished: not a run Cortex wrote.
    const after = join(s.dir, 'after-finish.jsonl');
    const last = old.at(-1)!.seq;
    const extra = { seq: last + 1, time: Date.now(), type: 'step_status_changed', stepId: 's2', status: 'completed' };
    writeFileSync(after, `${lines.join('\n')}\n${JSON.stringify(extra)}\n`);
    await refused(retryArgs({ ...s, trace: after }, 's2'), new RegExp(`has a step_status_changed event at seq ${last + 1} where none can be`));

    // A trace that is not there: refused before the new trace's folder is made.
    const missing = join(s.dir, 'nowhere', 'run.jsonl');
    await refused(retryArgs({ ...s, trace: missing }, 's2'), /trace file .*nowhere\/run\.jsonl does not exist/);
    assert.equal(existsSync(join(s.dir, 'nowhere')), false, 'no folder was made for the new trace');

    assert.equal(server.chatRequests().length, mark, 'no refusal asked the model anything');
    assert.equal(existsSync(join(s.dir, 'run.retry-s2.jsonl')), false, 'no refusal wrote a trace');
  });
});
