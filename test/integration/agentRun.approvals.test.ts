import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pendingApprovals } from '../../src/core/plan/approvalState';
import { foldEvents } from '../../src/core/plan/reducer';
import { toSnapshot } from '../../src/core/plan/snapshot';
import { readTraceSync } from '../support/traceFile';
import { createTraceWriter } from '../../src/core/trace/traceWriter';
import { eventsOf, runAgainst, tempWorkspace } from '../support/agentHarness';
import { call, json, message, route, sequence, toolCalls, toolMessages } from '../support/scriptedReplies';
import { useScriptedServer } from '../support/useScriptedServer';

const commandPlan = json({ title: 'cmd', steps: ['Run the build command', 'Report the result'], dependencies: { '1': [0] } });

describe('agent run: policy and approvals', () => {
  const server = useScriptedServer();

  it('run_command waits for approval; approving runs exactly the approved arguments', async () => {
    server().setHandler(
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
    const { result, events, workspace } = await runAgainst(server(), {
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
    // The trace tells the whole story: the stale answer refused with its reason, the answer, the late double click.
    const lifecycle = events.filter((e) => e.type.startsWith('approval_') || e.type === 'tool_call_awaiting_approval' || e.type === 'tool_call_completed');
    assert.deepEqual(
      lifecycle.map((e) => (e.type === 'approval_refused' ? `${e.type}:${e.reason}` : e.type)),
      ['tool_call_awaiting_approval', 'approval_refused:stale_hash', 'approval_answered', 'approval_refused:already_answered', 'tool_call_completed'],
    );
    const stale = eventsOf(events, 'approval_refused')[0];
    assert.equal(stale.requestId, awaiting[0].approval.requestId);
    assert.equal(stale.message, 'stale answer: the arguments differ from the ones awaiting approval');
    assert.equal(result.snapshot.steps[0].toolCalls[0].approval?.state, 'approved');
  });

  it('cancelling the run withdraws the pending approval: recorded, and the call never gets a result', async () => {
    server().setHandler(
      route({ planner: commandPlan, executor: toolCalls(call('run_command', { command: 'echo never > never.txt' })), aggregator: message('unused') }),
    );
    const { result, events, workspace, log } = await runAgainst(server(), {
      onApproval: (_request, _broker, run) => setTimeout(() => run.cancel('cancelled by the user'), 20),
    });
    assert.equal(result.status, 'cancelled');
    assert.equal(existsSync(join(workspace, 'never.txt')), false);
    const [withdrawn] = eventsOf(events, 'approval_withdrawn');
    assert.equal(withdrawn.reason, 'run_cancelled');
    assert.equal(withdrawn.message, 'cancelled by the user');
    assert.equal(withdrawn.requestId, eventsOf(events, 'tool_call_awaiting_approval')[0].approval.requestId);
    const callRecord = result.snapshot.steps[0].toolCalls[0];
    assert.equal(callRecord.status, 'awaiting_approval', 'it never ran and gets no made-up result');
    assert.equal(callRecord.approval?.state, 'withdrawn');
    assert.equal(callRecord.approval?.withdrawnBecause, 'run_cancelled');
    assert.deepEqual(pendingApprovals(log.state), [], 'nothing is left to answer');
    assert.ok(events.indexOf(withdrawn) < events.findIndex((e) => e.type === 'run_finished'));
  });

  it('an optional denial tells the model (with feedback) and the loop continues', async () => {
    const executor = sequence(toolCalls(call('run_command', { command: 'rm -rf build' })), (req) => {
      const [reply] = toolMessages(req);
      assert.match(reply.content, /denied/i);
      assert.match(reply.content, /use git clean instead/);
      return message('skipped the command as the user asked');
    });
    server().setHandler(route({ planner: json({ title: 'x', steps: ['Clean the build'], dependencies: {} }), executor, aggregator: message('done') }));
    const { result } = await runAgainst(server(), {
      onApproval: (request, broker) =>
        broker.answer({
          requestId: request.requestId,
          callId: request.callId,
          argsHash: request.argsHash,
          decision: 'deny',
          feedback: 'use git clean instead',
        }),
    });
    server().assertNoRejections();
    assert.equal(result.status, 'completed', result.error);
    assert.equal(result.snapshot.steps[0].toolCalls[0].status, 'rejected');
  });

  it('a denied required gate blocks the step; what depends on it does not run', async () => {
    server().setHandler(route({ planner: commandPlan, executor: toolCalls(call('run_command', { command: 'make deploy' })), aggregator: message('blocked') }));
    const { result } = await runAgainst(server(), {
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
    assert.equal(server().requests.filter((r) => r.purpose === 'executor').length, 1, 'the dependent step never ran');
    assert.equal(result.status, 'failed');
  });

  it('Retry after a denied required gate asks again, and approving lets the run go on', async () => {
    server().setHandler(
      route({
        planner: commandPlan,
        executor: (req) =>
          JSON.stringify(req.body.messages).includes('Report the result')
            ? message('reported')
            : toolMessages(req).length
              ? message('deployed')
              : toolCalls(call('run_command', { command: 'echo deployed > deploy.txt' })),
        aggregator: message('done'),
      }),
    );
    let asked = 0;
    const { result, workspace } = await runAgainst(server(), {
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
    const gate = result.snapshot.steps[0].toolCalls[0];
    assert.deepEqual(
      [...(gate.earlierApprovals ?? []), gate.approval].map((a) => a?.state),
      ['denied', 'approved'],
      'both requests of the retried gate are kept',
    );
  });

  it('replaying the trace file reproduces every approval state of the run exactly', async () => {
    server().setHandler(
      route({
        planner: json({ title: 'two', steps: ['Deploy', 'Clean'], dependencies: { '1': [0] } }),
        executor: (req) => {
          const deploy = /Your step:\nDeploy/.test(JSON.stringify(req.body.messages).replace(/\\n/g, '\n'));
          if (toolMessages(req).length) return message('done');
          return toolCalls(call('run_command', { command: deploy ? 'echo deployed > deploy.txt' : 'echo cleaned > clean.txt' }));
        },
        aggregator: message('done'),
      }),
    );
    const traceFile = join(tempWorkspace('cortex-trace-'), 'run.jsonl');
    let writer: ReturnType<typeof createTraceWriter> | undefined;
    let deployAsked = 0;
    const { result, log } = await runAgainst(server(), {
      holdDeniedGates: true,
      settings: { 'cortex.policy.tools': { run_command: 'confirm-required' }, 'cortex.execution.maxParallelSteps': 1 },
      onStart: (_run, runLog) => {
        writer = createTraceWriter(traceFile);
        runLog.subscribe(writer.listener);
      },
      onApproval: (request, broker, run) => {
        const deploy = request.argumentsJson.includes('deploy');
        if (deploy && ++deployAsked === 1) {
          broker.answer({ ...request, decision: 'deny', feedback: 'not yet', source: 'panel' });
          setTimeout(() => run.retryStep(request.stepId), 20);
          return;
        }
        broker.answer({ ...request, argsHash: 'f'.repeat(64), decision: 'approve', source: 'panel' });
        // The clean step's request is left open until the run is cancelled.
        if (deploy) broker.answer({ ...request, decision: 'approve', source: 'notification' });
        else setTimeout(() => run.cancel('cancelled by the user'), 20);
      },
    });
    await writer!.close();
    assert.equal(result.status, 'cancelled');
    const replayed = foldEvents(readTraceSync(traceFile).events);
    const states = (state: typeof log.state) =>
      [...state.steps.values()].flatMap((step) => step.toolCalls.flatMap((c) => [...(c.earlierApprovals ?? []), ...(c.approval ? [c.approval] : [])]));
    assert.deepEqual(states(replayed), states(log.state));
    assert.deepEqual(
      states(replayed).map((a) => [a.state, a.answeredBy, a.feedback]),
      [
        ['denied', 'panel', 'not yet'],
        ['approved', 'notification', undefined],
        ['withdrawn', undefined, undefined],
      ],
    );
    assert.deepEqual(toSnapshot(replayed).steps, toSnapshot(log.state).steps);
  });

  it('in an untrusted workspace writes are denied by policy and nothing is written', async () => {
    const executor = sequence(toolCalls(call('write_file', { path: 'x.txt', content: 'x' })), (req) => {
      assert.match(toolMessages(req)[0].content, /denied by policy|not available|untrusted/i);
      return message('could not write');
    });
    server().setHandler(
      route({
        planner: json({ title: 'x', steps: ['Write x.txt'], dependencies: {} }),
        executor,
        'tool-name-repair': json({ repairs: [{ tool_call_id: 'none', name: 'write_file' }] }),
        aggregator: message('done'),
      }),
    );
    const { workspace } = await runAgainst(server(), { trusted: false });
    server().assertNoRejections();
    assert.equal(existsSync(join(workspace, 'x.txt')), false);
  });
});
