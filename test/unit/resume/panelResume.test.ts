import assert from 'node:assert/strict';
import type { RunEvent } from '../../../src/core/plan/events';
import { parseWebviewMessage } from '../../../src/protocol/messages';
import { resumeRun } from '../../../webview/actions';
import { runStatusLabel } from '../../../webview/header';
import { handleHostMessage } from '../../../webview/messageHandler';
import { PlanStore } from '../../../webview/store';

// The panel's side of Resume (docs/design.md, “Resuming a run”): the host says a run read from its trace can be
// resumed; the panel asks once; a live run's reset takes the offer away.

const events: RunEvent[] = [
  { seq: 0, time: 1, type: 'run_started', runId: 'run-a', task: 'task', workspace: '/ws', model: 'm', baseUrl: 'http://x' },
  { seq: 1, time: 2, type: 'plan_created', title: 'plan' },
];

function reset(store: PlanStore, live: boolean, resumable?: boolean) {
  return handleHostMessage(store, { type: 'host/reset', runId: 'run-a', live, events, ...(resumable === undefined ? {} : { resumable }) });
}

describe('panel: resuming an interrupted run', () => {
  it('an interrupted run the host can resume sends run/resume once', () => {
    const store = new PlanStore();
    reset(store, false, true);
    assert.equal(store.resumable, true);
    const message = resumeRun(store);
    assert.deepEqual(message, { type: 'run/resume', runId: 'run-a' });
    assert.deepEqual(parseWebviewMessage(message), { ok: true, message });
    assert.equal(resumeRun(store), undefined, 'a second click sends nothing');
  });

  it("nothing to resume without the host's word, or once the run is live; a new reset brings the button back", () => {
    const store = new PlanStore();
    reset(store, false);
    assert.equal(resumeRun(store), undefined);
    reset(store, false, true);
    assert.ok(resumeRun(store));
    reset(store, false, true);
    assert.equal(store.resumeRequested, false, 'a refused resume gets its button back with the next reset');
    reset(store, true);
    assert.equal(store.resumable, false);
    assert.equal(resumeRun(store), undefined);
  });

  it('a run that is not live and never finished reads "Interrupted"', () => {
    assert.equal(runStatusLabel('running', false), 'Interrupted');
    assert.equal(runStatusLabel('running', true), 'Running');
    assert.equal(runStatusLabel('cancelled', false), 'Cancelled');
  });

  it('the protocol refuses a run/resume without a run id or with extra fields', () => {
    assert.equal(parseWebviewMessage({ type: 'run/resume' }).ok, false);
    assert.equal(parseWebviewMessage({ type: 'run/resume', runId: 'run-a', force: true }).ok, false);
  });
});
