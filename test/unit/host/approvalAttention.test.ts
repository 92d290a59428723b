import assert from 'node:assert/strict';
import type { ApprovalBroker } from '../../../src/core/policy/approvalBroker';
import type { Logger } from '../../../src/core/ports';
import type { ApprovalRequestMessage } from '../../../src/protocol/messages';
import { ApprovalAttention, approvalStatusText, type ApprovalChoice, type ApprovalStatusView, type ApprovalSurface } from '../../../src/host/approvalAttention';
import { brokerApprovals } from '../../../src/host/liveRun';
import { approvalRun, type ApprovalRun } from '../policy/approvalFixtures';

// ApprovalAttention over real ApprovalBrokers; only the window (panel visibility, notifications,
// status bar) is a fake of the small interfaces it is written against.

interface Shown {
  runId: string;
  request: ApprovalRequestMessage;
  press(choice: ApprovalChoice): Promise<void>;
}

class FakeWindow implements ApprovalSurface, ApprovalStatusView {
  readonly visible = new Set<string>();
  readonly notifications: Shown[] = [];
  readonly revealed: string[] = [];
  readonly warnings: string[] = [];
  private status: { text: string; tooltip: string; runId: string } | undefined;

  /** What the status bar shows now (undefined: hidden). */
  current() {
    return this.status;
  }

  isPanelVisible(runId: string): boolean {
    return this.visible.has(runId);
  }
  notify(runId: string, request: ApprovalRequestMessage): Promise<ApprovalChoice> {
    return new Promise((resolve) => {
      this.notifications.push({
        runId,
        request,
        // Resolves the notification, then lets the attention's handler run.
        press: async (choice) => {
          resolve(choice);
          await new Promise((done) => setImmediate(done));
        },
      });
    });
  }
  showPanel(runId: string): void {
    this.revealed.push(runId);
  }
  warn(message: string): void {
    this.warnings.push(message);
  }
  show(status: { text: string; tooltip: string; runId: string }): void {
    this.status = status;
  }
  hide(): void {
    this.status = undefined;
  }
}

const logLines: string[] = [];
const logger: Logger = { trace: () => {}, debug: () => {}, info: (m) => logLines.push(m), warn: (m) => logLines.push(m), error: (m) => logLines.push(m) };

function ask(run: ApprovalRun, callId: string) {
  return run.ask(callId);
}

function answerFromPanel(broker: ApprovalBroker, request: { requestId: string; callId: string; argsHash: string }, decision: 'approve' | 'deny' = 'approve') {
  assert.equal(broker.answer({ requestId: request.requestId, callId: request.callId, argsHash: request.argsHash, decision, source: 'panel' }).accepted, true);
}

describe('ApprovalAttention', () => {
  let window: FakeWindow;
  let attention: ApprovalAttention;
  beforeEach(() => {
    window = new FakeWindow();
    attention = new ApprovalAttention(window, window, logger);
    logLines.length = 0;
  });

  it('words the status entry with the count', () => {
    assert.equal(approvalStatusText(1), '$(bell) 1 approval waiting');
    assert.equal(approvalStatusText(2), '$(bell) 2 approvals waiting');
  });

  it('counts waiting approvals in the status bar while the visible panel gets no notification', () => {
    const run = approvalRun();
    const { broker } = run;
    window.visible.add('run-a');
    attention.watch('run-a', brokerApprovals(broker));
    assert.equal(window.current(), undefined, 'hidden while nothing waits');
    const first = ask(run, 'call-1').request;
    const second = ask(run, 'call-2').request;
    assert.deepEqual(window.current(), {
      text: '$(bell) 2 approvals waiting',
      tooltip: 'Cortex: 2 tool calls wait for your approval. Click to show the panel.',
      runId: 'run-a',
    });
    assert.equal(window.notifications.length, 0, 'the panel shows the buttons; no notification next to it');
    answerFromPanel(broker, first);
    assert.equal(window.current()?.text, '$(bell) 1 approval waiting');
    answerFromPanel(broker, second, 'deny');
    assert.equal(window.current(), undefined, 'gone once nothing waits');
  });

  it('counts a waiting plan approval with the tool calls, and drops it once answered', () => {
    const run = approvalRun();
    const { broker } = run;
    window.visible.add('run-a');
    attention.watch('run-a', brokerApprovals(broker), broker.plans);
    const { requestId } = broker.plans.request({
      kind: 'plan',
      title: 'T',
      steps: [{ description: 'Write docs', dependsOn: [], scope: { write: ['docs/**'], commands: [] } }],
      attempt: 1,
    });
    assert.deepEqual(window.current(), {
      text: '$(bell) 1 approval waiting',
      tooltip: 'Cortex: A plan waits for your approval. Click to show the panel.',
      runId: 'run-a',
    });
    const call = ask(run, 'call-1').request;
    assert.equal(window.current()?.tooltip, 'Cortex: A plan and a tool call wait for your approval. Click to show the panel.');
    assert.equal(window.current()?.text, '$(bell) 2 approvals waiting');
    assert.equal(broker.plans.answer({ requestId, approved: true, source: 'panel' }).accepted, true);
    assert.equal(window.current()?.tooltip, 'Cortex: A tool call waits for your approval. Click to show the panel.');
    answerFromPanel(broker, call);
    assert.equal(window.current(), undefined);
  });

  it('notifies once per request while the panel is hidden, and not for requests arriving once it is visible', () => {
    const run = approvalRun();
    const { broker } = run;
    attention.watch('run-a', brokerApprovals(broker));
    ask(run, 'call-1');
    ask(run, 'call-2');
    assert.deepEqual(
      window.notifications.map((n) => n.request.callId),
      ['call-1', 'call-2'],
      'one each, not repeated on the second change',
    );
    window.visible.add('run-a');
    ask(run, 'call-3');
    assert.deepEqual(
      window.notifications.map((n) => n.request.callId),
      ['call-1', 'call-2'],
    );
    assert.equal(window.current()?.text, '$(bell) 3 approvals waiting');
  });

  it('answers from the notification through the broker, marked as from the notification', async () => {
    const run = approvalRun();
    const { broker } = run;
    attention.watch('run-a', brokerApprovals(broker));
    const { outcome } = ask(run, 'call-1');
    await window.notifications[0].press('approve');
    assert.deepEqual(await outcome, { decision: 'approve', source: 'notification' });
    assert.equal(window.current(), undefined);
    assert.deepEqual(window.warnings, []);
  });

  it('ignores a notification answer for a request the panel already answered', async () => {
    const run = approvalRun();
    const { broker } = run;
    attention.watch('run-a', brokerApprovals(broker));
    const { request, outcome } = ask(run, 'call-1');
    answerFromPanel(broker, request, 'deny');
    await window.notifications[0].press('approve');
    assert.equal((await outcome).decision, 'deny', 'the first answer stands');
    assert.deepEqual(window.warnings, []);
    assert.ok(
      logLines.some((line) => /notification answer for call-1 ignored \(already answered\)/.test(line)),
      logLines.join('\n'),
    );
    const refusals = run.log.events.filter((event) => event.type === 'approval_refused');
    assert.deepEqual(
      refusals.map((event) => event.type === 'approval_refused' && [event.reason, event.source]),
      [['already_answered', 'notification']],
      'the late click is in the trace',
    );
  });

  it('"Show panel" on the notification reveals that run\'s panel; dismissing it does nothing', async () => {
    const run = approvalRun();
    const { broker } = run;
    attention.watch('run-b', brokerApprovals(broker));
    ask(run, 'call-1');
    ask(run, 'call-2');
    await window.notifications[0].press('showPanel');
    await window.notifications[1].press(undefined);
    assert.deepEqual(window.revealed, ['run-b']);
    assert.equal(broker.pending().length, 2, 'still waiting');
  });

  it('sums over runs, points the status entry at the first run with a waiting approval, and forgets a run that ended', () => {
    const a = approvalRun();
    const b = approvalRun();
    window.visible.add('run-a').add('run-b');
    const stopA = attention.watch('run-a', brokerApprovals(a.broker));
    attention.watch('run-b', brokerApprovals(b.broker));
    const onlyOfB = ask(b, 'call-b1').request;
    assert.deepEqual([window.current()?.text, window.current()?.runId], ['$(bell) 1 approval waiting', 'run-b']);
    ask(a, 'call-a1');
    ask(a, 'call-a2');
    assert.deepEqual([window.current()?.text, window.current()?.runId], ['$(bell) 3 approvals waiting', 'run-a']);
    stopA();
    assert.deepEqual([window.current()?.text, window.current()?.runId], ['$(bell) 1 approval waiting', 'run-b']);
    ask(a, 'call-a3');
    assert.equal(window.current()?.text, '$(bell) 1 approval waiting', 'a run no longer watched is not counted');
    answerFromPanel(b.broker, onlyOfB);
    assert.equal(window.current(), undefined);
  });

  it('refuses to watch the same run twice', () => {
    attention.watch('run-a', brokerApprovals(approvalRun().broker));
    assert.throws(() => attention.watch('run-a', brokerApprovals(approvalRun().broker)), /already watched/);
  });
});
