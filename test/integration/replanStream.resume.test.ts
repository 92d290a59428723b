import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AgentRun } from '../../src/core/agent/agentRun';
import { openResume, prepareResumedRun } from '../../src/core/agent/resumeRun';
import { parseConfig, type FlatConfig } from '../../src/core/config/configSchema';
import { EventLog } from '../../src/core/plan/eventLog';
import { ApprovalBroker } from '../../src/core/policy/approvalBroker';
import { byStep, call, json, message, route, sequence, toolCalls } from '../support/scriptedReplies';
import { startScriptedServer, type ScriptedServer } from '../support/scriptedServer';
import { eventsOf, runUntil } from '../support/agentHarness';

// A run stopped while a redesign was still streaming (docs/design.md, “The replanner” and
// “Resuming a run”): the rest of the reply is lost with the process, so the resumed run takes the
// redesign's steps out of the plan (reverting what they changed) and replans the failed step again.

const settings = (server: ScriptedServer): FlatConfig =>
  parseConfig({ 'cortex.llm.baseUrl': server.baseUrl, 'cortex.llm.model': 'test-model', 'cortex.llm.maxRetries': 0 });

describe('resuming a run stopped while a redesign streamed', () => {
  let server: ScriptedServer;
  afterEach(async () => {
    await server?.close();
  });

  it('discards the streamed redesign, reverts its steps and replans the failed step again', async function () {
    this.timeout(60_000);
    const base = realpathSync(mkdtempSync(join(tmpdir(), 'cortex-replanstream-resume-')));
    const workspace = join(base, 'ws');
    const checkpoints = join(base, 'checkpoints');
    const trace = join(base, 'run.jsonl');
    mkdirSync(workspace);
    const first = {
      action: 'redesign',
      new_steps: [
        { description: 'Write greeting.txt with write_file', dependsOn: [], uses: [], expects: [{ changed: 'greeting.txt' }] },
        ...Array.from({ length: 6 }, (_, i) => ({ description: `Later step ${i} that never arrives whole`, dependsOn: [0], uses: [] })),
      ],
    };
    server = await startScriptedServer(
      route({
        planner: json({ title: 'Greeting', steps: [{ description: 'Create the greeting file', dependsOn: [], expects: [{ changed: 'greeting.txt' }] }] }),
        replanner: sequence(
          json(first, { fragmentSize: 5, chunkDelayMs: 25 }),
          json({
            action: 'redesign',
            new_steps: [{ description: 'Write the greeting again', dependsOn: [], uses: [], expects: [{ changed: 'greeting.txt' }] }],
          }),
        ),
        executor: byStep({
          'Create the greeting file': [message('I created greeting.txt.')],
          'Write greeting.txt with write_file': [toolCalls(call('write_file', { path: 'greeting.txt', content: 'first\n' })), message('wrote it')],
          'Write the greeting again': [
            toolCalls(call('write_file', { path: 'other.txt', content: 'x\n' })),
            toolCalls(call('write_file', { path: 'greeting.txt', content: 'second\n' })),
            message('wrote it'),
          ],
          'Later step': [message('done')],
        }),
        aggregator: message('Done.'),
      }),
    );

    // The first process: stopped as soon as the first redesigned step changed a file, the reply still streaming.
    const log = new EventLog();
    const agent = new AgentRun({
      task: 'greet',
      workspaceRoot: workspace,
      config: settings(server),
      log,
      approvals: new ApprovalBroker(),
      trusted: true,
      checkpointsDir: checkpoints,
    });
    const recorded = await runUntil(agent, log, (event) => event.type === 'files_changed' && event.stepId === 's2');
    assert.ok(recorded, 'the first redesigned step changed a file before the reply ended');
    assert.equal(recorded.filter((e) => e.type === 'llm_request' && e.purpose === 'replanner').length, 0, 'the reply was still streaming');
    assert.equal(readFileSync(join(workspace, 'greeting.txt'), 'utf8'), 'first\n');
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
      const after = resumedLog.events.filter((e) => e.seq > recorded.at(-1)!.seq);
      const discarded = eventsOf(after, 'plan_discarded');
      assert.equal(discarded.length, 1);
      assert.match(discarded[0].reason, /stopped before the redesign of s1 had finished streaming/);
      assert.equal(discarded[0].stepIds[0], 's2');
      const reverted = eventsOf(after, 'files_reverted');
      assert.deepEqual(
        reverted.map((e) => [e.reason, e.stepIds]),
        [['plan_discarded', ['s2']]],
      );
      // Replanned from the start of the lineage's budget: the lost reply was no attempt.
      const replaced = eventsOf(after, 'subgraph_replaced');
      assert.deepEqual(
        replaced.map((e) => [e.replan.failedStepId, e.replan.attempt]),
        [['s1', 1]],
      );
      assert.deepEqual(
        result.snapshot.steps.map((s) => [s.description, s.status]),
        [['Write the greeting again', 'completed']],
      );
      assert.equal(readFileSync(join(workspace, 'greeting.txt'), 'utf8'), 'second\n');
      assert.equal(existsSync(join(workspace, 'other.txt')), true);
    } finally {
      await opened.lock.release();
    }
  });
});
