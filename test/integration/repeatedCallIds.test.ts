import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { runAgainst, tempWorkspace } from '../support/agentHarness';
import { call, json, message, route, sequence, toolCalls, toolMessages } from '../support/scriptedReplies';
import { useScriptedServer } from '../support/useScriptedServer';

// Some OpenAI-compatible servers number calls per response, so the same id comes back every turn.
describe('agent run: a provider that repeats tool-call ids across turns', () => {
  const server = useScriptedServer();

  it('gives each call of the step its own id, answers each one, and completes the step', async () => {
    const workspace = tempWorkspace();
    server().setHandler(
      route({
        planner: json({ title: 't', steps: ['Write a.txt then b.txt'], dependencies: {} }),
        executor: sequence(
          toolCalls(call('write_file', { path: 'a.txt', content: 'a' }, 'call_0')),
          toolCalls(call('write_file', { path: 'b.txt', content: 'b' }, 'call_0')),
          (req) => {
            // The conversation sent back has two distinct ids, each answered once.
            const ids = req.body.messages.filter((m: { role: string }) => m.role === 'tool').map((m: { tool_call_id: string }) => m.tool_call_id);
            assert.equal(new Set(ids).size, 2, `tool messages answer ${JSON.stringify(ids)}`);
            assert.equal(toolMessages(req).length, 1);
            return message('both written');
          },
        ),
        aggregator: message('done'),
      }),
    );
    const { result } = await runAgainst(server(), { workspace, task: 't' });
    assert.equal(result.status, 'completed', result.error);
    const step = result.snapshot.steps[0];
    assert.equal(step.status, 'completed');
    assert.deepEqual(
      step.toolCalls.map((c) => c.id),
      ['call_0', 'call_0_t2'],
    );
    assert.equal(readFileSync(join(workspace, 'b.txt'), 'utf8'), 'b');
    server().assertNoRejections();
  });
});
