import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { ApprovalMemory } from '../../src/core/policy/approvalMemory';
import { eventsOf, runAgainst } from '../support/agentHarness';
import { call, json, message, route, sequence, toolCalls } from '../support/scriptedReplies';
import { useScriptedServer } from '../support/useScriptedServer';

// "Approve for this run" through a real run (docs/design.md, “Remembered approvals”): the real
// client against the scripted server, the real policy, broker and commands. One answer for the
// run lets a later command with the same prefix run unasked; added shell syntax and a protected
// file are still asked.

describe('agent run: remembered approvals', () => {
  const server = useScriptedServer();

  it('after "approve for this run" a same-prefix command runs unasked; shell syntax and a protected file still ask', async () => {
    const executor = sequence(
      toolCalls(call('run_command', { command: 'touch one.txt' })),
      toolCalls(call('run_command', { command: 'touch two.txt' })),
      toolCalls(call('run_command', { command: 'touch three.txt && touch four.txt' })),
      toolCalls(call('run_command', { command: 'touch .env' })),
      message('created one.txt and two.txt'),
    );
    server().setHandler(route({ planner: json({ title: 'files', steps: ['Create the files'], dependencies: {} }), executor, aggregator: message('done') }));
    const asked: string[] = [];
    const { result, events, workspace } = await runAgainst(server(), {
      memory: new ApprovalMemory(),
      onApproval: (request, broker) => {
        const command = JSON.parse(request.argumentsJson).command as string;
        asked.push(command);
        const scope = command === 'touch one.txt' ? 'run' : 'call';
        const decision = command === 'touch one.txt' ? 'approve' : 'deny';
        assert.deepEqual(broker.answer({ ...request, decision, scope, source: 'test' }), { accepted: true });
      },
    });
    server().assertNoRejections();
    assert.equal(result.status, 'completed', result.error);
    assert.deepEqual(asked, ['touch one.txt', 'touch three.txt && touch four.txt', 'touch .env']);
    assert.equal(existsSync(join(workspace, 'one.txt')), true);
    assert.equal(existsSync(join(workspace, 'two.txt')), true, 'the same-prefix command ran unasked');
    for (const name of ['three.txt', 'four.txt', '.env']) assert.equal(existsSync(join(workspace, name)), false, name);

    // The trace says why the second command ran: a remembered answer, and which one.
    const answered = eventsOf(events, 'approval_answered').map((e) => [e.source, e.decision, e.scope, e.remembered]);
    const rule = { tool: 'run_command', prefix: ['touch'] };
    assert.deepEqual(answered, [
      ['test', 'approve', 'run', rule],
      ['remembered', 'approve', 'run', rule],
      ['test', 'deny', undefined, undefined],
      ['test', 'deny', undefined, undefined],
    ]);
    const offers = eventsOf(events, 'tool_call_awaiting_approval').map((e) => e.approval.remember);
    assert.deepEqual(
      offers,
      [{ rule, workspace: false }, { rule, workspace: false }, undefined, undefined],
      'shell syntax and a protected file offer nothing to remember',
    );
    const calls = result.snapshot.steps[0].toolCalls;
    assert.equal(calls[1].approval?.answeredBy, 'remembered');
    assert.equal(calls[1].status, 'success');
  });
});
