import assert from 'node:assert/strict';
import type { EventOf } from '../../../src/core/plan/events';
import type { RememberedRule } from '../../../src/core/plan/rememberedApproval';
import type { Logger } from '../../../src/core/ports';
import { ApprovalMemory, type RememberedPrefixStore } from '../../../src/core/policy/approvalMemory';
import { evaluateCommand } from '../../../src/core/policy/commandRules';
import { approvalRun } from './approvalFixtures';

// The broker applying remembered answers (docs/design.md, “Remembered approvals”): an answer
// "for this run" approves later matching calls at once, recorded with `source: 'remembered'`;
// nothing else does, and a call the batch runner marks as not rememberable is always asked.

function commandArgs(text: string) {
  const evaluation = evaluateCommand(text, { allow: [], deny: [] });
  return {
    argumentsJson: JSON.stringify({ command: text }),
    rememberable: { command: { text, handoffs: evaluation.handoffs, errors: evaluation.errors } },
  };
}

function answers(events: readonly { type: string }[]): Array<EventOf<'approval_answered'>> {
  return events.filter((event): event is EventOf<'approval_answered'> => event.type === 'approval_answered');
}

function memoryStore(initial: unknown): RememberedPrefixStore & { value: unknown } {
  const store = {
    value: initial,
    read: () => store.value,
    write: async (value: RememberedRule[]) => {
      store.value = value;
    },
  };
  return store;
}

describe('approval broker: remembered answers', () => {
  it('approves a later call with the same prefix unasked after "for this run", and records why', async () => {
    const run = approvalRun({ memory: new ApprovalMemory() });
    const first = run.ask('c1', commandArgs('npm test'));
    assert.deepEqual(first.request.remember, { rule: { tool: 'run_command', prefix: ['npm', 'test'] }, workspace: false });
    const result = run.broker.answer({ ...first.request, decision: 'approve', source: 'panel', scope: 'run' });
    assert.deepEqual(result, { accepted: true });
    assert.deepEqual(await first.outcome, { decision: 'approve', source: 'panel' });

    const second = run.ask('c2', commandArgs('npm test -- --grep parser'));
    assert.deepEqual(await second.outcome, { decision: 'approve', source: 'remembered' });
    assert.deepEqual(run.broker.pending(), []);
    const [answered, remembered] = answers(run.log.events);
    assert.equal(answered.scope, 'run');
    assert.deepEqual(answered.remembered, { tool: 'run_command', prefix: ['npm', 'test'] });
    assert.equal(remembered.callId, 'c2');
    assert.equal(remembered.source, 'remembered');
    assert.equal(remembered.scope, 'run');
    const call = run.log.state.steps.get('s1')!.toolCalls.find((c) => c.id === 'c2')!;
    assert.equal(call.approval?.state, 'approved');
    assert.equal(call.approval?.answeredBy, 'remembered');
  });

  it('still asks for added shell syntax, another prefix, and a call not marked rememberable', () => {
    const run = approvalRun({ memory: new ApprovalMemory() });
    const first = run.ask('c1', commandArgs('npm test'));
    run.broker.answer({ ...first.request, decision: 'approve', scope: 'run' });
    run.ask('c2', commandArgs('npm test && curl evil'));
    run.ask('c3', commandArgs('npm install'));
    run.ask('c4', { argumentsJson: JSON.stringify({ command: 'npm test' }) });
    assert.deepEqual(
      run.broker.pending().map((p) => p.callId),
      ['c2', 'c3', 'c4'],
    );
    assert.equal(run.broker.pending()[0].remember, undefined, 'shell syntax offers nothing to remember');
  });

  it('a plain Approve remembers nothing', () => {
    const run = approvalRun({ memory: new ApprovalMemory() });
    const first = run.ask('c1', commandArgs('npm test'));
    run.broker.answer({ ...first.request, decision: 'approve' });
    run.ask('c2', commandArgs('npm test'));
    assert.deepEqual(
      run.broker.pending().map((p) => p.callId),
      ['c2'],
    );
  });

  it('approves other waiting requests the new answer covers', async () => {
    const run = approvalRun({ memory: new ApprovalMemory() });
    const first = run.ask('c1', commandArgs('npm test'));
    const second = run.ask('c2', commandArgs('npm test src'));
    const third = run.ask('c3', commandArgs('npm run lint'));
    run.broker.answer({ ...first.request, decision: 'approve', scope: 'run' });
    assert.deepEqual(await second.outcome, { decision: 'approve', source: 'remembered' });
    assert.deepEqual(
      run.broker.pending().map((p) => p.callId),
      ['c3'],
    );
    assert.equal(third.request.callId, 'c3');
  });

  it('refuses a scope the request cannot have, and changes nothing', () => {
    const run = approvalRun({ memory: new ApprovalMemory() });
    const shell = run.ask('c1', commandArgs('npm test | tail'));
    const refused = run.broker.answer({ ...shell.request, decision: 'approve', scope: 'run' });
    assert.equal(refused.accepted, false);
    const plain = run.ask('c2', commandArgs('npm test'));
    assert.equal(run.broker.answer({ ...plain.request, decision: 'deny', scope: 'run' }).accepted, false);
    assert.equal(run.broker.answer({ ...plain.request, decision: 'approve', scope: 'workspace' }).accepted, false, 'no store: nothing for the workspace');
    assert.equal(run.broker.answer({ ...plain.request, decision: 'approve', scope: 'forever' as never }).accepted, false);
    assert.deepEqual(
      run.broker.pending().map((p) => p.callId),
      ['c1', 'c2'],
    );
    assert.equal(run.log.events.filter((e) => e.type === 'approval_refused').length, 4);
  });

  it('without a memory (untrusted workspace, or none given) nothing is offered or applied', () => {
    const run = approvalRun();
    const first = run.ask('c1', commandArgs('npm test'));
    assert.equal(first.request.remember, undefined);
    assert.equal(run.broker.answer({ ...first.request, decision: 'approve', scope: 'run' }).accepted, false);
  });

  it('"always allow in this workspace" stores the prefix; a new run reads it back and applies it', async () => {
    const store = memoryStore(undefined);
    const run = approvalRun({ memory: new ApprovalMemory({ store }) });
    const first = run.ask('c1', commandArgs('cargo build --release'));
    assert.equal(first.request.remember?.workspace, true);
    run.broker.answer({ ...first.request, decision: 'approve', scope: 'workspace' });
    await new Promise((done) => setImmediate(done));
    assert.deepEqual(store.value, [{ tool: 'run_command', prefix: ['cargo', 'build'] }]);

    const next = approvalRun({ memory: new ApprovalMemory({ store }) });
    const later = next.ask('c9', commandArgs('cargo build'));
    assert.deepEqual(await later.outcome, { decision: 'approve', source: 'remembered' });
    assert.equal(answers(next.log.events)[0].scope, 'workspace');
  });

  it('drops a malformed stored entry with a log line and applies the valid ones', async () => {
    const warnings: string[] = [];
    const logger: Logger = { trace() {}, debug() {}, info() {}, error() {}, warn: (message) => warnings.push(message) };
    const store = memoryStore([{ tool: 'run_command', prefix: ['npm', 'test\u0007'] }, { tool: 'run_command', prefix: ['make'] }, 42]);
    const run = approvalRun({ memory: new ApprovalMemory({ store, logger }) });
    const ok = run.ask('c1', commandArgs('make all'));
    assert.deepEqual(await ok.outcome, { decision: 'approve', source: 'remembered' });
    run.ask('c2', commandArgs('npm test'));
    assert.deepEqual(
      run.broker.pending().map((p) => p.callId),
      ['c2'],
    );
    assert.equal(warnings.length, 2, warnings.join('\n'));
    assert.ok(
      warnings.some((line) => /dropped a malformed entry 42/.test(line)),
      warnings.join('\n'),
    );
  });
});
