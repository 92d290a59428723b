import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, truncateSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { main } from '../../src/cli/main';
import type { RunEvent } from '../../src/core/plan/events';
import { readLockHolder } from '../../src/core/resume/runLock';
import { parseTrace } from '../../src/core/trace/traceReader';
import { readTraceSync } from '../support/traceFile';
import { tempWorkspace } from '../support/agentHarness';
import { call, json, message, route, toolCalls, toolMessages } from '../support/scriptedReplies';
import { startScriptedServer, type ScriptedServer } from '../support/scriptedServer';
import { runCli, spawnCli, waitUntil, type CliProcess } from './resumeProcess';

// Resuming through the real CLI (docs/design.md, “Resuming a run”): a `cortex run` process is killed while a
// step's request hangs on the scripted server, then `cortex resume` finishes the run in the same
// trace. The scripted server is the witness of what ran again.

const TASK = 'Write a.txt and b.txt, then summarise';
const ANSWER = 'Both files written.';

/** s1 writes a.txt, s2 (after s1) writes b.txt, s3 (after s2) summarises; `control.hang` holds that step's requests open. */
function script(control: { hang?: string }) {
  return route({
    planner: json({ title: 'Two files', steps: ['Write a.txt', 'Write b.txt', 'Summarise the files'], dependencies: { '1': [0], '2': [1] } }),
    executor: (req) => {
      if (req.stepId === control.hang) return { kind: 'hang' };
      const done = toolMessages(req).length > 0;
      if (req.stepId === 's1') return done ? message('a.txt written') : toolCalls(call('write_file', { path: 'a.txt', content: 'a\n' }));
      if (req.stepId === 's2') return done ? message('b.txt written') : toolCalls(call('write_file', { path: 'b.txt', content: 'b\n' }));
      return message('a.txt and b.txt hold a and b');
    },
    aggregator: message(ANSWER),
  });
}

interface Setup {
  workspace: string;
  trace: string;
  config: string;
  control: { hang?: string };
}

function setup(server: ScriptedServer, hang: string): Setup {
  const dir = mkdtempSync(join(tmpdir(), 'cortex-resume-'));
  const config = join(dir, 'config.json');
  writeFileSync(config, JSON.stringify({ 'cortex.llm.baseUrl': server.baseUrl, 'cortex.llm.model': 'scripted-model', 'cortex.llm.maxRetries': 0 }));
  const control = { hang };
  server.setHandler(script(control));
  return { workspace: tempWorkspace(), trace: join(dir, 'run.jsonl'), config, control };
}

/** Events written so far; a cut-off last line is left out. */
function traceEvents(trace: string): RunEvent[] {
  if (!existsSync(trace)) return [];
  const text = readFileSync(trace, 'utf8');
  return text.trim() === '' ? [] : parseTrace(text, trace).events;
}

/** Starts `cortex run` and waits until step `hang` is running with its request held open. */
async function runUntilHanging(server: ScriptedServer, s: Setup): Promise<CliProcess> {
  const cli = spawnCli(['run', '--workspace', s.workspace, '--config', s.config, '--trace', s.trace, '--approve', 'all', TASK]);
  const hang = s.control.hang!;
  await waitUntil(() => server.chatRequests().some((r) => r.purpose === 'executor' && r.stepId === hang), `the executor request of ${hang}`, cli);
  await waitUntil(
    () => traceEvents(s.trace).some((e) => e.type === 'step_status_changed' && e.stepId === hang && e.status === 'in_progress'),
    `${hang} in_progress in the trace`,
    cli,
  );
  return cli;
}

const resumeArgs = (s: Setup) => ['resume', '--workspace', s.workspace, '--trace', s.trace, '--config', s.config, '--approve', 'all'];

function statusOf(events: readonly RunEvent[], stepId: string): string | undefined {
  let status: string | undefined;
  for (const event of events) if (event.type === 'step_status_changed' && event.stepId === stepId) status = event.status;
  return status;
}

/** The whole trace: contiguous seq from 0, exactly one run_finished, and it is the last line. */
function assertValidFinishedTrace(trace: string): RunEvent[] {
  const { events, warnings } = readTraceSync(trace);
  assert.deepEqual(warnings, [], 'the trace reads without warnings');
  assert.deepEqual(
    events.map((e) => e.seq),
    events.map((_, i) => i),
    'seq continues without a gap or a repeat',
  );
  assert.equal(events.filter((e) => e.type === 'run_finished').length, 1, 'exactly one run_finished');
  assert.equal(events.at(-1)!.type, 'run_finished');
  return events;
}

describe('cortex resume (real CLI processes)', function () {
  this.timeout(120_000);
  let server: ScriptedServer;
  beforeEach(async () => {
    server = await startScriptedServer();
  });
  afterEach(async () => {
    await server.close();
  });

  it('after a SIGKILL mid-run: completed steps are not run again, the running step starts over, the run completes in the same trace', async () => {
    const s = setup(server, 's2');
    const first = await runUntilHanging(server, s);
    first.child.kill('SIGKILL');
    assert.equal((await first.exited).signal, 'SIGKILL');

    const left = traceEvents(s.trace);
    assert.equal(
      left.some((e) => e.type === 'run_finished'),
      false,
      'the killed run has no run_finished',
    );
    assert.equal(statusOf(left, 's1'), 'completed');
    assert.equal(statusOf(left, 's2'), 'in_progress');
    assert.equal((await readLockHolder(s.trace))?.pid, first.pid, 'the killed process left its lock');
    assert.equal(existsSync(join(s.workspace, 'a.txt')), true);

    s.control.hang = undefined;
    const mark = server.chatRequests().length;
    const resumed = await runCli(resumeArgs(s));
    assert.equal(resumed.code, 0, resumed.stderr);
    assert.equal(resumed.stdout.trim(), ANSWER);
    assert.match(resumed.stderr, new RegExp(`lock was left by process ${first.pid}, which is no longer running; it was taken over`));
    assert.match(resumed.stderr, /run run-\S+ resumed after seq \d+: 1 completed step\(s\) kept, s2 start again/);

    const after = server.chatRequests().slice(mark);
    assert.equal(after.filter((r) => r.stepId === 's1').length, 0, 'the completed step made no new request');
    assert.equal(after.filter((r) => r.purpose === 'planner').length, 0, 'the plan is not made again');
    assert.deepEqual([...new Set(after.filter((r) => r.purpose === 'executor').map((r) => r.stepId))], ['s2', 's3']);
    assert.equal(after.filter((r) => r.purpose === 'aggregator').length, 1);

    const events = assertValidFinishedTrace(s.trace);
    const resumedAt = events.findIndex((e) => e.type === 'run_resumed');
    assert.deepEqual(
      events.slice(left.length, resumedAt).map((e) => e.type === 'log' && e.message),
      [`the run's lock was left by process ${first.pid}, which is no longer running; it was taken over`],
      'only the notice of the recovered lock comes between the recorded events and run_resumed',
    );
    assert.deepEqual(events[resumedAt], { ...events[resumedAt], fromSeq: left.at(-1)!.seq, restartedStepIds: ['s2'] });
    assert.equal(events.filter((e) => e.type === 'run_started').length, 1);
    assert.equal(events.filter((e) => e.type === 'step_status_changed' && e.stepId === 's1' && e.status === 'in_progress').length, 1, 's1 ran once');
    const finished = events.at(-1) as Extract<RunEvent, { type: 'run_finished' }>;
    assert.equal(finished.status, 'completed');
    assert.deepEqual(
      finished.plan.steps.map((step) => [step.id, step.status]),
      [
        ['s1', 'completed'],
        ['s2', 'completed'],
        ['s3', 'completed'],
      ],
    );
    assert.equal(readFileSync(join(s.workspace, 'b.txt'), 'utf8'), 'b\n');
    assert.equal(existsSync(`${s.trace}.lock`), false, 'the lock is released at the end');
  });

  it('what the restarted step had written is reverted from the checkpoints before it starts again (files_reverted, reason resume)', async () => {
    const s = setup(server, 'none');
    let phase: 'first' | 'resumed' = 'first';
    server.setHandler(
      route({
        planner: json({ title: 'Two files', steps: ['Write a.txt', 'Write b.txt'], dependencies: { '1': [0] } }),
        executor: (req) => {
          const done = toolMessages(req).length > 0;
          if (req.stepId === 's1') return done ? message('a.txt written') : toolCalls(call('write_file', { path: 'a.txt', content: 'a\n' }));
          // The first attempt writes a draft, then hangs; the second writes b.txt only.
          if (phase === 'first') return done ? { kind: 'hang' } : toolCalls(call('write_file', { path: 'draft.txt', content: 'half done\n' }));
          return done ? message('b.txt written') : toolCalls(call('write_file', { path: 'b.txt', content: 'b\n' }));
        },
        aggregator: message(ANSWER),
      }),
    );
    const first = spawnCli(['run', '--workspace', s.workspace, '--config', s.config, '--trace', s.trace, '--approve', 'all', TASK]);
    await waitUntil(() => traceEvents(s.trace).some((e) => e.type === 'files_changed' && e.stepId === 's2'), 'the draft recorded as a change of s2', first);
    await waitUntil(() => server.chatRequests().filter((r) => r.stepId === 's2').length === 2, 'the second request of s2', first);
    first.child.kill('SIGKILL');
    await first.exited;
    assert.equal(readFileSync(join(s.workspace, 'draft.txt'), 'utf8'), 'half done\n');

    phase = 'resumed';
    const resumed = await runCli(resumeArgs(s));
    assert.equal(resumed.code, 0, resumed.stderr);
    assert.equal(existsSync(join(s.workspace, 'draft.txt')), false, 'the partial change was put back');
    assert.equal(readFileSync(join(s.workspace, 'a.txt'), 'utf8'), 'a\n', "the completed step's file stays");
    assert.equal(readFileSync(join(s.workspace, 'b.txt'), 'utf8'), 'b\n');
    const events = assertValidFinishedTrace(s.trace);
    const revert = events.find((e): e is Extract<RunEvent, { type: 'files_reverted' }> => e.type === 'files_reverted')!;
    assert.deepEqual([revert.reason, revert.stepIds, revert.files.map((f) => [f.path, f.to]), revert.conflicts], ['resume', ['s2'], [['draft.txt', null]], []]);
    const resumedEvent = events.find((e): e is Extract<RunEvent, { type: 'run_resumed' }> => e.type === 'run_resumed')!;
    assert.ok(resumedEvent.seq > revert.seq, 'the revert comes first');
    assert.equal(resumedEvent.partialChanges, 'reverted');
  });

  it('a trace cut off mid-line is truncated to its last complete event, and the resume continues after it', async () => {
    const s = setup(server, 's2');
    const first = await runUntilHanging(server, s);
    first.child.kill('SIGKILL');
    await first.exited;
    const text = readFileSync(s.trace, 'utf8');
    const lastLineStart = text.lastIndexOf('\n', text.length - 2) + 1;
    const cutAt = lastLineStart + Math.floor((text.length - lastLineStart) / 2);
    truncateSync(s.trace, cutAt);
    const complete = parseTrace(readFileSync(s.trace, 'utf8')).events;

    s.control.hang = undefined;
    const resumed = await runCli(resumeArgs(s));
    assert.equal(resumed.code, 0, resumed.stderr);
    assert.match(resumed.stderr, /its last line was cut off when the run stopped \(\d+ bytes\); it was removed/);
    const events = assertValidFinishedTrace(s.trace);
    const resumedEvent = events.find((e) => e.type === 'run_resumed') as Extract<RunEvent, { type: 'run_resumed' }>;
    assert.equal(resumedEvent.fromSeq, complete.at(-1)!.seq);
    assert.equal(events[complete.length].seq, complete.at(-1)!.seq + 1, 'the next event takes the seq of the removed line');
    assert.equal((events.at(-1) as Extract<RunEvent, { type: 'run_finished' }>).status, 'completed');
  });

  it('the lock: a live driver refuses a resume and a second run on its trace; once it is dead, the resume takes over', async () => {
    const s = setup(server, 's1');
    const first = await runUntilHanging(server, s);
    try {
      const refused = await runCli(resumeArgs(s));
      assert.equal(refused.code, 2, refused.stderr);
      assert.equal(
        refused.stderr,
        `cortex: the run is already driven by process ${first.pid} on ${hostname()} (since ${new Date((await readLockHolder(s.trace))!.startedAt).toISOString()}); only one process may drive a run (lock ${s.trace}.lock)\n`,
      );
      const second = await runCli(['run', '--workspace', s.workspace, '--config', s.config, '--trace', s.trace, 'another task']);
      assert.equal(second.code, 2, second.stderr);
      assert.match(second.stderr, new RegExp(`already driven by process ${first.pid} on `));
      assert.equal((traceEvents(s.trace)[0] as Extract<RunEvent, { type: 'run_started' }>).task, TASK, 'the second run did not start the trace over');
    } finally {
      first.child.kill('SIGKILL');
      await first.exited;
    }
    s.control.hang = undefined;
    const resumed = await runCli(resumeArgs(s));
    assert.equal(resumed.code, 0, resumed.stderr);
    assert.match(resumed.stderr, /which is no longer running; it was taken over/);
    assertValidFinishedTrace(s.trace);
  });

  it('SIGTERM interrupts: the trace stops without run_finished, the lock is released, and the run can be resumed', async () => {
    const s = setup(server, 's2');
    const first = await runUntilHanging(server, s);
    first.child.kill('SIGTERM');
    const { code } = await first.exited;
    assert.equal(code, 1, first.stderr());
    assert.match(
      first.stderr(),
      new RegExp(`interrupted \\(SIGTERM\\); continue with: cortex resume --trace ${s.trace.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`),
    );
    assert.equal(
      traceEvents(s.trace).some((e) => e.type === 'run_finished'),
      false,
    );
    assert.equal(existsSync(`${s.trace}.lock`), false);

    s.control.hang = undefined;
    const resumed = await runCli(resumeArgs(s));
    assert.equal(resumed.code, 0, resumed.stderr);
    assert.doesNotMatch(resumed.stderr, /taken over/, 'there was no lock to take over');
    assertValidFinishedTrace(s.trace);
  });
});

function collect() {
  const stream = new PassThrough();
  let text = '';
  stream.on('data', (d) => (text += d));
  return { stream, text: () => text };
}

async function cli(argv: string[]) {
  const stdout = collect();
  const stderr = collect();
  const stdin = Object.assign(new PassThrough(), { isTTY: false });
  const code = await main(argv, {
    stdout: stdout.stream,
    stderr: stderr.stream,
    stdin: stdin,
    cwd: process.cwd(),
    env: { OPENAI_API_KEY: 'sk-test' },
  });
  return { code, stdout: stdout.text(), stderr: stderr.text() };
}

describe('cortex resume: what it refuses (exit 2, one line)', function () {
  this.timeout(30_000);
  let server: ScriptedServer;
  beforeEach(async () => {
    server = await startScriptedServer();
  });
  afterEach(async () => {
    await server.close();
  });

  it('a run that finished is not resumable, and the trace is left as it was', async () => {
    const s = setup(server, 'none');
    const run = await cli(['run', '--workspace', s.workspace, '--config', s.config, '--trace', s.trace, '--approve', 'all', TASK]);
    assert.equal(run.code, 0, run.stderr);
    const before = readFileSync(s.trace, 'utf8');
    const resumed = await cli(resumeArgs(s));
    assert.equal(resumed.code, 2);
    assert.match(
      resumed.stderr,
      /^cortex: run run-\S+ already finished \(completed, run_finished at seq \d+\); only an interrupted run can be resumed — start a new run instead\n$/,
    );
    assert.equal(readFileSync(s.trace, 'utf8'), before);
    assert.equal(existsSync(`${s.trace}.lock`), false);
  });

  it('another workspace, a missing trace, a file that is not a trace, no --trace, a task', async () => {
    const s = setup(server, 's1');
    writeFileSync(
      s.trace,
      `${JSON.stringify({ seq: 0, time: 1, type: 'run_started', runId: 'run-x', task: 't', workspace: s.workspace, model: 'm', baseUrl: server.baseUrl })}\n`,
    );
    const other = tempWorkspace();
    const wrongPlace = await cli(['resume', '--trace', s.trace, '--config', s.config, '--workspace', other]);
    assert.equal(wrongPlace.code, 2);
    assert.equal(
      wrongPlace.stderr,
      `cortex: the trace was recorded for the workspace ${s.workspace}, not for ${other} (the folder this command acts on); cannot resume it here: run it from that folder or give --workspace\n`,
    );
    const missing = await cli(['resume', '--trace', join(other, 'nope.jsonl')]);
    assert.equal(missing.stderr, `cortex: trace file ${join(other, 'nope.jsonl')} does not exist\n`);
    writeFileSync(join(other, 'notes.jsonl'), '{"hello": 1}\n');
    const notTrace = await cli(['resume', '--trace', join(other, 'notes.jsonl')]);
    assert.match(notTrace.stderr, /notes\.jsonl: line 1 is not a Cortex event/);
    const noTrace = await cli(['resume']);
    assert.equal(noTrace.stderr, 'cortex: missing --trace FILE: the trace of the run to resume; run "cortex resume --help"\n');
    const withTask = await cli(['resume', '--trace', s.trace, 'do it']);
    assert.match(withTask.stderr, /takes no task \("do it"\): the task is the run's own/);
    for (const result of [wrongPlace, missing, notTrace, noTrace, withTask]) assert.equal(result.code, 2, result.stderr);
    assert.equal(server.chatRequests().length, 0, 'nothing was sent to the model');
  });

  it('--help says the settings are the current ones, and the exit codes are those of run', async () => {
    const help = await cli(['resume', '--help']);
    assert.equal(help.code, 0);
    assert.match(help.stdout, /^Usage: cortex resume --trace FILE/);
    assert.match(help.stdout, /The settings used are the current ones\s+\(--config and the flags\), not those the run started with/);
    assert.match(help.stdout, /Exit codes are those of cortex run/);
    const general = await cli(['--help']);
    assert.match(general.stdout, /cortex resume --trace FILE/);
  });
});
