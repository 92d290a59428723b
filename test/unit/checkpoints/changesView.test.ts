import assert from 'node:assert/strict';
import { summarizeChanges } from '../../../src/core/checkpoints/changeSummary';
import type { FileChange } from '../../../src/core/plan/changeSchema';
import { EventLog } from '../../../src/core/plan/eventLog';
import { RunEventSchema, type NewRunEvent } from '../../../src/core/plan/events';
import { parseWebviewMessage } from '../../../src/protocol/messages';
import { canRevert, lineCountText, openChangeMessage, reviewChangesMessage, revertChangesMessage, runHasChanges } from '../../../webview/changesView';
import { PlanStore } from '../../../webview/store';
import { emptyCompletedPlan } from '../../support/runEventFixtures';

// The panel's view of a step's changes, and the messages its buttons post (validated by the same
// zod protocol the host checks them with).

const h = (c: string) => c.repeat(64);

function runWith(changes: Array<{ stepId: string; change: FileChange }>, extra: NewRunEvent[] = []): EventLog {
  const log = new EventLog();
  log.subscribe((event) => void RunEventSchema.parse(event));
  log.append({ type: 'run_started', runId: 'r1', task: 't', workspace: '/ws', model: 'm', baseUrl: 'http://127.0.0.1/v1' });
  for (const id of ['s1', 's2'])
    log.append({ type: 'step_added', stepId: id, description: id, dependsOn: [], lineage: id, replanAttempts: 0, origin: 'planner' });
  changes.forEach(({ stepId, change }, i) => log.append({ type: 'files_changed', stepId, callId: `c${i}`, changes: [change] }));
  for (const event of extra) log.append(event);
  return log;
}

describe("panel: a step's changes", () => {
  it("sums a file's changes within a step, nets created-then-edited to created, and drops created-then-deleted", () => {
    const log = runWith([
      { stepId: 's1', change: { path: 'a.ts', kind: 'created', before: null, after: h('1'), restorable: true, added: 3, removed: 0 } },
      { stepId: 's1', change: { path: 'a.ts', kind: 'modified', before: h('1'), after: h('2'), restorable: true, added: 1, removed: 1 } },
      { stepId: 's1', change: { path: 'tmp.txt', kind: 'created', before: null, after: h('3'), restorable: true, added: 1, removed: 0 } },
      { stepId: 's1', change: { path: 'tmp.txt', kind: 'deleted', before: h('3'), after: null, restorable: true, added: 0, removed: 1 } },
      { stepId: 's2', change: { path: 'big.bin', kind: 'modified', before: null, after: h('4'), restorable: false, note: 'too large', binary: true } },
    ]);
    const s1 = summarizeChanges(log.state, 's1');
    assert.deepEqual(
      s1.map((s) => [s.path, s.kind, s.before, s.after, lineCountText(s)]),
      [['a.ts', 'created', null, h('2'), '+4 -1']],
    );
    const s2 = summarizeChanges(log.state, 's2');
    assert.deepEqual(
      s2.map((s) => [s.path, s.beforeKnown, lineCountText(s), s.notes]),
      [['big.bin', false, 'binary', ['too large']]],
    );
    assert.deepEqual(log.state.steps.get('s1')!.files, ['a.ts', 'tmp.txt'], "the step's files list what it touched");
  });

  it('marks what a revert undid, says when everything was undone, and un-marks on undo', () => {
    const change: FileChange = { path: 'a.ts', kind: 'created', before: null, after: h('1'), restorable: true, added: 1, removed: 0 };
    const log = runWith([{ stepId: 's1', change }], [{ type: 'run_finished', status: 'completed', plan: emptyCompletedPlan('r1', 't') }]);
    const store = new PlanStore();
    store.reset('r1', false, log.events);
    assert.deepEqual(runHasChanges(store.state), { any: true, active: true });
    assert.equal(canRevert(store, summarizeChanges(store.state, 's1')), true);
    const revert = log.append({ type: 'files_reverted', reason: 'replan', stepIds: ['s1'], files: [{ path: 'a.ts', from: h('1'), to: null }], conflicts: [] });
    store.reset('r1', false, log.events);
    assert.equal(summarizeChanges(store.state, 's1')[0].reverted, 'replan');
    assert.deepEqual(summarizeChanges(store.state), [], "the run's changes in effect leave out what was reverted");
    assert.deepEqual(runHasChanges(store.state), { any: true, active: false });
    assert.equal(canRevert(store, summarizeChanges(store.state, 's1')), false, 'nothing left to revert');
    log.append({
      type: 'files_reverted',
      reason: 'undo',
      stepIds: ['s1'],
      files: [{ path: 'a.ts', from: null, to: h('1') }],
      conflicts: [],
      undoes: revert.seq,
    });
    store.reset('r1', false, log.events);
    assert.equal(summarizeChanges(store.state, 's1')[0].reverted, undefined);
  });

  it('offers no revert while the run is running, and its buttons post valid protocol messages', () => {
    const log = runWith([{ stepId: 's1', change: { path: 'src/a b.ts', kind: 'created', before: null, after: h('1'), restorable: true } }]);
    const store = new PlanStore();
    store.reset('r1', true, log.events);
    assert.equal(canRevert(store, summarizeChanges(store.state, 's1')), false);
    for (const message of [
      openChangeMessage(store, 's1', 'src/a b.ts'),
      openChangeMessage(store, undefined, 'src/a b.ts'),
      reviewChangesMessage(store),
      reviewChangesMessage(store, 's1'),
      revertChangesMessage(store),
      revertChangesMessage(store, 's1'),
    ]) {
      const parsed = parseWebviewMessage(message);
      assert.ok(parsed.ok, JSON.stringify(parsed));
    }
    assert.equal(parseWebviewMessage({ type: 'changes/open', runId: 'r1', path: 'a\u0000b' }).ok, false);
    assert.equal(
      parseWebviewMessage({ type: 'changes/revert', runId: 'r1', stepId: 's1', force: true }).ok,
      false,
      'no extra fields: the host asks before forcing',
    );
  });
});
