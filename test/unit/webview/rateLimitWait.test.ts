import assert from 'node:assert/strict';
import type { NewRunEvent } from '../../../src/core/plan/events';
import { createPlanState } from '../../../src/core/plan/reducer';
import { toSnapshot } from '../../../src/core/plan/snapshot';
import { noteRateLimitEvent, rateLimitCountdown, type RateLimitWait } from '../../../webview/rateLimitWait';
import { PlanStore } from '../../../webview/store';
import { EventStamper, syntheticPlanEvents } from '../../support/plans/syntheticPlan';

// The panel's countdown while a rate-limited request waits for its retry: built from the warning
// the LLM client logs (data.kind "llm_retry"), gone when the wait is over, the request is recorded
// or the run ends.

const retryLog = (delayMs: unknown, extra: Record<string, unknown> = {}, stepId: string | undefined = 's1'): NewRunEvent => ({
  type: 'log',
  level: 'warn',
  message: `rate limited by the endpoint; retrying in ${String(delayMs)} ms`,
  stepId,
  data: { kind: 'llm_retry', purpose: 'executor', model: 'm', delayMs, retry: 1, of: 3, ...extra },
});

const request = (stepId: string | undefined, purpose: 'executor' | 'planner' = 'executor'): NewRunEvent => ({
  type: 'llm_request',
  purpose,
  stepId,
  requestedModel: 'm',
  attempts: [],
  ok: true,
  durationMs: 1,
});

describe('rate-limit countdown', () => {
  it('counts down from the announced wait, in whole seconds, and is gone when the wait is over', () => {
    const stamper = new EventStamper();
    const event = stamper.stamp(retryLog(20_000));
    const waits = noteRateLimitEvent([], event);
    assert.equal(waits.length, 1);
    assert.deepEqual(rateLimitCountdown(waits, event.time, true), {
      seconds: 20,
      text: 'Rate limited by the endpoint: retrying in 20 s (retry 1 of 3)',
    });
    assert.equal(rateLimitCountdown(waits, event.time + 1_000, true)?.seconds, 19);
    assert.equal(rateLimitCountdown(waits, event.time + 19_500, true)?.seconds, 1);
    assert.equal(rateLimitCountdown(waits, event.time + 20_000, true), undefined, 'the retry goes out now');
    assert.equal(rateLimitCountdown(waits, event.time + 1_000, false), undefined, 'nothing counts down when the run is not live and running');
  });

  it("the retried request's record clears its own wait only; the end of the run clears all", () => {
    const stamper = new EventStamper();
    let waits: readonly RateLimitWait[] = [];
    const first = stamper.stamp(retryLog(30_000));
    waits = noteRateLimitEvent(waits, first);
    waits = noteRateLimitEvent(waits, stamper.stamp(retryLog(5_000, { retry: 2, of: 2 }, 's2')));
    const both = rateLimitCountdown(waits, first.time + 10, true);
    assert.match(both?.text ?? '', /retrying in 30 s \(retry 1 of 3\); 1 more request waiting$/);
    waits = noteRateLimitEvent(waits, stamper.stamp(request('s2')));
    assert.deepEqual(
      waits.map((w) => w.stepId),
      ['s1'],
    );
    const before = waits;
    assert.equal(noteRateLimitEvent(waits, stamper.stamp(request('s1', 'planner'))), before, 'another purpose leaves it');
    assert.equal(noteRateLimitEvent(waits, stamper.stamp({ type: 'step_output', stepId: 's1', output: 'x' })), before);
    assert.deepEqual(
      noteRateLimitEvent(waits, stamper.stamp({ type: 'run_finished', status: 'failed', error: 'x', plan: toSnapshot(createPlanState('run-1')) })),
      [],
    );
  });

  it('a later wait of the same request replaces the earlier one; malformed data adds nothing', () => {
    const stamper = new EventStamper();
    let waits = noteRateLimitEvent([], stamper.stamp(retryLog(2_000)));
    const again = stamper.stamp(retryLog(8_000, { retry: 2 }));
    waits = noteRateLimitEvent(waits, again);
    assert.equal(waits.length, 1);
    assert.equal(waits[0].until, again.time + 8_000);
    assert.equal(waits[0].retry, 2);
    for (const bad of ['20', -1, Number.NaN, undefined]) assert.equal(noteRateLimitEvent(waits, stamper.stamp(retryLog(bad))), waits, String(bad));
    const plainWarning = stamper.stamp({ type: 'log', level: 'warn', message: 'something else', data: { delayMs: 1000 } });
    assert.equal(noteRateLimitEvent(waits, plainWarning), waits);
  });

  it('the store keeps the waits from a reset and from appended events, and flags the header for render', () => {
    const stamper = new EventStamper();
    const store = new PlanStore();
    const events = syntheticPlanEvents(2, stamper, 'run-1');
    const wait = stamper.stamp(retryLog(12_000));
    store.reset('run-1', true, [...events, wait]);
    assert.equal(rateLimitCountdown(store.rateLimitWaits, wait.time, true)?.seconds, 12);
    store.takeChanges();
    const done = stamper.stamp(request('s1'));
    store.appendEvents('run-1', done.seq, [done]);
    assert.equal(store.takeChanges().run, true);
    assert.equal(rateLimitCountdown(store.rateLimitWaits, wait.time, true), undefined);
  });
});
