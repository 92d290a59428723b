import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { costOf } from '../../src/core/usage/pricing';
import { eventsOf, runAgainst, tempWorkspace } from '../support/agentHarness';
import { renderPrompt } from '../support/promptCache';
import { call, json, message, route } from '../support/scriptedReplies';
import { startScriptedServer, type ScriptedServer, type ScriptedServerOptions } from '../support/scriptedServer';

// Prompts providers can cache (docs/design.md, “Usage and cost” and “Context budget and memory”):
// the scripted endpoint plays a provider's prompt cache and reports the cached tokens in each
// provider's usage shape; the trace records them as cachedPromptTokens and prices them with
// cachedInputPerMTok.

const pricing = { 'test-model': { inputPerMTok: 1000, outputPerMTok: 2000, cachedInputPerMTok: 100 } };

describe('cached prompt tokens through the scripted endpoint', () => {
  let server: ScriptedServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  for (const shape of ['openai', 'deepseek', 'anthropic-gateway'] as const satisfies ReadonlyArray<ScriptedServerOptions['promptCache']>) {
    it(`records the ${shape} cached tokens in the trace and prices them lower`, async () => {
      server = await startScriptedServer(undefined, { promptCache: shape });
      let turn = 0;
      server.setHandler(
        route({
          planner: json({ title: 't', steps: ['list the workspace', 'list it again'], dependencies: { 1: [0] } }),
          executor: () => (turn++ % 2 === 0 ? { kind: 'message', toolCalls: [call('list_directory', {})] } : message('listed')),
          aggregator: message('done'),
        }),
      );
      const { result, events } = await runAgainst(server, { settings: { 'cortex.llm.pricing': pricing, 'cortex.execution.maxParallelSteps': 1 } });
      assert.equal(result.status, 'completed', result.error);

      const executorRequests = server.chatRequests().filter((r) => r.purpose === 'executor');
      const recorded = eventsOf(events, 'llm_request').filter((e) => e.purpose === 'executor');
      assert.equal(recorded.length, 4);
      assert.equal(executorRequests.length, 4);
      // One step at a time: the trace's requests are the server's, in the same order.
      recorded.forEach((event, i) => {
        const sent = executorRequests[i];
        assert.equal(event.usage!.estimated, undefined, 'the endpoint reported the usage');
        assert.equal(event.usage!.promptTokens, sent.promptTokens);
        assert.equal(event.usage!.cachedPromptTokens, sent.cachedTokens! > 0 ? sent.cachedTokens : undefined);
        assert.equal(event.usage!.cost, costOf(event.usage!, pricing['test-model']));
      });
      // A step's second turn repeats its first request and extends it: most of it is cached.
      for (const second of [recorded[1], recorded[3]]) {
        assert.ok(second.usage!.cachedPromptTokens! > 0.8 * second.usage!.promptTokens, JSON.stringify(second.usage));
        assert.ok(second.usage!.cost! < costOf({ ...second.usage!, cachedPromptTokens: 0 }, pricing['test-model'])!, 'cached input is priced lower');
      }
      // The second step's first request shares the system prompt, the tools and the task with the first step's.
      assert.ok(recorded[2].usage!.cachedPromptTokens! > 0.5 * recorded[2].usage!.promptTokens, JSON.stringify(recorded[2].usage));
      const total = result.snapshot.usage;
      const expected = eventsOf(events, 'llm_request').reduce((sum, e) => sum + (e.usage!.cachedPromptTokens ?? 0), 0);
      assert.equal(total.cachedPromptTokens, expected, 'the run adds the cached tokens up');
    });
  }

  it("each turn of a step extends the step's previous request, except a turn the context budget rewrote, which its context_cost audit says", async function () {
    this.timeout(60_000);
    const window = 8000;
    const reserve = 1000;
    server = await startScriptedServer(undefined, { maxPromptTokens: window - reserve, promptCache: 'openai' });
    const workspace = tempWorkspace();
    const line = (i: number, seed: number) => `line ${i} of file ${seed}: value_${(i * 31 + seed) % 1000} = compute(${i}, "${seed}")`;
    for (let f = 0; f < 10; f++) writeFileSync(join(workspace, `f${f}.txt`), Array.from({ length: 60 }, (_, i) => line(i, f)).join('\n'));
    const turns = 14;
    let n = 0;
    const routed = route({
      planner: json({ title: 'read', steps: ['Read every file and report'], dependencies: {} }),
      executor: () => (n < turns ? { kind: 'message', toolCalls: [call('read_file', { path: `f${n++ % 10}.txt` })] } : message('Read all files.')),
      aggregator: message('done'),
    });
    server.setHandler((req) => (req.purpose === 'compact' ? message('Files f0 to f9 were read.') : routed(req)));
    const { result, events } = await runAgainst(server, {
      workspace,
      settings: { 'cortex.context.windowTokens': window, 'cortex.context.reserveOutputTokens': reserve, 'cortex.limits.maxStepsPerTurn': 30 },
    });
    assert.equal(result.status, 'completed', result.error);
    const executor = server.chatRequests().filter((r) => r.purpose === 'executor');
    const costs = eventsOf(events, 'step_audit')
      .filter((e) => e.kind === 'context_cost' && e.data.purpose === 'executor')
      .map((e) => e.data as { actions: Array<{ kind: string }> });
    assert.equal(costs.length, executor.length, 'one context_cost decision per executor request, in order');
    let extended = 0;
    let rewritten = 0;
    for (let i = 1; i < executor.length; i++) {
      const previous = renderPrompt(executor[i - 1].body);
      if (renderPrompt(executor[i].body).startsWith(previous)) extended++;
      else {
        rewritten++;
        assert.ok(costs[i].actions.length > 0, `request ${i} changed what the step had sent, with no pruning or compaction said: ${JSON.stringify(costs[i])}`);
        assert.ok(
          (executor[i].cachedTokens ?? 0) > 0,
          'the system prompt, the tools and the step still come first: a rewritten request shares its start with the earlier ones',
        );
      }
    }
    assert.ok(rewritten >= 1, 'the window forced a rewrite');
    // Until the window fills, the turns only append; once it is full, each turn prunes.
    assert.ok(extended >= 3, `${extended} extensions, ${rewritten} rewrites`);
  });
});
