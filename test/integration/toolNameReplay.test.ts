import assert from 'node:assert/strict';
import { eventsOf, runAgainst } from '../support/agentHarness';
import { call, json, lastAssistant, message, route, toolCalls, toolMessages } from '../support/scriptedReplies';
import { startScriptedServer, validateChatBody, type ScriptedServer } from '../support/scriptedServer';

// A tool name the model made up is sent back to the endpoint (in the replayed assistant turn) only
// in a form a real endpoint accepts; the trace keeps the name as the model wrote it.

describe('replayed tool names', function () {
  this.timeout(20_000);
  let server: ScriptedServer;
  afterEach(async () => {
    await server?.close();
  });

  it('the scripted endpoint refuses a replayed tool name outside ^[a-zA-Z0-9_-]{1,64}$, like a real one', () => {
    const replay = (name: string) => ({
      model: 'm',
      messages: [
        { role: 'user', content: 'x' },
        { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name, arguments: '{}' } }] },
        { role: 'tool', tool_call_id: 'c1', content: 'r' },
      ],
    });
    for (const bad of ['read file', 'functions.read_file', '读取文件', 'x'.repeat(65)])
      assert.match(validateChatBody(replay(bad))?.message ?? 'accepted', /does not match pattern/, bad);
    for (const good of ['read_file', 'unknown_tool', 'a-b_C9', 'x'.repeat(64)]) assert.equal(validateChatBody(replay(good)), undefined, good);
  });

  for (const madeUp of ['读取 文件!', 'open file.now', `${'long_'.repeat(20)}name`]) {
    it(`replays "${madeUp.slice(0, 24)}" as a placeholder the endpoint accepts, and the trace keeps the original`, async () => {
      server = await startScriptedServer(
        route({
          planner: json({ title: 't', steps: ['Read the file'], dependencies: {} }),
          executor: (req) => (toolMessages(req).length ? message('could not read it') : toolCalls(call(madeUp, { path: 'a.txt' }, 'c1'))),
          aggregator: message('done'),
        }),
      );
      const { events } = await runAgainst(server, { settings: { 'cortex.repair.toolNameAttempts': 0 } });
      server.assertNoRejections();
      const followUp = server.chatRequests().filter((r) => r.purpose === 'executor')[1];
      assert.ok(followUp, 'the executor asked again with the tool result');
      assert.deepEqual(
        lastAssistant(followUp).tool_calls.map((c: { function: { name: string } }) => c.function.name),
        ['unknown_tool'],
      );
      assert.match(toolMessages(followUp)[0].content, new RegExp(`Unknown tool '${madeUp.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}'`));
      const requested = eventsOf(events, 'tool_call_requested')[0];
      assert.equal(requested.call.requestedName, madeUp);
    });
  }

  it('keeps a made-up name the endpoint accepts as it is', async () => {
    server = await startScriptedServer(
      route({
        planner: json({ title: 't', steps: ['Zap'], dependencies: {} }),
        executor: (req) => (toolMessages(req).length ? message('no zap') : toolCalls(call('zap_it', {}, 'c1'))),
        aggregator: message('done'),
      }),
    );
    await runAgainst(server, { settings: { 'cortex.repair.toolNameAttempts': 0 } });
    server.assertNoRejections();
    const followUp = server.chatRequests().filter((r) => r.purpose === 'executor')[1];
    assert.deepEqual(
      lastAssistant(followUp).tool_calls.map((c: { function: { name: string } }) => c.function.name),
      ['zap_it'],
    );
  });
});
