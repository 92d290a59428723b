import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AgentRun } from '../../src/core/agent/agentRun';
import { parseConfig, type FlatConfig } from '../../src/core/config/configSchema';
import { EventLog } from '../../src/core/plan/eventLog';
import type { RunEvent } from '../../src/core/plan/events';
import { ApprovalBroker } from '../../src/core/policy/approvalBroker';
import { openResume, prepareResumedRun } from '../../src/core/agent/resumeRun';
import { eventsOf, tempWorkspace } from '../support/agentHarness';
import { call, json, message, route, toolCalls, toolMessages } from '../support/scriptedReplies';
import { startScriptedServer, type ScriptedServer } from '../support/scriptedServer';

// A resumed run checks the postconditions its plan declared before the interruption: they come
// back from the trace's step_added events (docs/design.md, “The trace format”, “Resuming a run”).

const settings = (server: ScriptedServer): FlatConfig =>
  parseConfig({ 'cortex.llm.baseUrl': server.baseUrl, 'cortex.llm.model': 'test-model', 'cortex.llm.maxRetries': 0, 'cortex.replan.maxAttempts': 0 });

describe('resuming a run whose steps declared postconditions', () => {
  let server: ScriptedServer;
  afterEach(async () => {
    await server?.close();
  });

  it('the restarted step is checked against the expects recorded before the interruption', async () => {
    server = await startScriptedServer(
      route({
        planner: json({ title: 'Hello', steps: [{ description: 'Write a.txt saying hello', expects: [{ contains: 'a.txt', text: 'hello' }] }] }),
        executor: (req) => (toolMessages(req).length ? message('I wrote a.txt.') : toolCalls(call('write_file', { path: 'a.txt', content: 'helo\n' }))),
        aggregator: message('done'),
      }),
    );
    const workspace = tempWorkspace();
    // The first process dies as the step starts.
    const log = new EventLog();
    const agent = new AgentRun({
      task: 'say hello',
      workspaceRoot: workspace,
      config: settings(server),
      apiKey: 'k',
      log,
      approvals: new ApprovalBroker(),
      trusted: true,
    });
    let recorded: RunEvent[] | undefined;
    log.subscribe((event) => {
      if (recorded || event.type !== 'step_status_changed' || event.status !== 'in_progress') return;
      recorded = [...log.events];
      agent.cancel('the process died');
    });
    await agent.start();
    assert.ok(recorded);
    const trace = join(mkdtempSync(join(tmpdir(), 'cortex-verify-resume-')), 'run.jsonl');
    writeFileSync(trace, recorded.map((event) => `${JSON.stringify(event)}\n`).join(''));

    const opened = await openResume({ traceFile: trace, workspaceRoot: workspace });
    const resumedLog = new EventLog({ history: opened.events });
    try {
      const resumed = await prepareResumedRun(opened, resumedLog, { config: settings(server), apiKey: 'k', approvals: new ApprovalBroker(), trusted: true });
      const result = await resumed.run();
      assert.equal(result.status, 'failed');
    } finally {
      await opened.lock.release();
    }
    const [verdict] = eventsOf(resumedLog.events, 'step_verified');
    assert.equal(verdict.verdict, 'failed');
    assert.equal(verdict.checks?.[0].check, 'a.txt contains "hello"');
    assert.equal(verdict.checks?.[0].passed, false);
    assert.equal(eventsOf(resumedLog.events, 'step_status_changed').find((e) => e.status === 'failed')?.reason, 'postcondition_failed');
  });
});
