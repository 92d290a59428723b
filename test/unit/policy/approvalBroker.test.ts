import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { EventLog } from '../../../src/core/plan/eventLog';
import type { EventOf, RunEvent } from '../../../src/core/plan/events';
import { foldEvents } from '../../../src/core/plan/reducer';
import { toSnapshot } from '../../../src/core/plan/snapshot';
import type { Logger } from '../../../src/core/ports';
import { ApprovalBroker, hashArguments, type ApprovalBrokerOptions, type ApprovalOutcome, type ApprovalRequest } from '../../../src/core/policy/approvalBroker';

interface LogLine {
  level: string;
  message: string;
  data?: Record<string, unknown>;
}

function recordingLogger(): { logger: Logger; lines: LogLine[] } {
  const lines: LogLine[] = [];
  const log = (level: string) => (message: string, data?: Record<string, unknown>) => lines.push({ level, message, data });
  return { lines, logger: { trace: log('trace'), debug: log('debug'), info: log('info'), warn: log('warn'), error: log('error') } };
}

const ARGS = '{"path":"src/a.ts","content":"x"}';

/** A run log whose step s1 (and s2) are in progress; calls are recorded by `recordCall`. */
function runLog(): EventLog {
  const log = new EventLog({ now: () => 1000 });
  log.append({ type: 'run_started', runId: 'run-1', task: 't', workspace: '/w', model: 'm', baseUrl: 'http://x' });
  for (const stepId of ['s1', 's2']) {
    log.append({ type: 'step_added', stepId, description: stepId, dependsOn: [], lineage: stepId, replanAttempts: 0, origin: 'planner' });
    log.append({ type: 'step_status_changed', stepId, status: 'in_progress' });
  }
  return log;
}

function recordCall(log: EventLog, callId: string, argumentsJson = ARGS, stepId = 's1'): void {
  const call = {
    id: callId,
    index: 0,
    turn: 1,
    name: 'write_file',
    requestedName: 'write_file',
    nameResolution: 'exact' as const,
    arguments: argumentsJson,
    rawArguments: argumentsJson,
    isComplete: true,
    finishReason: 'tool_calls',
  };
  log.append({ type: 'tool_call_requested', stepId, call });
}

/** A broker bound to a fresh run log, with `call_1`…`call_3` of s1 and `call_9` of s2 recorded. */
function setup(options: ApprovalBrokerOptions = {}): { broker: ApprovalBroker; log: EventLog } {
  const log = runLog();
  for (const id of ['call_1', 'call_2', 'call_3']) recordCall(log, id);
  recordCall(log, 'call_9', ARGS, 's2');
  return { broker: new ApprovalBroker({ ...options, log }), log };
}

function requestInput(overrides: Partial<Omit<ApprovalRequest, 'requestId' | 'argsHash'>> = {}) {
  return {
    stepId: 's1',
    callId: 'call_1',
    toolName: 'write_file',
    argumentsJson: ARGS,
    required: false,
    denyEffect: 'continue' as const,
    reason: 'needs confirmation',
    ...overrides,
  };
}

function eventsOf<T extends RunEvent['type']>(log: EventLog, type: T): Array<EventOf<T>> {
  return log.events.filter((event): event is EventOf<T> => event.type === type);
}

function approvalOf(log: EventLog, callId: string, stepId = 's1') {
  return log.state.steps.get(stepId)!.toolCalls.find((call) => call.id === callId)!.approval!;
}

/** Resolves to the outcome if it settled within the current macrotask, else 'pending'. */
async function settled(outcome: Promise<ApprovalOutcome>): Promise<ApprovalOutcome | 'pending'> {
  return Promise.race([outcome, new Promise<'pending'>((resolve) => setImmediate(() => resolve('pending')))]);
}

describe('hashArguments', () => {
  it('is the sha256 hex of the exact JSON string', () => {
    assert.equal(hashArguments(ARGS), createHash('sha256').update(ARGS).digest('hex'));
    assert.match(hashArguments(ARGS), /^[0-9a-f]{64}$/);
  });

  it('differs for semantically equal but differently written JSON', () => {
    assert.notEqual(hashArguments('{"a":1,"b":2}'), hashArguments('{"b":2,"a":1}'));
    assert.notEqual(hashArguments('{"a":1}'), hashArguments('{"a": 1}'));
  });
});

describe('ApprovalBroker', () => {
  it('records a request with an unpredictable id, the argument hash and the exact arguments', () => {
    const { broker, log } = setup();
    const a = broker.request(requestInput()).request;
    const b = broker.request(requestInput({ callId: 'call_2' })).request;
    assert.match(a.requestId, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    assert.notEqual(a.requestId, b.requestId);
    assert.equal(a.argumentsJson, ARGS);
    assert.equal(a.argsHash, hashArguments(ARGS));
    assert.deepEqual(
      broker.pending().map((r) => r.callId),
      ['call_1', 'call_2'],
    );
    const [event] = eventsOf(log, 'tool_call_awaiting_approval');
    assert.deepEqual(event.approval, { required: false, denyEffect: 'continue', reason: 'needs confirmation', argsHash: a.argsHash, requestId: a.requestId });
    assert.equal(approvalOf(log, 'call_1').state, 'pending');
    assert.equal(log.state.steps.get('s1')!.toolCalls[0].status, 'awaiting_approval');
  });

  it('approve resolves the outcome, records the answer and leaves nothing pending', async () => {
    const { broker, log } = setup();
    const { request, outcome } = broker.request(requestInput());
    assert.equal(await settled(outcome), 'pending');
    const result = broker.answer({ requestId: request.requestId, callId: request.callId, argsHash: request.argsHash, decision: 'approve', source: 'panel' });
    assert.deepEqual(result, { accepted: true });
    assert.deepEqual(await outcome, { decision: 'approve', source: 'panel' });
    assert.deepEqual(broker.pending(), []);
    const [answered] = eventsOf(log, 'approval_answered');
    assert.deepEqual(
      { ...answered, seq: 0, time: 0 },
      {
        type: 'approval_answered',
        seq: 0,
        time: 0,
        stepId: 's1',
        callId: 'call_1',
        requestId: request.requestId,
        decision: 'approve',
        feedback: undefined,
        source: 'panel',
      },
    );
    assert.equal(approvalOf(log, 'call_1').state, 'approved');
    assert.equal(approvalOf(log, 'call_1').answeredBy, 'panel');
  });

  it('deny passes the user feedback on (trimmed) and records it; empty feedback is omitted', async () => {
    const { broker, log } = setup();
    const first = broker.request(requestInput());
    broker.answer({ ...first.request, decision: 'deny', feedback: '  use the test folder instead  ', source: 'cli' });
    assert.deepEqual(await first.outcome, { decision: 'deny', feedback: 'use the test folder instead', source: 'cli' });
    assert.equal(approvalOf(log, 'call_1').state, 'denied');
    assert.equal(approvalOf(log, 'call_1').feedback, 'use the test folder instead');

    const second = broker.request(requestInput({ callId: 'call_2' }));
    broker.answer({ ...second.request, decision: 'deny', feedback: '   ' });
    assert.deepEqual(await second.outcome, { decision: 'deny' });
    assert.equal(approvalOf(log, 'call_2').feedback, undefined);
  });

  it('refuses a second answer and records the refusal: a double click never approves twice', async () => {
    const { logger, lines } = recordingLogger();
    const { broker, log } = setup({ logger });
    const { request, outcome } = broker.request(requestInput());
    const answer = { requestId: request.requestId, callId: request.callId, argsHash: request.argsHash, decision: 'approve' as const, source: 'panel' };
    assert.equal(broker.answer(answer).accepted, true);
    assert.deepEqual(broker.answer(answer), { accepted: false, reason: 'already_answered', message: 'the request was already answered (approved)' });
    assert.equal(broker.answer({ ...answer, decision: 'deny' }).accepted, false);
    assert.deepEqual(await outcome, { decision: 'approve', source: 'panel' });
    assert.equal(approvalOf(log, 'call_1').state, 'approved');
    const refusals = eventsOf(log, 'approval_refused');
    assert.deepEqual(
      refusals.map((r) => [r.reason, r.requestId, r.stepId, r.callId, r.source]),
      [
        ['already_answered', request.requestId, 's1', 'call_1', 'panel'],
        ['already_answered', request.requestId, 's1', 'call_1', 'panel'],
      ],
    );
    assert.equal(lines.filter((line) => line.level === 'warn' && line.message === 'approval answer ignored').length, 2);
  });

  it('refuses a stale answer whose argument hash does not match, records why, and keeps waiting', async () => {
    const { logger, lines } = recordingLogger();
    const { broker, log } = setup({ logger });
    const { request, outcome } = broker.request(requestInput());
    const result = broker.answer({
      requestId: request.requestId,
      callId: request.callId,
      argsHash: hashArguments('{"path":"other"}'),
      decision: 'approve',
      source: 'panel',
    });
    assert.deepEqual(result, { accepted: false, reason: 'stale_hash', message: 'stale answer: the arguments differ from the ones awaiting approval' });
    assert.equal(await settled(outcome), 'pending');
    assert.equal(broker.pending().length, 1);
    assert.equal(approvalOf(log, 'call_1').state, 'pending');
    const [refusal] = eventsOf(log, 'approval_refused');
    assert.equal(refusal.reason, 'stale_hash');
    assert.equal(refusal.message, 'stale answer: the arguments differ from the ones awaiting approval');
    assert.equal(refusal.requestId, request.requestId);
    const warning = lines.find((line) => line.level === 'warn');
    assert.equal(warning?.data?.requestId, request.requestId);
    assert.match(String(warning?.data?.reason), /stale/);
  });

  it('refuses an answer naming a different call id', async () => {
    const { broker } = setup();
    const { request, outcome } = broker.request(requestInput());
    const result = broker.answer({ requestId: request.requestId, callId: 'call_other', argsHash: request.argsHash, decision: 'approve' });
    assert.deepEqual(result, { accepted: false, reason: 'wrong_call', message: 'the answer names a different call' });
    assert.equal(await settled(outcome), 'pending');
  });

  it('refuses an answer for an unknown request id and records it without a step', () => {
    const { logger, lines } = recordingLogger();
    const { broker, log } = setup({ logger });
    broker.request(requestInput());
    const result = broker.answer({ requestId: 'made-up', callId: 'call_1', argsHash: hashArguments(ARGS), decision: 'approve' });
    assert.deepEqual(result, { accepted: false, reason: 'unknown_request', message: 'unknown approval request' });
    assert.equal(broker.pending().length, 1);
    assert.equal(lines.filter((line) => line.level === 'warn').length, 1);
    const [refusal] = eventsOf(log, 'approval_refused');
    assert.equal(refusal.requestId, 'made-up');
    assert.equal(refusal.stepId, undefined);
  });

  it('never throws on malformed answers', () => {
    const { broker } = setup();
    const { request } = broker.request(requestInput());
    for (const bad of [
      null,
      undefined,
      42,
      'approve',
      {},
      { ...request, decision: 'maybe' },
      { requestId: 7, callId: 'x', argsHash: 'y', decision: 'approve' },
    ]) {
      const result = broker.answer(bad as never);
      assert.equal(result.accepted, false, JSON.stringify(bad));
      assert.equal(result.accepted === false && result.reason, 'malformed', JSON.stringify(bad));
    }
    assert.equal(broker.pending().length, 1);
  });

  it('cancelAll withdraws every pending request (recorded) and later answers are refused as withdrawn', async () => {
    const { broker, log } = setup();
    const a = broker.request(requestInput());
    const b = broker.request(requestInput({ callId: 'call_2' }));
    broker.cancelAll('cancelled by the user');
    assert.deepEqual(await a.outcome, { decision: 'cancelled', reason: 'cancelled by the user' });
    assert.deepEqual(await b.outcome, { decision: 'cancelled', reason: 'cancelled by the user' });
    assert.deepEqual(broker.pending(), []);
    assert.deepEqual(
      eventsOf(log, 'approval_withdrawn').map((e) => [e.callId, e.reason, e.message]),
      [
        ['call_1', 'run_cancelled', 'cancelled by the user'],
        ['call_2', 'run_cancelled', 'cancelled by the user'],
      ],
    );
    assert.equal(approvalOf(log, 'call_1').state, 'withdrawn');
    assert.equal(approvalOf(log, 'call_1').withdrawnBecause, 'run_cancelled');
    assert.equal(log.state.steps.get('s1')!.toolCalls[0].status, 'awaiting_approval', 'the call never ran and gets no made-up result');
    assert.deepEqual(broker.answer({ ...a.request, decision: 'approve' }), { accepted: false, reason: 'withdrawn', message: 'the request was cancelled' });
  });

  it("withdrawStep withdraws that step's pending requests only", async () => {
    const { broker, log } = setup();
    const a = broker.request(requestInput());
    const other = broker.request(requestInput({ stepId: 's2', callId: 'call_9' }));
    broker.withdrawStep('s1', 'the step ended');
    assert.deepEqual(await a.outcome, { decision: 'cancelled', reason: 'the step ended' });
    assert.equal(await settled(other.outcome), 'pending');
    assert.deepEqual(
      eventsOf(log, 'approval_withdrawn').map((e) => [e.stepId, e.reason]),
      [['s1', 'step_ended']],
    );
    assert.deepEqual(
      broker.pending().map((r) => r.callId),
      ['call_9'],
    );
  });

  it('aborting the per-request signal withdraws that request only', async () => {
    const { broker, log } = setup();
    const controller = new AbortController();
    const a = broker.request(requestInput(), controller.signal);
    const b = broker.request(requestInput({ callId: 'call_2' }));
    controller.abort(new Error('cancelled by the user'));
    assert.deepEqual(await a.outcome, { decision: 'cancelled', reason: 'cancelled by the user' });
    assert.equal(await settled(b.outcome), 'pending');
    assert.equal(eventsOf(log, 'approval_withdrawn')[0].reason, 'run_cancelled');
    assert.equal(broker.answer({ ...a.request, decision: 'approve' }).accepted, false);
    assert.equal(broker.answer({ ...b.request, decision: 'approve' }).accepted, true);
  });

  it('an already aborted signal records the request withdrawn at once, never listed as pending', async () => {
    const { broker, log } = setup();
    const seen: number[] = [];
    broker.onDidChange((pending) => seen.push(pending.length));
    const { request, outcome } = broker.request(requestInput(), AbortSignal.abort('run cancelled'));
    assert.deepEqual(await outcome, { decision: 'cancelled', reason: 'run cancelled' });
    assert.deepEqual(broker.pending(), []);
    assert.deepEqual(seen, []);
    assert.deepEqual(
      log.events.slice(-2).map((e) => e.type),
      ['tool_call_awaiting_approval', 'approval_withdrawn'],
    );
    assert.deepEqual(broker.answer({ ...request, decision: 'approve' }), { accepted: false, reason: 'withdrawn', message: 'the request was cancelled' });
  });

  it('answering removes the abort listener (a later abort changes nothing)', async () => {
    const { broker, log } = setup();
    const controller = new AbortController();
    const { request, outcome } = broker.request(requestInput(), controller.signal);
    broker.answer({ ...request, decision: 'approve' });
    controller.abort();
    assert.deepEqual(await outcome, { decision: 'approve' });
    assert.equal(eventsOf(log, 'approval_withdrawn').length, 0);
  });

  it('onDidChange reports the pending list after each change until unsubscribed', () => {
    const { broker } = setup();
    const seen: string[][] = [];
    const unsubscribe = broker.onDidChange((pending) => seen.push(pending.map((r) => r.callId)));
    const a = broker.request(requestInput());
    broker.request(requestInput({ callId: 'call_2' }));
    broker.answer({ ...a.request, decision: 'approve' });
    broker.answer({ ...a.request, decision: 'approve' }); // refused: no change
    broker.cancelAll('stop');
    unsubscribe();
    broker.request(requestInput({ callId: 'call_3' }));
    assert.deepEqual(seen, [['call_1'], ['call_1', 'call_2'], ['call_2'], []]);
  });

  it('a throwing listener is logged and does not break the broker or other listeners', async () => {
    const { logger, lines } = recordingLogger();
    const { broker } = setup({ logger });
    let calls = 0;
    broker.onDidChange(() => {
      throw new Error('panel gone');
    });
    broker.onDidChange(() => calls++);
    const { request, outcome } = broker.request(requestInput());
    assert.equal(broker.answer({ ...request, decision: 'approve' }).accepted, true);
    assert.deepEqual(await outcome, { decision: 'approve' });
    assert.equal(calls, 2);
    assert.ok(lines.some((line) => line.level === 'error' && line.data?.error === 'panel gone'));
  });

  it('pending requests survive with no listener (closed panel) and are listed again for a new one', () => {
    const { broker } = setup();
    const unsubscribe = broker.onDidChange(() => {});
    const { request } = broker.request(requestInput());
    unsubscribe();
    let reopened: ApprovalRequest[] = [];
    broker.onDidChange((pending) => (reopened = pending));
    assert.deepEqual(broker.pending(), [request]);
    broker.request(requestInput({ callId: 'call_2' }));
    assert.deepEqual(
      reopened.map((r) => r.callId),
      ['call_1', 'call_2'],
    );
  });

  it('retry after a deny on a required gate opens a new request; the old one stays denied and only the new one can approve', async () => {
    const ids = ['req-1', 'req-2'];
    const { broker, log } = setup({ newId: () => ids.shift()! });
    const gate = requestInput({ required: true, denyEffect: 'block', reason: 'deploys' });
    const first = broker.request(gate);
    broker.answer({ ...first.request, decision: 'deny', feedback: 'not yet' });
    assert.deepEqual(await first.outcome, { decision: 'deny', feedback: 'not yet' });

    const retry = broker.request(gate);
    assert.equal(retry.request.requestId, 'req-2');
    assert.equal(retry.request.required, true);
    assert.equal(retry.request.denyEffect, 'block');
    assert.deepEqual(broker.answer({ ...first.request, decision: 'approve' }), {
      accepted: false,
      reason: 'already_answered',
      message: 'the request was already answered (denied)',
    });
    assert.equal(await settled(retry.outcome), 'pending');
    assert.equal(broker.answer({ ...retry.request, decision: 'approve' }).accepted, true);
    assert.deepEqual(await retry.outcome, { decision: 'approve' });
    const call = log.state.steps.get('s1')!.toolCalls[0];
    assert.equal(call.approval!.requestId, 'req-2');
    assert.equal(call.approval!.state, 'approved');
    assert.deepEqual(
      call.earlierApprovals!.map((a) => [a.requestId, a.state, a.feedback]),
      [['req-1', 'denied', 'not yet']],
    );
  });

  it('a new request for the same pending call supersedes (withdraws) the old one', async () => {
    const { broker, log } = setup();
    const old = broker.request(requestInput());
    const fresh = broker.request(requestInput());
    assert.deepEqual(await old.outcome, { decision: 'cancelled', reason: 'superseded by a newer approval request for the same call' });
    assert.equal(eventsOf(log, 'approval_withdrawn')[0].reason, 'superseded');
    assert.equal(broker.answer({ ...old.request, decision: 'approve' }).accepted, false);
    assert.deepEqual(
      broker.pending().map((r) => r.requestId),
      [fresh.request.requestId],
    );
  });

  it('after run_finished an answer is refused as run_over and nothing more is recorded', () => {
    const { broker, log } = setup();
    const { request } = broker.request(requestInput());
    broker.cancelAll('cancelled by the user');
    log.append({ type: 'run_finished', status: 'cancelled', plan: toSnapshot(log.state) });
    const before = log.events.length;
    assert.deepEqual(broker.answer({ ...request, decision: 'approve' }), { accepted: false, reason: 'run_over', message: 'the run has already finished' });
    assert.equal(log.events.length, before);
  });

  it('replaying the events reproduces every approval state exactly', () => {
    const { broker, log } = setup({
      newId: (() => {
        let n = 0;
        return () => `req-${++n}`;
      })(),
    });
    const a = broker.request(requestInput({ required: true, denyEffect: 'block' }));
    broker.answer({ ...a.request, decision: 'deny', feedback: 'later', source: 'panel' });
    const retried = broker.request(requestInput({ required: true, denyEffect: 'block' }));
    broker.answer({ ...retried.request, argsHash: '0'.repeat(64), decision: 'approve' });
    broker.answer({ ...retried.request, decision: 'approve', source: 'notification' });
    broker.request(requestInput({ callId: 'call_2' }));
    broker.request(requestInput({ stepId: 's2', callId: 'call_9' }));
    broker.withdrawStep('s2', 'the step ended');
    broker.cancelAll('cancelled by the user');
    const replayed = foldEvents(JSON.parse(JSON.stringify(log.events)) as RunEvent[]);
    assert.deepEqual(toSnapshot(replayed), toSnapshot(log.state));
    const states = (state: typeof log.state) =>
      [...state.steps.values()].flatMap((s) =>
        s.toolCalls.flatMap((c) => [...(c.earlierApprovals ?? []), ...(c.approval ? [c.approval] : [])].map((x) => `${c.id}:${x.requestId}:${x.state}`)),
      );
    assert.deepEqual(states(replayed), ['call_1:req-1:denied', 'call_1:req-2:approved', 'call_2:req-3:withdrawn', 'call_9:req-4:withdrawn']);
  });

  it('refuses a duplicate request id from the generator', () => {
    const { broker } = setup({ newId: () => 'same' });
    broker.request(requestInput());
    assert.throws(() => broker.request(requestInput({ callId: 'call_2' })), /already in use/);
  });

  it('rejects a request without a call id, for a call that is not recorded, or with other arguments than recorded', () => {
    const { broker } = setup();
    assert.throws(() => broker.request(requestInput({ callId: '' })), TypeError);
    assert.throws(() => broker.request(requestInput({ callId: 'call_unknown' })), /call_unknown of step s1: the call is not recorded/);
    assert.throws(() => broker.request(requestInput({ argumentsJson: '{"path":"/etc/passwd"}' })), /differ from the recorded call/);
    assert.deepEqual(broker.pending(), []);
  });

  it('needs an event log to record into, and only one', () => {
    assert.throws(() => new ApprovalBroker().request(requestInput()), /no event log/);
    const { broker } = setup();
    assert.throws(() => broker.bind(new EventLog()), /another run's event log/);
    assert.deepEqual(new ApprovalBroker().pending(), []);
  });

  it('the returned request cannot be altered to change what is approved', () => {
    const { broker } = setup();
    const { request } = broker.request(requestInput());
    assert.throws(() => {
      (request as { argumentsJson: string }).argumentsJson = '{"path":"/etc/passwd"}';
    }, TypeError);
    assert.equal(broker.pending()[0].argumentsJson, ARGS);
  });
});
