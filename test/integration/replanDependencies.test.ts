import assert from 'node:assert/strict';
import { runAgainst } from '../support/agentHarness';
import { byStep, call, json, message, route, toolCalls } from '../support/scriptedReplies';
import { useScriptedServer } from '../support/useScriptedServer';

// A redesigned step waits for what its replan says and for the outside steps whose outputs it uses,
// not for every outside dependency of the steps it replaced (docs/design.md, "The replanner"): a
// new CHANGELOG step starts at once while a slow, unrelated test suite is still running.

/** A write whose arguments are cut off mid-JSON by the token limit: the call never runs, the step fails. */
const cutOffWrite = { kind: 'message' as const, toolCalls: [{ name: 'write_file', arguments: '{"path":"api.py","content":"def h' }], finishReason: 'length' };
const SUITE_MS = 3_000;

describe('agent run: dependencies of redesigned steps', () => {
  const server = useScriptedServer();

  it('a redesigned CHANGELOG step does not wait for the slow suite only a replaced sibling used', async () => {
    server().setHandler(
      route({
        planner: json({
          title: 'API',
          steps: ['Run the slow test suite', 'Write api.py endpoints', 'Check api.py against the suite results', 'Update CHANGELOG.md'],
          dependencies: { 2: [1, 0], 3: [1] },
        }),
        executor: byStep({
          'Run the slow test suite': [message('suite: 12 passed', { delayMs: SUITE_MS })],
          'Write api.py endpoints': [cutOffWrite],
          'Write a small api.py': [toolCalls(call('write_file', { path: 'api.py', content: 'def h(): return 1\n' })), message('api written')],
          'Check api.py against the suite results': [message('api.py matches')],
          'Update CHANGELOG.md': [toolCalls(call('write_file', { path: 'CHANGELOG.md', content: '- api\n' })), message('changelog updated')],
        }),
        replanner: json({
          action: 'redesign',
          new_steps: ['Write a small api.py', 'Check api.py against the suite results', 'Update CHANGELOG.md'],
          new_dependencies: { 1: [0] },
        }),
        aggregator: message('done'),
      }),
    );
    const { result } = await runAgainst(server());
    server().assertNoRejections();
    assert.equal(result.status, 'completed', result.error);
    const step = (description: string) =>
      result.snapshot.steps.find((s) => s.description === description && s.origin === (description.startsWith('Run') ? 'planner' : 'replan'))!;
    const suite = step('Run the slow test suite');
    const api = step('Write a small api.py');
    const check = step('Check api.py against the suite results');
    const changelog = step('Update CHANGELOG.md');

    // The old rule made every new root wait for the suite; now only the api work does (it continues
    // the replaced check step, which used the suite's results), and the check waits through it.
    assert.deepEqual(changelog.dependsOn, [], 'the CHANGELOG step waits for nothing');
    assert.deepEqual(api.dependsOn, [suite.id]);
    assert.match(api.waitsFor?.[suite.id] ?? '', /continues the replaced s3 “Check api\.py against the suite results” \(both about “api\.py”\)/);
    assert.deepEqual(check.dependsOn, [api.id], 'the suite is not repeated: it is waited for through the api step');
    assert.ok(changelog.finishedAt! < suite.finishedAt!, 'the CHANGELOG step finished while the suite still ran');
    assert.ok(api.startedAt! >= suite.finishedAt!, 'the api step started after the suite');
  });
});
