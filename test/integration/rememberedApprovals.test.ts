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

  it('a file tool remembers its folder: a write below it runs unasked; another folder and a protected file still ask', async () => {
    const executor = sequence(
      toolCalls(call('write_file', { path: 'src/a.ts', content: 'a' })),
      toolCalls(call('write_file', { path: 'src/deep/b.ts', content: 'b' })),
      toolCalls(call('write_file', { path: 'lib/c.ts', content: 'c' })),
      toolCalls(call('write_file', { path: 'src/generated/d.ts', content: 'd' })),
      message('wrote src/a.ts and src/deep/b.ts'),
    );
    server().setHandler(route({ planner: json({ title: 'files', steps: ['Write the files'], dependencies: {} }), executor, aggregator: message('done') }));
    const asked: string[] = [];
    const { result, events, workspace } = await runAgainst(server(), {
      memory: new ApprovalMemory(),
      settings: { 'cortex.policy.tools': { write_file: 'confirm' }, 'cortex.policy.protectedPaths': { write: ['src/generated/**'], read: [] } },
      onApproval: (request, broker) => {
        const path = JSON.parse(request.argumentsJson).path as string;
        asked.push(path);
        const first = path === 'src/a.ts';
        assert.deepEqual(broker.answer({ ...request, decision: first ? 'approve' : 'deny', scope: first ? 'run' : 'call' }), { accepted: true });
      },
    });
    server().assertNoRejections();
    assert.equal(result.status, 'completed', result.error);
    assert.deepEqual(asked, ['src/a.ts', 'lib/c.ts', 'src/generated/d.ts']);
    assert.equal(existsSync(join(workspace, 'src', 'deep', 'b.ts')), true, 'the write below the folder ran unasked');
    for (const path of ['lib/c.ts', 'src/generated/d.ts']) assert.equal(existsSync(join(workspace, path)), false, path);
    assert.deepEqual(
      eventsOf(events, 'approval_answered').map((e) => [e.source ?? null, e.remembered ?? null]),
      [
        [null, { tool: 'write_file', folder: 'src' }],
        ['remembered', { tool: 'write_file', folder: 'src' }],
        [null, null],
        [null, null],
      ],
    );
  });

  it('a confirm-required gate offers nothing to remember, and an answer "for this run" to it is refused', async () => {
    const executor = sequence(toolCalls(call('run_command', { command: 'touch gate.txt' })), message('ran it'));
    server().setHandler(route({ planner: json({ title: 'gate', steps: ['Run the gate'], dependencies: {} }), executor, aggregator: message('done') }));
    const { result, events, workspace } = await runAgainst(server(), {
      memory: new ApprovalMemory(),
      settings: { 'cortex.policy.tools': { run_command: 'confirm-required' } },
      onApproval: (request, broker) => {
        assert.equal(request.remember, undefined);
        assert.equal(broker.answer({ ...request, decision: 'approve', scope: 'run' }).accepted, false);
        assert.equal(broker.answer({ ...request, decision: 'approve' }).accepted, true);
      },
    });
    assert.equal(result.status, 'completed', result.error);
    assert.equal(existsSync(join(workspace, 'gate.txt')), true);
    assert.deepEqual(
      eventsOf(events, 'approval_refused').map((e) => e.reason),
      ['malformed'],
    );
  });
});
