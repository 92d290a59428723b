import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AgentRun } from '../../src/core/agent/agentRun';
import { openResume, prepareResumedRun } from '../../src/core/agent/resumeRun';
import { parseConfig, type FlatConfig } from '../../src/core/config/configSchema';
import { EventLog } from '../../src/core/plan/eventLog';
import type { EventOf } from '../../src/core/plan/events';
import { ApprovalBroker } from '../../src/core/policy/approvalBroker';
import { byStep, call, json, message, route, sequence, toolCalls } from '../support/scriptedReplies';
import { startScriptedServer, type ScriptedServer } from '../support/scriptedServer';
import { runUntil } from '../support/agentHarness';

// A run stopped while its plan was still streaming (docs/design.md, “The planner” and “Resuming a
// run”): the rest of the plan is lost with the process, so the resumed run takes the steps it had
// out of the plan (reverting what they changed) and plans again, instead of finishing a half plan.

const settings = (server: ScriptedServer): FlatConfig =>
  parseConfig({ 'cortex.llm.baseUrl': server.baseUrl, 'cortex.llm.model': 'test-model', 'cortex.llm.maxRetries': 0 });

describe('resuming a run stopped while its plan streamed', () => {
  let server: ScriptedServer;
  afterEach(async () => {
    await server?.close();
  });

  it('discards the partial plan, reverts its steps and plans again', async function () {
    this.timeout(60_000);
    const base = realpathSync(mkdtempSync(join(tmpdir(), 'cortex-planstream-resume-')));
    const workspace = join(base, 'ws');
    const checkpoints = join(base, 'checkpoints');
    const trace = join(base, 'run.jsonl');
    mkdirSync(workspace);
    writeFileSync(join(workspace, 'notes.txt'), 'before\n');
    const first = {
      title: 'Long plan',
      steps: [
        { description: 'Rewrite notes.txt', dependsOn: [], expects: [{ changed: 'notes.txt' }] },
        ...Array.from({ length: 6 }, (_, i) => ({ description: `Later step ${i} that never arrives whole`, dependsOn: [0] })),
      ],
    };
    server = await startScriptedServer(
      route({
        planner: sequence(
          json(first, { fragmentSize: 5, chunkDelayMs: 25 }),
          message(JSON.stringify({ title: 'Short plan', steps: [{ description: 'Say hello', dependsOn: [], expects: [] }] })),
        ),
        executor: byStep({
          'Rewrite notes.txt': [toolCalls(call('write_file', { path: 'notes.txt', content: 'after\n' })), message('rewrote notes.txt')],
          'Say hello': [message('hello')],
        }),
        aggregator: message('Done.'),
      }),
    );

    // The first process: stopped as soon as its first step completed, the plan still streaming.
    const log = new EventLog();
    const agent = new AgentRun({
      task: 'plan test',
      workspaceRoot: workspace,
      config: settings(server),
      log,
      approvals: new ApprovalBroker(),
      trusted: true,
      checkpointsDir: checkpoints,
    });
    const recorded = await runUntil(agent, log, (event) => event.type === 'files_changed');
    assert.ok(recorded, 'the first step changed notes.txt before the plan ended');
    assert.equal(log.state.planPartial, true);
    assert.equal(readFileSync(join(workspace, 'notes.txt'), 'utf8'), 'after\n');
    writeFileSync(trace, recorded.map((event) => `${JSON.stringify(event)}\n`).join(''));

    // The resumed process.
    const opened = await openResume({ traceFile: trace, workspaceRoot: workspace });
    try {
      const resumedLog = new EventLog({ history: opened.events });
      const resumed = await prepareResumedRun(opened, resumedLog, {
        config: settings(server),
        approvals: new ApprovalBroker(),
        trusted: true,
        checkpointsDir: checkpoints,
      });
      const result = await resumed.run();
      assert.equal(result.status, 'completed', result.error);
      const discarded = resumedLog.events.filter((e): e is EventOf<'plan_discarded'> => e.type === 'plan_discarded');
      assert.equal(discarded.length, 1);
      assert.match(discarded[0].reason, /stopped before the plan had finished streaming/);
      assert.ok(discarded[0].stepIds.includes('s1'));
      assert.deepEqual(
        result.snapshot.steps.map((s) => [s.description, s.status]),
        [['Say hello', 'completed']],
      );
      assert.equal(readFileSync(join(workspace, 'notes.txt'), 'utf8'), 'before\n');
      assert.equal(resumedLog.state.planPartial, undefined);
    } finally {
      await opened.lock.release();
    }
  });
});
