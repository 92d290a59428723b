import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { countTextTokens } from '../../src/core/context/tokenCounter';
import type { RunEvent } from '../../src/core/plan/events';
import { eventsOf, runAgainst, tempWorkspace } from '../support/agentHarness';
import { call, contentText, json, message, route, toolCalls } from '../support/scriptedReplies';
import { startScriptedServer, type Handler, type Reply, type ScriptedRequest, type ScriptedServer } from '../support/scriptedServer';

// The context budget and usage accounting through the real AgentRun, the real openai client and
// the scripted endpoint (docs/design.md, “Context budget and memory”, docs/design.md, “Usage and cost”). The server counts every prompt with Cortex's
// tokenizer and refuses one over its window with OpenAI's 400 context_length_exceeded; it also
// refuses a tool message without its assistant message, so a pruned or compacted conversation
// that broke a pair fails the test.

/** About `tokens` tokens of file-like text, different per seed. */
function fileText(tokens: number, seed: number): string {
  const lines: string[] = [];
  for (let i = 0; lines.join('\n').length < tokens * 4; i++)
    lines.push(`line ${i} of file ${seed}: value_${(i * 31 + seed) % 1000} = compute(${i}, "${seed}")`);
  return lines.join('\n');
}

/** route() plus the `compact` purpose. */
function withCompact(routes: Parameters<typeof route>[0], compact: Handler | Reply): Handler {
  const routed = route(routes);
  return (req) => (req.purpose === 'compact' ? (typeof compact === 'function' ? compact(req) : compact) : routed(req));
}

function contextCosts(events: RunEvent[], stepId = 's1') {
  return eventsOf(events, 'step_audit')
    .filter((e) => e.kind === 'context_cost' && e.stepId === stepId)
    .map(
      (e) =>
        e.data as {
          purpose: string;
          budget: number;
          tokensBefore: number;
          tokensAfter: number;
          actions: Array<{ kind: string; count: number; tokensSaved: number }>;
          afterOverflow?: boolean;
          exhausted?: boolean;
        },
    );
}

const messagesOf = (req: ScriptedRequest): any[] => req.body.messages;

describe('context budget through the scripted endpoint (docs/design.md, “Context budget and memory”)', () => {
  let server: ScriptedServer;
  afterEach(async () => {
    await server?.close();
  });

  it('an overflowing step is pruned, later compacted, and every request stays within the window', async function () {
    this.timeout(60_000);
    const window = 8000;
    const reserve = 1000;
    server = await startScriptedServer(undefined, { maxPromptTokens: window - reserve });
    const workspace = tempWorkspace();
    for (let i = 0; i < 10; i++) writeFileSync(join(workspace, `f${i}.txt`), fileText(850, i));
    const turns = 16;
    let n = 0;
    server.setHandler(
      withCompact(
        {
          planner: json({ title: 'read', steps: ['Read every file and report'], dependencies: {} }),
          executor: () =>
            n < turns
              ? {
                  kind: 'message',
                  content: `Reading the next file now. ${fileText(200, 100 + n)}`,
                  toolCalls: [call('read_file', { path: `f${n++ % 10}.txt` })],
                }
              : message('Read all files.'),
          aggregator: message('done'),
        },
        (req) => {
          assert.equal(req.body.tools, undefined, 'a compaction offers no tools');
          assert.equal(req.stream, false);
          assert.match(contentText(messagesOf(req)[1].content), /# Turns to summarise/);
          return message('Files f0 to f9 were read; each holds generated lines "value_N = compute(...)".');
        },
      ),
    );
    const { result, events } = await runAgainst(server, {
      workspace,
      settings: { 'cortex.context.windowTokens': window, 'cortex.context.reserveOutputTokens': reserve, 'cortex.limits.maxStepsPerTurn': 30 },
    });
    server.assertNoRejections();
    assert.deepEqual(
      server.refusals.map((r) => r.message),
      [],
      'no request over the window',
    );
    assert.equal(result.status, 'completed', result.error);

    const executor = server.chatRequests().filter((r) => r.purpose === 'executor');
    assert.equal(executor.length, turns + 1);
    for (const req of server.chatRequests()) assert.ok(req.promptTokens! <= window - reserve, `${req.purpose} #${req.index}: ${req.promptTokens}`);

    const costs = contextCosts(events);
    assert.equal(costs.filter((c) => c.purpose === 'executor').length, executor.length, 'one context_cost decision per executor request');
    const kinds = costs.map((c) => c.actions.map((a) => a.kind));
    const firstPrune = kinds.findIndex((k) => k.includes('prune_tool_outputs'));
    const firstCompact = kinds.findIndex((k) => k.includes('compact'));
    assert.ok(firstPrune >= 0, `pruned: ${JSON.stringify(costs.map((c) => [c.tokensBefore, c.tokensAfter, c.actions]))}`);
    assert.ok(firstCompact > firstPrune, `compacted later (prune at ${firstPrune}, compact at ${firstCompact})`);
    assert.deepEqual(
      kinds[firstCompact],
      ['prune_tool_outputs', 'shrink_turns', 'compact'].filter((k) => kinds[firstCompact].includes(k)),
    );
    for (const c of costs) assert.ok(c.tokensAfter <= c.budget, JSON.stringify(c));

    const compactions = server.chatRequests().filter((r) => r.purpose === 'compact');
    assert.ok(compactions.length >= 1);
    // The request right after a compaction carries the summary where the dropped turns were.
    const after = executor.find((r) => r.index > compactions[0].index)!;
    const summary = messagesOf(after).findIndex((m) => contentText(m.content).startsWith('<compacted_history'));
    assert.equal(summary, 2, 'after the system prompt and the step');
    assert.match(contentText(messagesOf(after)[summary].content), /Files f0 to f9 were read/);
    // Pruned outputs are stubs that name the tool and the size.
    assert.ok(
      executor.some((r) =>
        messagesOf(r).some((m) => m.role === 'tool' && /^\[output of read_file pruned: \d+(\.\d)? KB — call again if needed\]$/.test(m.content)),
      ),
    );

    // Every request's usage is filed under the step, compactions included.
    const step = result.snapshot.steps[0];
    const requests = eventsOf(events, 'llm_request').filter((e) => e.stepId === 's1' && e.ok);
    assert.equal(
      step.usage!.promptTokens,
      requests.reduce((sum, e) => sum + e.usage!.promptTokens, 0),
    );
    assert.ok(requests.some((e) => e.purpose === 'compact'));
    assert.equal(step.usage!.estimated, undefined, 'the endpoint reported every usage');
  });

  it("a provider's context-overflow error gets one compaction and one retry, never a failover", async function () {
    this.timeout(60_000);
    server = await startScriptedServer(undefined, { maxPromptTokens: 6000, models: ['test-model', 'backup-model'] });
    const workspace = tempWorkspace();
    for (let i = 0; i < 6; i++) writeFileSync(join(workspace, `f${i}.txt`), fileText(850, i));
    let n = 0;
    server.setHandler(
      withCompact(
        {
          planner: json({ title: 'read', steps: ['Read the six files'], dependencies: {} }),
          executor: () => (n < 6 ? toolCalls(call('read_file', { path: `f${n++}.txt` })) : message('Read them.')),
          aggregator: message('done'),
        },
        message('Read f0, f1, f2 so far.'),
      ),
    );
    // Cortex believes the window is 32,000 tokens; the endpoint's is 6,000.
    const { result, events } = await runAgainst(server, {
      workspace,
      settings: { 'cortex.context.windowTokens': 32_000, 'cortex.context.reserveOutputTokens': 1000, 'cortex.llm.fallbackModels': ['backup-model'] },
    });
    server.assertNoRejections();
    assert.equal(result.status, 'completed', result.error);
    const overflows = server.refusals.filter((r) => r.reason === 'context');
    assert.equal(overflows.length, 1, 'refused once; the window it named was learned');
    assert.ok(
      server.chatRequests().every((r) => r.body.model === 'test-model'),
      'no failover to backup-model',
    );
    const sequence = server
      .chatRequests()
      .slice(overflows[0].request.index + 1, overflows[0].request.index + 3)
      .map((r) => r.purpose);
    assert.deepEqual(sequence, ['compact', 'executor'], 'one compaction, then the retry');
    const failed = eventsOf(events, 'llm_request').filter((e) => !e.ok);
    assert.equal(failed.length, 1);
    assert.match(failed[0].error!, /The prompt is longer than model 'test-model' accepts \(400\)/);
    const retry = contextCosts(events).find((c) => c.afterOverflow)!;
    assert.ok(retry.actions.some((a) => a.kind === 'compact'));
    assert.equal(retry.budget, 6000 - 1000, 'the budget now uses the window the endpoint named');
  });

  it('a step that cannot fit fails context_exhausted, and the replanner is told to split it', async function () {
    this.timeout(30_000);
    const huge = `Analyse this specification: ${fileText(1500, 7)}`;
    // Room for the step's description with the replanner's frame (~1,330 tokens with its rules for
    // checks and scopes), not with the executor's system prompt and tool specs (~1,600).
    const budget = countTextTokens(huge) + 1450;
    server = await startScriptedServer(undefined, { maxPromptTokens: budget });
    let replannerSaw = '';
    server.setHandler(
      route({
        planner: json({ title: 'analyse', steps: [huge], dependencies: {} }),
        replanner: (req) => {
          replannerSaw = contentText(messagesOf(req)[1].content);
          return json({ action: 'redesign', new_steps: ['Analyse part one', 'Analyse part two'], new_dependencies: {} });
        },
        executor: message('Analysed.'),
        aggregator: message('done'),
      }),
    );
    const { result, events } = await runAgainst(server, {
      settings: { 'cortex.context.windowTokens': budget + 500, 'cortex.context.reserveOutputTokens': 500 },
    });
    server.assertNoRejections();
    assert.equal(server.refusals.length, 0, 'the over-long request was never sent');
    const failed = result.snapshot.replacedSteps.find((s) => s.id === 's1')!;
    assert.ok(failed, JSON.stringify({ error: result.error, steps: result.snapshot.steps.map((s) => [s.id, s.status, s.endReason, s.output]) }));
    assert.equal(failed.status, 'failed');
    assert.equal(failed.endReason, 'context_exhausted');
    assert.equal(failed.verdict?.passed, false);
    assert.match(failed.output!, /does not fit the context window of test-model/);
    assert.ok(contextCosts(events).some((c) => c.exhausted));
    assert.match(replannerSaw, /It ran out of context window: .*Split it into several smaller steps/);
    assert.equal(result.status, 'completed', result.error);
    assert.ok(
      server
        .chatRequests()
        .filter((r) => r.purpose === 'executor')
        .every((r) => r.stepId !== 's1'),
    );
  });
});

describe('tokens, cost and caps through the scripted endpoint (docs/design.md, “Usage and cost”)', () => {
  let server: ScriptedServer;
  afterEach(async () => {
    await server?.close();
  });

  const pricing = { 'test-model': { inputPerMTok: 1000, outputPerMTok: 2000, cachedInputPerMTok: 500 } };

  it('asks for usage on streamed requests and records it per request, per step and per run, with its cost', async () => {
    server = await startScriptedServer();
    let n = 0;
    server.setHandler(
      route({
        planner: json({ title: 't', steps: ['one', 'two'], dependencies: { 1: [0] } }, { usage: { prompt_tokens: 100, completion_tokens: 10 } }),
        executor: () =>
          n++ % 2 === 0
            ? { kind: 'message', toolCalls: [call('list_directory', {})], usage: { prompt_tokens: 300, completion_tokens: 20 } }
            : message('ok', { usage: { prompt_tokens: 400, completion_tokens: 30 } }),
        aggregator: message('done', { usage: { prompt_tokens: 50, completion_tokens: 5 } }),
      }),
    );
    const { result, events } = await runAgainst(server, { settings: { 'cortex.llm.pricing': pricing } });
    assert.equal(result.status, 'completed', result.error);
    for (const req of server.chatRequests().filter((r) => r.stream)) assert.deepEqual(req.body.stream_options, { include_usage: true });
    const price = (p: number, c: number) => (p * 1000 + c * 2000) / 1e6;
    for (const step of result.snapshot.steps) {
      assert.deepEqual({ ...step.usage, cost: undefined }, { promptTokens: 700, completionTokens: 50, cost: undefined });
      assert.ok(Math.abs(step.usage!.cost! - price(700, 50)) < 1e-9);
    }
    assert.equal(result.snapshot.usage.promptTokens, 100 + 2 * 700 + 50);
    assert.ok(Math.abs(result.snapshot.usage.cost! - price(1550, 115)) < 1e-9);
    assert.ok(eventsOf(events, 'llm_request').every((e) => e.usage && !e.usage.estimated));
  });

  it('counts with the tokenizer, marked estimated, when the endpoint reports no usage', async () => {
    server = await startScriptedServer();
    const reply = 'The directory is empty.';
    server.setHandler(
      route({
        planner: json({ title: 't', steps: ['one'], dependencies: {} }),
        // A stream without the usage chunk (an endpoint that ignores stream_options).
        executor: {
          kind: 'chunks',
          chunks: [
            { choices: [{ index: 0, delta: { role: 'assistant', content: reply }, finish_reason: null }] },
            { choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] },
          ],
        },
        aggregator: message('done'),
      }),
    );
    const { result, events } = await runAgainst(server, { settings: { 'cortex.llm.pricing': pricing } });
    assert.equal(result.status, 'completed', result.error);
    const executor = eventsOf(events, 'llm_request').find((e) => e.purpose === 'executor')!;
    assert.equal(executor.usage!.estimated, true);
    assert.equal(executor.usage!.completionTokens, countTextTokens(reply));
    assert.ok(executor.usage!.promptTokens > 1000, 'the system prompt, the step and the tool specs, counted');
    assert.equal(result.snapshot.steps[0].usage!.estimated, true);
    assert.equal(result.snapshot.usage.estimated, true);
    assert.ok(result.snapshot.usage.cost! > 0);
  });

  it('past cortex.limits.maxRunTokens no new step starts, the running step stops after its turn, and the run fails budget_exceeded', async () => {
    server = await startScriptedServer();
    let turns = 0;
    server.setHandler(
      route({
        planner: json({ title: 't', steps: ['first', 'second'], dependencies: {} }, { usage: { prompt_tokens: 10, completion_tokens: 5 } }),
        executor: () => {
          turns++;
          return { kind: 'message', toolCalls: [call('create_directory', { path: `d${turns}` })], usage: { prompt_tokens: 400, completion_tokens: 100 } };
        },
        aggregator: message('should not be asked'),
        replanner: json({ action: 'give_up', new_steps: [], new_dependencies: {} }),
      }),
    );
    const { result } = await runAgainst(server, { settings: { 'cortex.limits.maxRunTokens': 1000, 'cortex.execution.maxParallelSteps': 1 } });
    assert.equal(turns, 2, 'the turn that crossed the cap finished; no turn after it');
    assert.equal(result.status, 'failed');
    assert.match(result.error!, /^budget_exceeded: the run used 1,015 tokens, reaching cortex.limits.maxRunTokens \(1,000\)/);
    const [first, second] = result.snapshot.steps;
    assert.equal(first.status, 'failed');
    assert.equal(first.endReason, 'budget_exceeded');
    assert.deepEqual(
      first.toolCalls.map((c) => c.status),
      ['success', 'success'],
      'its current turn ran to the end',
    );
    assert.equal(second.status, 'blocked');
    assert.equal(second.endReason, 'budget_exceeded');
    assert.equal(second.startedAt, undefined, 'never started');
    const purposes = server.chatRequests().map((r) => r.purpose);
    assert.ok(!purposes.includes('aggregator') && !purposes.includes('replanner'), purposes.join(', '));
    assert.match(result.answer!, /The final summary was not written/);
  });

  it('past cortex.limits.maxRunCost the same, counted in the pricing of the model', async () => {
    server = await startScriptedServer();
    server.setHandler(
      route({
        planner: json({ title: 't', steps: ['first', 'second'], dependencies: { 1: [0] } }, { usage: { prompt_tokens: 100, completion_tokens: 0 } }),
        executor: message('done', { usage: { prompt_tokens: 1000, completion_tokens: 0 } }),
        aggregator: message('should not be asked'),
      }),
    );
    // 1,000 per million tokens: the planner costs 0.1, the first step 1.0 — past the cap of 1.
    const { result, events } = await runAgainst(server, { settings: { 'cortex.llm.pricing': pricing, 'cortex.limits.maxRunCost': 1 } });
    assert.equal(result.status, 'failed');
    assert.match(result.error!, /^budget_exceeded: the run cost about \$1.100, reaching cortex.limits.maxRunCost \(\$1.000\)/);
    assert.equal(result.snapshot.steps[0].status, 'completed');
    assert.equal(result.snapshot.steps[1].status, 'blocked');
    assert.equal(eventsOf(events, 'log').filter((e) => /no price/.test(e.message)).length, 0, 'the model has a price');
  });
});
