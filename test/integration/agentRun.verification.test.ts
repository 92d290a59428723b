import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { eventsOf, runAgainst } from '../support/agentHarness';
import { byStep, call, json, message, route, toolCalls } from '../support/scriptedReplies';
import { type ScriptedRequest } from '../support/scriptedServer';
import { useScriptedServer } from '../support/useScriptedServer';

/** A write whose arguments are cut off mid-JSON by the token limit (finish_reason "length"). */
const cutOffWrite = {
  kind: 'message' as const,
  toolCalls: [{ name: 'write_file', arguments: '{"path":"api.py","content":"def handler():\\n  ret' }],
  finishReason: 'length',
};

describe('agent run: verification and subgraph replanning (docs/design.md, “The verifier and how a step ends”, docs/design.md, “The replanner”)', () => {
  const server = useScriptedServer();

  it('a cut-off write stays pending, fails verification, and its subgraph is redesigned while completed work is kept', async () => {
    const replannerRequests: ScriptedRequest[] = [];
    server().setHandler(
      route({
        planner: json({ title: 'API', steps: ['Write models.py', 'Write api.py endpoints', 'Write tests for api'], dependencies: { '1': [0], '2': [1] } }),
        executor: byStep({
          'Write models.py': [toolCalls(call('write_file', { path: 'models.py', content: 'class M: pass\n' })), message('models written')],
          'Write api.py endpoints': [cutOffWrite],
          'Write a small api.py': [toolCalls(call('write_file', { path: 'api.py', content: 'def handler(): return 1\n' })), message('api written')],
          'Write api tests': [toolCalls(call('write_file', { path: 'test_api.py', content: 'assert True\n' })), message('tests written')],
        }),
        replanner: (req) => {
          replannerRequests.push(req);
          return json({ action: 'redesign', new_steps: ['Write a small api.py', 'Write api tests'], new_dependencies: { '1': [0] } });
        },
        aggregator: message('done'),
      }),
    );
    const { result, events, workspace } = await runAgainst(server());
    server().assertNoRejections();
    assert.equal(result.status, 'completed', result.error);

    const [failed] = result.snapshot.replacedSteps.filter((s) => s.description === 'Write api.py endpoints');
    assert.ok(failed, 'the failed step is kept as replaced');
    assert.equal(failed.toolCalls.length, 1);
    assert.equal(failed.toolCalls[0].status, 'pending', 'a cut-off call never ran');
    assert.equal(failed.toolCalls[0].finishReason, 'length');
    assert.equal(failed.verdict?.passed, false);
    assert.deepEqual(failed.verdict?.failedCallIds, [failed.toolCalls[0].id]);

    const replan = result.snapshot.replans[0];
    assert.equal(replan.failedStepId, failed.id);
    assert.equal(replan.replacedStepIds.length, 2, 'the failed step and its downstream are replaced');
    assert.equal(replan.newStepIds.length, 2);
    assert.equal(replan.attempt, 1);
    assert.equal(eventsOf(events, 'subgraph_replaced').length, 1);

    // Completed work is kept, and the replanner saw it in full (tool history, not a summary).
    const models = result.snapshot.steps.find((s) => s.description === 'Write models.py')!;
    assert.equal(models.status, 'completed');
    assert.equal(models.toolCalls[0].status, 'success');
    const replannerPrompt = JSON.stringify(replannerRequests[0].body.messages);
    assert.match(replannerPrompt, /models\.py/);
    assert.match(replannerPrompt, /pending/);
    assert.match(replannerPrompt, /Write tests for api/);

    // New roots hang off the failed step's kept dependencies.
    const newRoot = result.snapshot.steps.find((s) => s.description === 'Write a small api.py')!;
    assert.deepEqual(newRoot.dependsOn, [models.id]);
    assert.equal(newRoot.replanAttempts, 1);
    assert.equal(readFileSync(join(workspace, 'api.py'), 'utf8'), 'def handler(): return 1\n');
  });

  it('blocks a lineage after 2 rewrites and shows its downstream as blocked by it', async () => {
    let replans = 0;
    server().setHandler(
      route({
        planner: json({ title: 'Doomed', steps: ['Write doomed file', 'Use doomed file'], dependencies: { '1': [0] } }),
        executor: (req) => (JSON.stringify(req.body.messages).includes('Use doomed') ? message('used') : cutOffWrite),
        replanner: () => {
          replans++;
          return json({ action: 'redesign', new_steps: [`Write doomed file again ${replans}`, `Use doomed file ${replans}`], new_dependencies: { '1': [0] } });
        },
        aggregator: message('partial'),
      }),
    );
    const { result } = await runAgainst(server());
    assert.equal(replans, 2, 'the original execution plus exactly 2 rewrites');
    assert.equal(result.status, 'failed');
    const live = result.snapshot.steps;
    const writer = live.find((s) => s.description.startsWith('Write doomed file again 2'))!;
    assert.equal(writer.status, 'blocked');
    assert.equal(writer.replanAttempts, 2);
    const user = live.find((s) => s.description === 'Use doomed file 2')!;
    assert.equal(user.status, 'blocked');
    assert.equal(user.blockedBy, writer.id);
    assert.deepEqual(
      result.snapshot.replans.map((r) => r.attempt),
      [1, 2],
    );
  });

  it('give_up blocks the failed step and its downstream', async () => {
    server().setHandler(
      route({
        planner: json({ title: 'x', steps: ['Write the file', 'Read the file back'], dependencies: { '1': [0] } }),
        executor: cutOffWrite,
        replanner: json({ action: 'give_up', new_steps: [], new_dependencies: {} }),
        aggregator: message('nothing done'),
      }),
    );
    const { result } = await runAgainst(server());
    const [writeStep, readStep] = result.snapshot.steps;
    assert.equal(writeStep.status, 'blocked');
    assert.equal(readStep.status, 'blocked');
    assert.equal(readStep.blockedBy, writeStep.id);
    assert.equal(result.snapshot.replans[0].action, 'give_up');
    assert.equal(result.status, 'failed');
  });

  it('rejects a replanner reply that introduces a cycle and blocks with a clear reason', async () => {
    server().setHandler(
      route({
        planner: json({ title: 'x', steps: ['Write the file'], dependencies: {} }),
        executor: cutOffWrite,
        replanner: json({ action: 'redesign', new_steps: ['a', 'b'], new_dependencies: { '0': [1], '1': [0] } }),
        aggregator: message('nothing'),
      }),
    );
    const { result } = await runAgainst(server());
    const [step] = result.snapshot.steps;
    assert.equal(step.status, 'blocked');
    assert.match(step.endReason ?? '', /cycle/i);
  });
});
