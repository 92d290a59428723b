import assert from 'node:assert/strict';
import { mkdtempSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RunEvent } from '../../../src/core/plan/events';
import { acquireRunLock, lockFileFor } from '../../../src/core/resume/runLock';
import { lastCompleteLine, traceResumability } from '../../../src/core/resume/traceStatus';
import { interruptedRuns, matchingFolder, panelResumability } from '../../../src/host/resumableRuns';
import type { RecentRun } from '../../../src/host/runIndex';
import { traceRunSource } from '../../../src/panel/runSource';
import { emptyCompletedPlan } from '../../support/runEventFixtures';

// Which runs a window offers to resume (docs/design.md, “Resuming a run”), told from the trace's tail and lock.

const dir = () => realpathSync(mkdtempSync(join(tmpdir(), 'cortex-resumable-')));
const started = (workspace: string): RunEvent => ({
  seq: 0,
  time: 1,
  type: 'run_started',
  runId: 'run-a',
  task: 'task',
  workspace,
  model: 'm',
  baseUrl: 'http://x',
});
const finished: RunEvent = { seq: 1, time: 2, type: 'run_finished', status: 'completed', plan: emptyCompletedPlan('run-a', 'task') };
const lines = (events: RunEvent[]) => events.map((e) => `${JSON.stringify(e)}\n`).join('');

function traceFile(text: string): string {
  const file = join(dir(), 'run-a.jsonl');
  writeFileSync(file, text);
  return file;
}

describe('resumable runs', () => {
  it('the last complete line is read from the end, however long, and a cut-off line after it is ignored', async () => {
    const long = { ...started('/ws'), task: 'x'.repeat(200_000) };
    const file = traceFile(`${lines([started('/ws'), long])}{"seq":2,"ti`);
    assert.equal(await lastCompleteLine(file), JSON.stringify(long));
    assert.equal(await lastCompleteLine(traceFile('no newline at all')), '');
    assert.equal(await lastCompleteLine(traceFile('')), '');
  });

  it('a trace is resumable when its last event is not run_finished and no live process holds its lock', async () => {
    const workspace = dir();
    const interrupted = traceFile(lines([started(workspace)]));
    assert.deepEqual(await traceResumability(interrupted), { resumable: true });
    assert.deepEqual(await traceResumability(traceFile(lines([started(workspace), finished]))), { resumable: false, reason: 'the run finished' });
    const lock = await acquireRunLock(interrupted);
    assert.match(((await traceResumability(interrupted)) as { reason: string }).reason, new RegExp(`driven by process ${process.pid} on ${hostname()}`));
    await lock.release();
    writeFileSync(lockFileFor(interrupted), JSON.stringify({ pid: 1, host: 'other-host', startedAt: 1 }));
    assert.match(((await traceResumability(interrupted)) as { reason: string }).reason, /driven by process 1 on other-host/);
    assert.match(((await traceResumability(join(workspace, 'missing.jsonl'))) as { reason: string }).reason, /cannot be read \(ENOENT\)/);
  });

  it('the quick pick lists interrupted runs of the open folders only, not live ones, finished ones or lost traces', async () => {
    const workspace = dir();
    const other = dir();
    const entry = (runId: string, traceFile: string, extra: Partial<RecentRun> = {}): RecentRun => ({
      runId,
      task: runId,
      startedAt: 1,
      status: 'running',
      traceFile,
      workspace,
      ...extra,
    });
    const recent = [
      entry('interrupted', traceFile(lines([started(workspace)]))),
      entry('finished-late', traceFile(lines([started(workspace), finished]))),
      entry('done', traceFile(lines([started(workspace), finished])), { status: 'completed' }),
      entry('elsewhere', traceFile(lines([started(other)])), { workspace: other }),
      entry('lost', join(workspace, 'gone.jsonl')),
      entry('live-here', traceFile(lines([started(workspace)]))),
    ];
    assert.deepEqual(
      (await interruptedRuns(recent, [workspace], (id) => id === 'live-here')).map((run) => run.runId),
      ['interrupted'],
    );
  });

  it('a restored panel offers Resume only for an interrupted run of a folder open in this window', async () => {
    const workspace = dir();
    const file = traceFile(lines([started(workspace)]));
    assert.deepEqual(await panelResumability(traceRunSource('run-a', [started(workspace)], file), [workspace]), { resumable: true });
    assert.deepEqual(await panelResumability(traceRunSource('run-a', [started(workspace)], file), ['/somewhere/else']), {
      resumable: false,
      reason: `the run worked in ${workspace}, which is not open in this window`,
    });
    assert.deepEqual(await panelResumability(traceRunSource('run-a', [started(workspace), finished], file), [workspace]), {
      resumable: false,
      reason: 'the run finished',
    });
    assert.deepEqual(await panelResumability(traceRunSource('run-a', [started(workspace)]), [workspace]), {
      resumable: false,
      reason: 'the run has no trace file',
    });
  });

  it('the same folder reached through a symbolic link matches', async () => {
    const workspace = dir();
    const link = join(dir(), 'link');
    symlinkSync(workspace, link);
    assert.deepEqual(await matchingFolder(link, [{ path: workspace }]), { path: workspace });
    assert.equal(await matchingFolder(dir(), [{ path: workspace }]), undefined);
  });
});
