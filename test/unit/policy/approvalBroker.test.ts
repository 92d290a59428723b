import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import type { Logger } from '../../../src/core/ports';
import { ApprovalBroker, hashArguments, type ApprovalOutcome, type ApprovalRequest } from '../../../src/core/policy/approvalBroker';

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

function requestInput(overrides: Partial<Omit<ApprovalRequest, 'requestId' | 'argsHash'>> = {}) {
  return { stepId: 's1', callId: 'call_1', toolName: 'write_file', argumentsJson: ARGS, required: false, denyEffect: 'continue' as const, reason: 'needs confirmation', ...overrides };
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
  it('creates unpredictable request ids with the argument hash and the exact arguments', () => {
    const broker = new ApprovalBroker();
    const a = broker.request(requestInput()).request;
    const b = broker.request(requestInput({ callId: 'call_2' })).request;
    assert.match(a.requestId, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    assert.notEqual(a.requestId, b.requestId);
    assert.equal(a.argumentsJson, ARGS);
    assert.equal(a.argsHash, hashArguments(ARGS));
    assert.deepEqual(broker.pending().map((r) => r.callId), ['call_1', 'call_2']);
  });

  it('approve resolves the outcome and removes the request from pending', async () => {
    const broker = new ApprovalBroker();
    const { request, outcome } = broker.request(requestInput());
    assert.equal(await settled(outcome), 'pending');
    const result = broker.answer({ requestId: request.requestId, callId: request.callId, argsHash: request.argsHash, decision: 'approve', source: 'panel' });
    assert.deepEqual(result, { accepted: true });
    assert.deepEqual(await outcome, { decision: 'approve', source: 'panel' });
    assert.deepEqual(broker.pending(), []);
  });

  it('deny passes the user feedback on (trimmed), and omits empty feedback', async () => {
    const broker = new ApprovalBroker();
    const first = broker.request(requestInput());
    broker.answer({ ...first.request, decision: 'deny', feedback: '  use the test folder instead  ', source: 'cli' });
    assert.deepEqual(await first.outcome, { decision: 'deny', feedback: 'use the test folder instead', source: 'cli' });

    const second = broker.request(requestInput({ callId: 'call_2' }));
    broker.answer({ ...second.request, decision: 'deny', feedback: '   ' });
    assert.deepEqual(await second.outcome, { decision: 'deny' });
  });

  it('ignores and logs a second answer: a double click never approves twice', async () => {
    const { logger, lines } = recordingLogger();
    const broker = new ApprovalBroker({ logger });
    const { request, outcome } = broker.request(requestInput());
    const answer = { requestId: request.requestId, callId: request.callId, argsHash: request.argsHash, decision: 'approve' as const };
    assert.equal(broker.answer(answer).accepted, true);
    const again = broker.answer(answer);
    assert.equal(again.accepted, false);
    assert.match(again.reason!, /already answered/);
    const flip = broker.answer({ ...answer, decision: 'deny' });
    assert.equal(flip.accepted, false);
    assert.deepEqual(await outcome, { decision: 'approve' });
    assert.equal(lines.filter((line) => line.level === 'warn' && line.message === 'approval answer ignored').length, 2);
  });

  it('ignores a stale answer whose argument hash does not match', async () => {
    const { logger, lines } = recordingLogger();
    const broker = new ApprovalBroker({ logger });
    const { request, outcome } = broker.request(requestInput());
    const result = broker.answer({ requestId: request.requestId, callId: request.callId, argsHash: hashArguments('{"path":"other"}'), decision: 'approve' });
    assert.equal(result.accepted, false);
    assert.match(result.reason!, /stale/);
    assert.equal(await settled(outcome), 'pending');
    assert.equal(broker.pending().length, 1);
    const warning = lines.find((line) => line.level === 'warn');
    assert.equal(warning?.data?.requestId, request.requestId);
    assert.match(String(warning?.data?.reason), /stale/);
  });

  it('ignores an answer naming a different call id', async () => {
    const broker = new ApprovalBroker();
    const { request, outcome } = broker.request(requestInput());
    const result = broker.answer({ requestId: request.requestId, callId: 'call_other', argsHash: request.argsHash, decision: 'approve' });
    assert.equal(result.accepted, false);
    assert.match(result.reason!, /different call/);
    assert.equal(await settled(outcome), 'pending');
  });

  it('ignores an answer for an unknown request id', () => {
    const { logger, lines } = recordingLogger();
    const broker = new ApprovalBroker({ logger });
    broker.request(requestInput());
    const result = broker.answer({ requestId: 'made-up', callId: 'call_1', argsHash: hashArguments(ARGS), decision: 'approve' });
    assert.deepEqual(result, { accepted: false, reason: 'unknown approval request' });
    assert.equal(broker.pending().length, 1);
    assert.equal(lines.filter((line) => line.level === 'warn').length, 1);
  });

  it('never throws on malformed answers', () => {
    const broker = new ApprovalBroker();
    const { request } = broker.request(requestInput());
    for (const bad of [null, undefined, 42, 'approve', {}, { ...request, decision: 'maybe' }, { requestId: 7, callId: 'x', argsHash: 'y', decision: 'approve' }]) {
      const result = broker.answer(bad as never);
      assert.equal(result.accepted, false, JSON.stringify(bad));
    }
    assert.equal(broker.pending().length, 1);
  });

  it('cancelAll resolves every pending outcome as cancelled and later answers are ignored', async () => {
    const broker = new ApprovalBroker();
    const a = broker.request(requestInput());
    const b = broker.request(requestInput({ callId: 'call_2' }));
    broker.cancelAll('run cancelled');
    assert.deepEqual(await a.outcome, { decision: 'cancelled', reason: 'run cancelled' });
    assert.deepEqual(await b.outcome, { decision: 'cancelled', reason: 'run cancelled' });
    assert.deepEqual(broker.pending(), []);
    const late = broker.answer({ ...a.request, decision: 'approve' });
    assert.equal(late.accepted, false);
    assert.match(late.reason!, /cancelled/);
  });

  it('cancel cancels one request', async () => {
    const broker = new ApprovalBroker();
    const a = broker.request(requestInput());
    const b = broker.request(requestInput({ callId: 'call_2' }));
    assert.equal(broker.cancel(a.request.requestId, 'step cancelled'), true);
    assert.equal(broker.cancel(a.request.requestId, 'again'), false);
    assert.deepEqual(await a.outcome, { decision: 'cancelled', reason: 'step cancelled' });
    assert.deepEqual(broker.pending().map((r) => r.requestId), [b.request.requestId]);
  });

  it('aborting the per-request signal cancels that request only', async () => {
    const broker = new ApprovalBroker();
    const controller = new AbortController();
    const a = broker.request(requestInput(), controller.signal);
    const b = broker.request(requestInput({ callId: 'call_2' }));
    controller.abort(new Error('step timed out'));
    assert.deepEqual(await a.outcome, { decision: 'cancelled', reason: 'step timed out' });
    assert.equal(await settled(b.outcome), 'pending');
    assert.equal(broker.answer({ ...a.request, decision: 'approve' }).accepted, false);
    assert.equal(broker.answer({ ...b.request, decision: 'approve' }).accepted, true);
  });

  it('an already aborted signal cancels immediately without listing the request', async () => {
    const broker = new ApprovalBroker();
    const seen: number[] = [];
    broker.onDidChange((pending) => seen.push(pending.length));
    const { request, outcome } = broker.request(requestInput(), AbortSignal.abort('run cancelled'));
    assert.deepEqual(await outcome, { decision: 'cancelled', reason: 'run cancelled' });
    assert.deepEqual(broker.pending(), []);
    assert.deepEqual(seen, []);
    assert.match(broker.answer({ ...request, decision: 'approve' }).reason!, /cancelled/);
  });

  it('answering removes the abort listener (a later abort changes nothing)', async () => {
    const broker = new ApprovalBroker();
    const controller = new AbortController();
    const { request, outcome } = broker.request(requestInput(), controller.signal);
    broker.answer({ ...request, decision: 'approve' });
    controller.abort();
    assert.deepEqual(await outcome, { decision: 'approve' });
  });

  it('answerAll approves or denies every listed pending request, each checked like answer()', async () => {
    const broker = new ApprovalBroker();
    const a = broker.request(requestInput());
    const b = broker.request(requestInput({ callId: 'call_2', argumentsJson: '{"path":"b"}' }));
    const c = broker.request(requestInput({ callId: 'call_3' }));
    broker.answer({ ...a.request, decision: 'deny' });
    const count = broker.answerAll('approve', [a.request.requestId, b.request.requestId, b.request.requestId, 'unknown']);
    assert.equal(count, 1);
    assert.deepEqual(await a.outcome, { decision: 'deny' });
    assert.deepEqual(await b.outcome, { decision: 'approve' });
    assert.equal(await settled(c.outcome), 'pending', 'a request not listed is not answered');
    assert.equal(broker.answerAll('deny', [c.request.requestId], 'not now', 'panel'), 1);
    assert.deepEqual(await c.outcome, { decision: 'deny', feedback: 'not now', source: 'panel' });
  });

  it('onDidChange reports the pending list after each change until unsubscribed', () => {
    const broker = new ApprovalBroker();
    const seen: string[][] = [];
    const unsubscribe = broker.onDidChange((pending) => seen.push(pending.map((r) => r.callId)));
    const a = broker.request(requestInput());
    broker.request(requestInput({ callId: 'call_2' }));
    broker.answer({ ...a.request, decision: 'approve' });
    broker.answer({ ...a.request, decision: 'approve' }); // ignored: no change
    broker.cancelAll('stop');
    unsubscribe();
    broker.request(requestInput({ callId: 'call_3' }));
    assert.deepEqual(seen, [['call_1'], ['call_1', 'call_2'], ['call_2'], []]);
  });

  it('a throwing listener is logged and does not break the broker or other listeners', async () => {
    const { logger, lines } = recordingLogger();
    const broker = new ApprovalBroker({ logger });
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
    const broker = new ApprovalBroker();
    const unsubscribe = broker.onDidChange(() => {});
    const { request } = broker.request(requestInput());
    unsubscribe();
    let reopened: ApprovalRequest[] = [];
    broker.onDidChange((pending) => (reopened = pending));
    assert.deepEqual(broker.pending(), [request]);
    broker.request(requestInput({ callId: 'call_2' }));
    assert.deepEqual(reopened.map((r) => r.callId), ['call_1', 'call_2']);
  });

  it('retry after a deny on a required gate opens a new request; only the new one can approve', async () => {
    const ids = ['req-1', 'req-2'];
    const broker = new ApprovalBroker({ newId: () => ids.shift()! });
    const gate = requestInput({ required: true, denyEffect: 'block', reason: 'deploys' });
    const first = broker.request(gate);
    broker.answer({ ...first.request, decision: 'deny', feedback: 'not yet' });
    assert.deepEqual(await first.outcome, { decision: 'deny', feedback: 'not yet' });

    const retry = broker.request(gate);
    assert.equal(retry.request.requestId, 'req-2');
    assert.equal(retry.request.required, true);
    assert.equal(retry.request.denyEffect, 'block');
    assert.equal(broker.answer({ ...first.request, decision: 'approve' }).accepted, false, 'the old request stays answered');
    assert.equal(await settled(retry.outcome), 'pending');
    assert.equal(broker.answer({ ...retry.request, decision: 'approve' }).accepted, true);
    assert.deepEqual(await retry.outcome, { decision: 'approve' });
  });

  it('a new request for the same pending call supersedes (cancels) the old one', async () => {
    const broker = new ApprovalBroker();
    const old = broker.request(requestInput());
    const fresh = broker.request(requestInput({ argumentsJson: '{"path":"src/b.ts"}' }));
    assert.deepEqual(await old.outcome, { decision: 'cancelled', reason: 'superseded by a newer approval request for the same call' });
    assert.equal(broker.answer({ ...old.request, decision: 'approve' }).accepted, false);
    assert.deepEqual(broker.pending().map((r) => r.requestId), [fresh.request.requestId]);
  });

  it('refuses a duplicate request id from the generator', () => {
    const broker = new ApprovalBroker({ newId: () => 'same' });
    broker.request(requestInput());
    assert.throws(() => broker.request(requestInput({ callId: 'call_2' })), /already in use/);
  });

  it('rejects a request without a call id', () => {
    assert.throws(() => new ApprovalBroker().request(requestInput({ callId: '' })), TypeError);
  });

  it('the returned request cannot be altered to change what is approved', () => {
    const broker = new ApprovalBroker();
    const { request } = broker.request(requestInput());
    assert.throws(() => {
      (request as { argumentsJson: string }).argumentsJson = '{"path":"/etc/passwd"}';
    }, TypeError);
    assert.equal(broker.pending()[0]!.argumentsJson, ARGS);
  });
});
