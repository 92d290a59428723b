import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { eventsOf, runAgainst } from '../support/agentHarness';
import { call, json, message, route, sequence, toolCalls, toolMessages } from '../support/scriptedReplies';
import { startScriptedServer, type ScriptedServer } from '../support/scriptedServer';

const commandPlan = json({ title: 'cmd', steps: ['Run the build command', 'Report the result'], dependencies: { '1': [0] } });

describe('agent run: policy and approvals', () => {
  let server: ScriptedServer;
  beforeEach(async () => {
    server = await startScriptedServer();
  });
  afterEach(async () => {
    await server.close();
  });

  it('run_command waits for approval; approving runs exactly the approved arguments', async () => {
    server.setHandler(
      route({
        planner: commandPlan,
        executor: (req) =>
          JSON.stringify(req.body.messages).includes('Report the result')
            ? message('reported')
            : toolMessages(req).length
              ? message('built')
              : toolCalls(call('run_command', { command: 'echo built > out.txt' })),
        aggregator: message('done'),
      }),
    );
    let seenHash = '';
    const { result, events, workspace } = await runAgainst(server, {
      onApproval: (request, broker) => {
        seenHash = request.argsHash;
        assert.equal(request.toolName, 'run_command');
        assert.equal(JSON.parse(request.argumentsJson).command, 'echo built > out.txt');
        // A stale answer (wrong hash) is ignored; the right one is accepted once.
        assert.equal(broker.answer({ requestId: request.requestId, callId: request.callId, argsHash: '0'.repeat(64), decision: 'approve' }).accepted, false);
        assert.equal(broker.answer({ requestId: request.requestId, callId: request.callId, argsHash: request.argsHash, decision: 'approve' }).accepted, true);
        assert.equal(broker.answer({ requestId: request.requestId, callId: request.callId, argsHash: request.argsHash, decision: 'approve' }).accepted, false);
      },
    });
    assert.equal(result.status, 'completed', result.error);
    assert.equal(readFileSync(join(workspace, 'out.txt'), 'utf8').trim(), 'built');
    const awaiting = eventsOf(events, 'tool_call_awaiting_approval');
    assert.equal(awaiting.length, 1);
    assert.equal(awaiting[0].approval.argsHash, seenHash);
    assert.equal(awaiting[0].approval.required, false);
  });

  it('an optional denial tells the model (with feedback) and the loop continues', async () => {
    const executor = sequence(toolCalls(call('run_command', { command: 'rm -rf build' })), (req) => {
      const [reply] = toolMessages(req);
      assert.match(reply.content, /denied/i);
      assert.match(reply.content, /use git clean instead/);
      return message('skipped the command as the user asked');
    });
    server.setHandler(route({ planner: json({ title: 'x', steps: ['Clean the build'], dependencies: {} }), executor, aggregator: message('done') }));
    const { result } = await runAgainst(server, {
      onApproval: (request, broker) => broker.answer({ requestId: request.requestId, callId: request.callId, argsHash: request.argsHash, decision: 'deny', feedback: 'use git clean instead' }),
    });
    server.assertNoRejections();
    assert.equal(result.status, 'completed', result.error);
    assert.equal(result.snapshot.steps[0].toolCalls[0].status, 'rejected');
  });

  it('a denied required gate blocks the step; what depends on it does not run', async () => {
    server.setHandler(route({ planner: commandPlan, executor: toolCalls(call('run_command', { command: 'make deploy' })), aggregator: message('blocked') }));
    const { result } = await runAgainst(server, {
      settings: { 'cortex.policy.tools': { run_command: 'confirm-required' } },
      onApproval: (request, broker) => {
        assert.equal(request.required, true);
        assert.equal(request.denyEffect, 'block');
        broker.answer({ requestId: request.requestId, callId: request.callId, argsHash: request.argsHash, decision: 'deny' });
      },
    });
    const [gate, report] = result.snapshot.steps;
    assert.equal(gate.status, 'blocked');
    assert.equal(gate.endReason, 'approval_denied');
    assert.equal(report.status, 'blocked');
    assert.equal(report.blockedBy, gate.id);
    assert.equal(server.requests.filter((r) => r.purpose === 'executor').length, 1, 'the dependent step never ran');
    assert.equal(result.status, 'failed');
  });

  it('Retry after a denied required gate asks again, and approving lets the run go on', async () => {
    server.setHandler(
      route({
        planner: commandPlan,
        executor: (req) =>
          JSON.stringify(req.body.messages).includes('Report the result') ? message('reported') : toolMessages(req).length ? message('deployed') : toolCalls(call('run_command', { command: 'echo deployed > deploy.txt' })),
        aggregator: message('done'),
      }),
    );
    let asked = 0;
    const { result, workspace } = await runAgainst(server, {
      holdDeniedGates: true,
      settings: { 'cortex.policy.tools': { run_command: 'confirm-required' } },
      onApproval: (request, broker, run) => {
        asked++;
        const decision = asked === 1 ? 'deny' : 'approve';
        broker.answer({ requestId: request.requestId, callId: request.callId, argsHash: request.argsHash, decision });
        if (asked === 1) setTimeout(() => assert.equal(run.retryStep(request.stepId).accepted, true), 50);
      },
    });
    assert.equal(asked, 2);
    assert.equal(result.status, 'completed', result.error);
    assert.equal(existsSync(join(workspace, 'deploy.txt')), true);
  });

  it('in an untrusted workspace writes are denied by policy and nothing is written', async () => {
    const executor = sequence(toolCalls(call('write_file', { path: 'x.txt', content: 'x' })), (req) => {
      assert.match(toolMessages(req)[0].content, /denied by policy|not available|untrusted/i);
      return message('could not write');
    });
    server.setHandler(route({ planner: json({ title: 'x', steps: ['Write x.txt'], dependencies: {} }), executor, 'tool-name-repair': json({ repairs: [{ tool_call_id: 'none', name: 'write_file' }] }), aggregator: message('done') }));
    const { workspace } = await runAgainst(server, { trusted: false });
    server.assertNoRejections();
    assert.equal(existsSync(join(workspace, 'x.txt')), false);
  });
});
