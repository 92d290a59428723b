import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { recordToolCall } from '../../../src/core/checkpoints/callRecording';
import { CheckpointRecorder } from '../../../src/core/checkpoints/checkpointRecorder';
import { createRestoreGuard } from '../../../src/core/checkpoints/restoreGuard';
import { applyRevert } from '../../../src/core/checkpoints/revertApply';
import { DEFAULT_PROTECTED_PATHS } from '../../../src/core/files/protectedPaths';
import { planRevert, planUndo, stepsToRevert, undoableReverts } from '../../../src/core/checkpoints/revertPlan';
import { EventLog } from '../../../src/core/plan/eventLog';
import { RunEventSchema, type EventOf } from '../../../src/core/plan/events';
import { executeTool } from '../../../src/core/tools/toolExecutor';
import type { ToolDefinition } from '../../../src/core/tools/toolTypes';
import { createDirectoryTool } from '../../../src/core/tools/workspace/createDirectory';
import { editFileTool } from '../../../src/core/tools/workspace/editFile';
import { writeFileTool } from '../../../src/core/tools/workspace/writeFile';
import { toolContext } from '../tools/workspaceFixture';

// The conflict rules of a revert, on a real workspace: changes are made by the real file tools,
// recorded by the real recorder into a real event log, and reverted on disk.

const guard = createRestoreGuard({ protectedPaths: DEFAULT_PROTECTED_PATHS });

describe('revert rules', function () {
  this.timeout(20_000);
  let base: string;
  let ws: string;
  let log: EventLog;
  let recorder: CheckpointRecorder;

  const read = (file: string) => readFileSync(join(ws, file), 'utf8');
  const call = async (stepId: string, tool: ToolDefinition, args: unknown) => {
    const result = await recordToolCall(recorder, { stepId, callId: `${stepId}-${log.events.length}`, tool }, toolContext(ws), (context) =>
      executeTool(tool, args, context, 100_000),
    );
    await recorder.settle();
    return result;
  };
  const revert = async (stepIds: string[], options: { force?: boolean; dryRun?: boolean } = {}) => {
    const ids = stepsToRevert(log.state, stepIds);
    const outcome = await applyRevert(planRevert(log.state, ids), { workspaceRoot: ws, store: recorder.store, maxFileBytes: 1024 * 1024, guard, ...options });
    if (!options.dryRun) log.append({ type: 'files_reverted', reason: 'user', stepIds: ids, files: outcome.files, conflicts: outcome.conflicts });
    return outcome;
  };

  beforeEach(() => {
    base = realpathSync(mkdtempSync(join(tmpdir(), 'cortex-revert-')));
    ws = join(base, 'ws');
    mkdirSync(ws);
    log = new EventLog({
      onListenerError: (error) => {
        throw error;
      },
    });
    log.subscribe((event) => void RunEventSchema.parse(event));
    log.append({ type: 'run_started', runId: 'r', task: 't', workspace: ws, model: 'm', baseUrl: 'http://127.0.0.1/v1' });
    // s1 → s2 → s3, and s4 on its own.
    for (const [id, deps] of [
      ['s1', []],
      ['s2', ['s1']],
      ['s3', ['s2']],
      ['s4', []],
    ] as const) {
      log.append({ type: 'step_added', stepId: id, description: id, dependsOn: [...deps], lineage: id, replanAttempts: 0, origin: 'planner' });
    }
    recorder = new CheckpointRecorder({
      dir: join(base, 'cp'),
      workspaceRoot: ws,
      maxFileBytes: 1024 * 1024,
      recordChanges: (stepId, callId, changes) => log.append({ type: 'files_changed', stepId, callId, changes }),
      warn: (m) => assert.fail(m),
    });
  });
  afterEach(async () => {
    await recorder.close();
    rmSync(base, { recursive: true, force: true });
  });

  it('a step is reverted with its downstream steps; the others stay', () => {
    assert.deepEqual(stepsToRevert(log.state, ['s2']), ['s2', 's3']);
    assert.deepEqual(stepsToRevert(log.state, ['s2'], false), ['s2']);
    assert.throws(() => stepsToRevert(log.state, ['s9']), /no step s9 in this run \(steps: s1, s2, s3, s4\)/);
  });

  it('puts back what the steps changed: created files and folders go, modified files get their content back', async () => {
    writeFileSync(join(ws, 'keep.txt'), 'original\n');
    await call('s1', writeFileTool, { path: 'keep.txt', content: 'by s1\n' });
    await call('s1', writeFileTool, { path: 'new/dir/file.txt', content: 'new\n' });
    await call('s2', editFileTool, { path: 'keep.txt', old_text: 'by s1', new_text: 'by s2' });
    await call('s4', writeFileTool, { path: 'other.txt', content: 's4\n' });
    const outcome = await revert(['s1']);
    assert.deepEqual(outcome.conflicts, []);
    assert.equal(read('keep.txt'), 'original\n');
    assert.equal(existsSync(join(ws, 'new')), false, 'folders the steps created are removed');
    assert.equal(read('other.txt'), 's4\n', 'a step outside the selection keeps its changes');
    assert.deepEqual(
      outcome.files.map((f) => f.path),
      ['keep.txt', 'new/dir/file.txt', 'new/dir', 'new'],
    );
    // The fold marks the reverted changes.
    const s2 = log.state.steps.get('s2')!;
    assert.deepEqual(
      s2.changes?.map((c) => c.revertedBy?.reason),
      ['user'],
    );
    assert.equal(log.state.steps.get('s4')!.changes?.[0].revertedBy, undefined);
  });

  it('a file changed since by someone else is a conflict, left alone unless forced', async () => {
    await call('s1', writeFileTool, { path: 'a.txt', content: 'agent\n' });
    writeFileSync(join(ws, 'a.txt'), 'edited by the user\n');
    const refused = await revert(['s1']);
    assert.deepEqual(
      refused.conflicts.map((c) => [c.path, c.reason]),
      [['a.txt', 'changed_since']],
    );
    assert.match(refused.conflicts[0].detail, /changed after the run/);
    assert.equal(read('a.txt'), 'edited by the user\n');
    const forced = await revert(['s1'], { force: true });
    assert.deepEqual(forced.conflicts, []);
    assert.equal(existsSync(join(ws, 'a.txt')), false);
  });

  it('a file a later step outside the selection changed is a conflict (it built on it)', async () => {
    await call('s1', writeFileTool, { path: 'shared.txt', content: 'one\n' });
    await call('s4', editFileTool, { path: 'shared.txt', old_text: 'one', new_text: 'two' });
    const outcome = await revert(['s1']);
    assert.deepEqual(
      outcome.conflicts.map((c) => [c.path, c.reason, c.detail]),
      [['shared.txt', 'changed_by_other_step', 'step s4 changed it afterwards']],
    );
    assert.equal(read('shared.txt'), 'two\n');
  });

  it('a dry run reports the same outcome and touches nothing', async () => {
    await call('s1', writeFileTool, { path: 'a.txt', content: 'agent\n' });
    const dry = await revert(['s1'], { dryRun: true });
    assert.deepEqual(
      dry.files.map((f) => f.path),
      ['a.txt'],
    );
    assert.equal(read('a.txt'), 'agent\n');
  });

  it('a revert can be undone: the undo puts back what the revert replaced, and the fold un-marks the changes', async () => {
    writeFileSync(join(ws, 'a.txt'), 'before\n');
    await call('s1', writeFileTool, { path: 'a.txt', content: 'after\n' });
    await call('s1', createDirectoryTool, { path: 'made' });
    await revert(['s1']);
    assert.equal(read('a.txt'), 'before\n');
    assert.equal(existsSync(join(ws, 'made')), false);
    const [last] = undoableReverts(log.events);
    const undo = await applyRevert(planUndo(last), { workspaceRoot: ws, store: recorder.store, maxFileBytes: 1024 * 1024, guard });
    log.append({ type: 'files_reverted', reason: 'undo', stepIds: last.stepIds, files: undo.files, conflicts: undo.conflicts, undoes: last.seq });
    assert.deepEqual(undo.conflicts, []);
    assert.equal(read('a.txt'), 'after\n');
    assert.equal(existsSync(join(ws, 'made')), true);
    assert.deepEqual(undoableReverts(log.events), [], 'an undone revert cannot be undone twice');
    assert.ok(log.state.steps.get('s1')!.changes!.every((c) => c.revertedBy === undefined));
  });

  it('a change whose earlier content was not saved cannot be put back, even forced', async () => {
    const event: Omit<EventOf<'files_changed'>, 'seq' | 'time'> = {
      type: 'files_changed',
      stepId: 's1',
      callId: 'c',
      changes: [{ path: 'x.bin', kind: 'modified', before: null, after: null, restorable: false, note: 'too large' }],
    };
    log.append(event);
    const outcome = await revert(['s1'], { force: true });
    assert.deepEqual(outcome.conflicts, [{ path: 'x.bin', reason: 'not_restorable', detail: 'too large' }]);
  });

  it('never writes through a path that became a symbolic link or leads outside the workspace', async () => {
    await call('s1', writeFileTool, { path: 'sub/a.txt', content: 'agent\n' });
    const outside = join(base, 'outside');
    mkdirSync(outside);
    rmSync(join(ws, 'sub'), { recursive: true });
    symlinkSync(outside, join(ws, 'sub'));
    const outcome = await revert(['s1'], { force: true });
    assert.equal(outcome.conflicts.length, 2, JSON.stringify(outcome));
    assert.ok(outcome.conflicts.every((c) => c.reason === 'failed' || c.reason === 'changed_since'));
    assert.equal(existsSync(join(outside, 'a.txt')), false);
  });
});
