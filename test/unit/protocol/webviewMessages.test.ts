import assert from 'node:assert/strict';
import { MAX_WEBVIEW_MESSAGE_BYTES, parseHostMessage, parseWebviewMessage } from '../../../src/protocol/messages';

const hash = 'a'.repeat(64);
const answer = { type: 'approval/answer', runId: 'r1', requestId: 'q1', callId: 'c1', argsHash: hash, decision: 'approve', replyTo: 'answer-1' };

describe('webview → host messages are validated before anything acts on them', () => {
  it('accepts every well-formed message', () => {
    for (const message of [
      { type: 'webview/ready' },
      { type: 'webview/ready', runId: 'r1' },
      { type: 'webview/resync', runId: 'r1', fromSeq: 3 },
      answer,
      { ...answer, decision: 'deny', feedback: 'use git clean' },
      { ...answer, scope: 'run' },
      { ...answer, scope: 'workspace' },
      { type: 'run/cancel', runId: 'r1' },
      { type: 'step/retry', runId: 'r1', stepId: 's2' },
      { type: 'run/openTrace' },
      { type: 'endpoint/setApiKey' },
      { type: 'endpoint/openSettings' },
      { type: 'run/retry', runId: 'r1' },
    ]) {
      const parsed = parseWebviewMessage(message);
      assert.ok(parsed.ok, JSON.stringify(parsed));
    }
  });

  const hostile: Array<[string, unknown, RegExp]> = [
    ['a prototype-polluting key (as JSON.parse creates it)', JSON.parse('{"type":"run/cancel","runId":"r1","__proto__":{"polluted":true}}'), /forbidden key/],
    ['a nested constructor key', { ...answer, feedback: undefined, extra: { constructor: { prototype: {} } } }, /forbidden key/],
    ['an oversized message', { ...answer, feedback: 'x'.repeat(MAX_WEBVIEW_MESSAGE_BYTES) }, /too large/],
    ['an unknown type', { type: 'run/deleteEverything', runId: 'r1' }, /type/],
    ['an extra key on a strict message', { ...answer, approveAll: true }, /approveAll|Unrecognized/i],
    ['an argsHash that is not a sha256', { ...answer, argsHash: 'nope' }, /argsHash/],
    ['a decision other than approve/deny', { ...answer, decision: 'maybe' }, /decision/],
    ['a scope other than call/run/workspace', { ...answer, scope: 'forever' }, /scope/],
    ['an answer without the replyTo its reply will quote', { ...answer, replyTo: undefined }, /replyTo/],
    ['an empty replyTo', { ...answer, replyTo: '' }, /replyTo/],
    ['a retry without its run', { type: 'run/retry' }, /runId/],
    ['a settings button that names a setting of its own', { type: 'endpoint/openSettings', query: 'security' }, /query|Unrecognized/i],
    ['a negative seq', { type: 'webview/resync', runId: 'r1', fromSeq: -5 }, /fromSeq/],
    ['feedback over 4,000 characters', { ...answer, decision: 'deny', feedback: 'x'.repeat(4001) }, /feedback/],
    ['not an object', 'approve', /expected object|Invalid input/i],
    ['null', null, /expected object|Invalid input/i],
  ];
  for (const [what, message, reason] of hostile) {
    it(`drops ${what}, with a reason, without throwing`, () => {
      const parsed = parseWebviewMessage(message);
      assert.equal(parsed.ok, false);
      assert.match((parsed as { error: string }).error, reason);
    });
  }

  it('does not throw on a message that cannot be serialised', () => {
    const circular: Record<string, unknown> = { type: 'run/cancel', runId: 'r1' };
    circular.self = circular;
    assert.deepEqual(parseWebviewMessage(circular), { ok: false, error: 'message is not serialisable' });
  });

  it('never lets a parsed message pollute Object.prototype', () => {
    parseWebviewMessage(JSON.parse('{"__proto__":{"pwned":1},"type":"run/openTrace"}'));
    assert.equal(({} as Record<string, unknown>).pwned, undefined);
  });
});

describe('host → webview messages are validated in the webview', () => {
  it('rejects an event batch whose events are not run events', () => {
    const parsed = parseHostMessage({ type: 'host/events', runId: 'r1', fromSeq: 0, events: [{ seq: 0, time: 1, type: 'alien' }] });
    assert.equal(parsed.ok, false);
  });

  it('accepts the reply to an answer: accepted, or refused with a known reason', () => {
    assert.ok(parseHostMessage({ type: 'host/approvalAnswer', runId: 'r1', replyTo: 'answer-1', outcome: 'accepted' }).ok);
    for (const reason of ['stale_hash', 'unknown_request', 'wrong_call', 'already_answered', 'withdrawn', 'malformed', 'run_over']) {
      const parsed = parseHostMessage({ type: 'host/approvalAnswer', runId: 'r1', replyTo: 'answer-1', outcome: 'refused', reason, message: 'why' });
      assert.ok(parsed.ok, reason);
    }
    assert.equal(parseHostMessage({ type: 'host/approvalAnswer', runId: 'r1', replyTo: 'answer-1', outcome: 'refused', reason: 'because' }).ok, false);
    assert.equal(parseHostMessage({ type: 'host/approvalAnswer', runId: 'r1', outcome: 'accepted' }).ok, false);
  });

  it('carries the approval lifecycle events; the former host-side approval list is gone', () => {
    const events = [
      { seq: 0, time: 1, type: 'approval_answered', stepId: 's1', callId: 'c1', requestId: 'q1', decision: 'deny', feedback: 'not now', source: 'panel' },
      {
        seq: 1,
        time: 2,
        type: 'approval_refused',
        requestId: 'q1',
        stepId: 's1',
        callId: 'c1',
        reason: 'already_answered',
        message: 'the request was already answered (denied)',
      },
      { seq: 2, time: 3, type: 'approval_withdrawn', stepId: 's1', callId: 'c2', requestId: 'q2', reason: 'run_cancelled', message: 'cancelled by the user' },
    ];
    assert.ok(parseHostMessage({ type: 'host/events', runId: 'r1', fromSeq: 0, events }).ok);
    assert.equal(parseHostMessage({ type: 'host/events', runId: 'r1', fromSeq: 2, events: [{ ...events[2], reason: 'timeout' }] }).ok, false);
    assert.equal(parseHostMessage({ type: 'host/approvals', runId: 'r1', pending: [] }).ok, false);
  });
});
