import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AgentRun, type RunResult } from '../../src/core/agent/agentRun';
import { parseConfig, type FlatConfig } from '../../src/core/config/configSchema';
import { pendingApprovals } from '../../src/core/plan/approvalState';
import { EventLog } from '../../src/core/plan/eventLog';
import type { RunEvent } from '../../src/core/plan/events';
import { ApprovalBroker } from '../../src/core/policy/approvalBroker';
import { openResume, prepareResumedRun } from '../../src/core/agent/resumeRun';
import { createTraceWriter } from '../../src/core/trace/traceWriter';
import { readTraceSync } from '../support/traceFile';
import { eventsOf, runUntil, tempWorkspace } from '../support/agentHarness';
import { call, json, message, route, toolCalls, toolMessages } from '../support/scriptedReplies';
import { startScriptedServer, type ScriptedServer } from '../support/scriptedServer';

// Resuming in-process, where the moment of the interruption can be chosen exactly: the events a
// run had recorded at that moment are written out as its trace (what a killed process leaves),
// and the run is resumed from that file (docs/design.md, “Resuming a run”).

function settings(server: ScriptedServer): FlatConfig {
  return parseConfig({ 'cortex.llm.baseUrl': server.baseUrl, 'cortex.llm.model': 'test-model', 'cortex.llm.maxRetries': 0 });
}

/** Starts a run and returns the events it had recorded once `stop(event)` is true; the run is then cancelled and its later events dropped. */
async function interruptWhen(server: ScriptedServer, workspace: string, stop: (event: RunEvent) => boolean): Promise<RunEvent[]> {
  const log = new EventLog();
  const agent = new AgentRun({
    task: 'resume test',
    workspaceRoot: workspace,
    config: settings(server),
    apiKey: 'k',
    log,
    approvals: new ApprovalBroker(),
    trusted: true,
  });
  const recorded = await runUntil(agent, log, stop);
  assert.ok(recorded, 'the run reached the moment of the interruption');
  return recorded;
}

/** Writes `events` as a trace and resumes it; `approve` answers every approval request. */
async function resumeFrom(server: ScriptedServer, workspace: string, events: RunEvent[]): Promise<{ result: RunResult; events: RunEvent[]; log: EventLog }> {
  const trace = join(mkdtempSync(join(tmpdir(), 'cortex-resume-run-')), 'run.jsonl');
  writeFileSync(trace, events.map((event) => `${JSON.stringify(event)}\n`).join(''));
  const opened = await openResume({ traceFile: trace, workspaceRoot: workspace });
  const log = new EventLog({ history: opened.events });
  const writer = createTraceWriter(trace, { append: true });
  log.subscribe(writer.listener);
  const approvals = new ApprovalBroker();
  approvals.onDidChange((pending) => {
    for (const request of pending)
      approvals.answer({ requestId: request.requestId, callId: request.callId, argsHash: request.argsHash, decision: 'approve', source: 'test' });
  });
  try {
    const resumed = await prepareResumedRun(opened, log, { config: settings(server), apiKey: 'k', approvals, trusted: true });
    const result = await resumed.run();
    await writer.close();
    assert.deepEqual(readTraceSync(trace).events, JSON.parse(JSON.stringify(log.events)), "the trace file holds exactly the run's events");
    return { result, events: log.events, log };
  } finally {
    await opened.lock.release();
  }
}

describe('resuming an agent run', () => {
  let server: ScriptedServer;
  afterEach(async () => {
    await server?.close();
  });

  it('a call that was awaiting approval is asked again after the resume, and runs once approved', async () => {
    server = await startScriptedServer(
      route({
        planner: json({ title: 'cmd', steps: ['Create marker with a command'], dependencies: {} }),
        executor: (req) => (toolMessages(req).length ? message('marker made') : toolCalls(call('run_command', { command: 'touch marker' }))),
        aggregator: message('done'),
      }),
    );
    const workspace = tempWorkspace();
    const recorded = await interruptWhen(server, workspace, (event) => event.type === 'tool_call_awaiting_approval');
    const asked = recorded.at(-1) as Extract<RunEvent, { type: 'tool_call_awaiting_approval' }>;
    assert.equal(existsSync(join(workspace, 'marker')), false);

    const { result, events, log } = await resumeFrom(server, workspace, recorded);
    assert.equal(result.status, 'completed', result.error);
    const after = events.slice(recorded.length);
    assert.equal(after[0].type, 'run_resumed');
    assert.deepEqual(after[0].restartedStepIds, ['s1']);
    const askedAgain = eventsOf(after, 'tool_call_awaiting_approval');
    assert.equal(askedAgain.length, 1);
    assert.notEqual(askedAgain[0].approval.requestId, asked.approval.requestId, 'a new request');
    assert.equal(eventsOf(after, 'approval_answered')[0].requestId, askedAgain[0].approval.requestId);
    assert.equal(existsSync(join(workspace, 'marker')), true, 'the approved command ran');
    assert.deepEqual(pendingApprovals(log.state), []);
    const step = result.snapshot.steps[0];
    assert.equal(step.toolCalls.length, 1, "only the new attempt's call is on the step");
    assert.equal(step.toolCalls[0].status, 'success');
    assert.ok(
      step.audits.some((audit) => audit.kind === 'restarted_on_resume'),
      'the earlier attempt is kept in an audit',
    );
  });

  it('a replan that was under way is made on resume; replan counters, usage and replaced steps are kept', async () => {
    let phase: 'first' | 'resumed' = 'first';
    server = await startScriptedServer(
      route({
        planner: json({ title: 'plan', steps: ['Read the missing file', 'Report'], dependencies: { '1': [0] } }),
        executor: (req) => {
          if (req.stepId === 's1') return toolMessages(req).length ? message('could not') : toolCalls(call('read_file', { path: 'missing.txt' }));
          return message('reported');
        },
        replanner: () =>
          phase === 'first'
            ? { kind: 'hang' }
            : json({ action: 'redesign', reason: 'write it first', new_steps: ['Write the file instead', 'Report'], new_dependencies: { '1': [0] } }),
        aggregator: message('done'),
      }),
    );
    const workspace = tempWorkspace();
    const recorded = await interruptWhen(
      server,
      workspace,
      (event) => event.type === 'step_status_changed' && event.stepId === 's1' && event.status === 'failed',
    );
    const usageBefore = recorded.filter((e) => e.type === 'llm_request').length;
    assert.ok(usageBefore >= 2);
    phase = 'resumed';
    const replannerCalls = () => server.chatRequests().filter((r) => r.purpose === 'replanner').length;
    const before = replannerCalls();

    const { result, events } = await resumeFrom(server, workspace, recorded);
    assert.equal(result.status, 'completed', result.error);
    assert.equal(replannerCalls() - before, 1, 'the replan was asked for again');
    const resumed = events.find((e) => e.type === 'run_resumed') as Extract<RunEvent, { type: 'run_resumed' }>;
    assert.deepEqual(resumed.restartedStepIds, []);
    const replaced = eventsOf(events, 'subgraph_replaced');
    assert.equal(replaced.length, 1);
    assert.deepEqual(replaced[0].replan.replacedStepIds, ['s1', 's2']);
    assert.deepEqual(replaced[0].replan.newStepIds, ['s3', 's4'], 'new ids continue after the recorded ones');
    assert.deepEqual(
      result.snapshot.steps.map((s) => [s.id, s.replanAttempts, s.status]),
      [
        ['s3', 1, 'completed'],
        ['s4', 1, 'completed'],
      ],
    );
    assert.deepEqual(
      result.snapshot.replacedSteps.map((s) => s.id),
      ['s1', 's2'],
    );
    const requests = eventsOf(events, 'llm_request');
    const total = requests.reduce((sum, e) => sum + (e.usage?.promptTokens ?? 0) + (e.usage?.completionTokens ?? 0), 0);
    assert.equal(result.snapshot.usage.promptTokens + result.snapshot.usage.completionTokens, total, 'the usage counts the interrupted run too');
  });
});
