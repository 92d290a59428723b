// The context budget under a long step (docs/design.md, “Context budget and memory”).
//  1. A 200-turn step whose read_file calls return 30 KB each, against a 32,000-token window,
//     through the real AgentRun, the real openai client and the scripted server (which counts every
//     prompt with the same tokenizer and refuses one over the window with OpenAI's 400
//     context_length_exceeded). Every request must stay within the budget, every request's
//     decision must be a context_cost audit, and the run must complete.
//  2. The budget's overhead per request at a 128,000-token prompt (counting the new turn,
//     summing the cached counts, deciding, pruning when over): median, next to one JSON.stringify
//     of the same prompt measured in the same run. Target: under 5 ms.
// Exits non-zero on a missed target.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ContextBudget } from '../src/core/context/contextBudget';
import { fitRequest, type ContextFitDeps } from '../src/core/context/contextFitter';
import { countPromptTokens } from '../src/core/context/tokenCounter';
import type { ChatMessage } from '../src/core/llm/llmTypes';
import { parseConfig } from '../src/core/config/configSchema';
import { createBuiltinRegistry } from '../src/core/tools/workspace/builtinTools';
import { eventsOf, runAgainst, tempWorkspace } from '../test/support/agentHarness';
import { call, json, message, route, toolCalls } from '../test/support/scriptedReplies';
import { startScriptedServer, type Handler } from '../test/support/scriptedServer';
import { seededRandom } from '../test/support/seededRandom';

const TURNS = 200;
const OUTPUT_BYTES = 30 * 1024;
const WINDOW = 32_000;
const RESERVE = 4096;
const OVERHEAD_TARGET_MS = 5;
const BIG_PROMPT_TOKENS = 128_000;

/** 30 KB of code-like text, different per seed (what read_file returns from a source file). */
function sourceFile(seed: number, bytes = OUTPUT_BYTES): string {
  const random = seededRandom(seed);
  const names = ['value', 'result', 'config', 'items', 'index', 'buffer', 'handler', 'request', 'response', 'options'];
  const pick = () => names[Math.floor(random() * names.length)];
  const lines: string[] = [];
  let size = 0;
  for (let i = 0; size < bytes; i++) {
    const line = `  const ${pick()}${i} = ${pick()}.${pick()}(${Math.floor(random() * 10_000)}, "${pick()}-${seed}"); // step ${i}`;
    lines.push(line);
    size += line.length + 1;
  }
  return lines.join('\n').slice(0, bytes);
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

async function longStep(): Promise<boolean> {
  const budget = WINDOW - RESERVE;
  const server = await startScriptedServer(undefined, { maxPromptTokens: budget });
  const workspace = tempWorkspace('cortex-bench-context-');
  for (let i = 0; i < 20; i++) writeFileSync(join(workspace, `src${i}.ts`), sourceFile(i));
  let turn = 0;
  const routed = route({
    planner: json({ title: 'long step', steps: ['Read every source file, one per turn, and report'], dependencies: {} }),
    executor: () => (turn < TURNS ? toolCalls(call('read_file', { path: `src${turn++ % 20}.ts` })) : message('Read them all.')),
    aggregator: message('done'),
  });
  const handler: Handler = (req) =>
    req.purpose === 'compact' ? message(`Read src0.ts to src19.ts (turns so far: ${turn}); they define numbered constants.`) : routed(req);
  server.setHandler(handler);
  const started = performance.now();
  try {
    const { result, events } = await runAgainst(server, {
      workspace,
      settings: { 'cortex.context.windowTokens': WINDOW, 'cortex.context.reserveOutputTokens': RESERVE, 'cortex.limits.maxStepsPerTurn': TURNS + 10 },
    });
    const seconds = (performance.now() - started) / 1000;
    const chat = server.chatRequests();
    const executor = chat.filter((r) => r.purpose === 'executor');
    const largest = Math.max(...chat.map((r) => r.promptTokens ?? 0));
    const costs = eventsOf(events, 'step_audit').filter((e) => e.kind === 'context_cost');
    const executorCosts = costs.filter((e) => e.data.purpose === 'executor');
    const count = (kind: string) => costs.filter((e) => (e.data.actions as Array<{ kind: string }>).some((a) => a.kind === kind)).length;
    const overflows = server.refusals.filter((r) => r.reason === 'context').length;
    console.log(`long step: ${executor.length} executor requests, ${chat.length - executor.length} others, in ${seconds.toFixed(1)} s`);
    console.log(
      `  largest prompt ${largest.toLocaleString('en-US')} tokens of a ${budget.toLocaleString('en-US')}-token budget (window ${WINDOW.toLocaleString('en-US')} − ${RESERVE} reserved); refused as too long: ${overflows}`,
    );
    console.log(
      `  context_cost audits: ${costs.length} (${executorCosts.length} for ${executor.length} executor requests); pruned in ${count('prune_tool_outputs')}, compacted in ${count('compact')}`,
    );
    console.log(
      `  run ${result.status}${result.error ? `: ${result.error}` : ''}; step tokens ${result.snapshot.steps[0]?.usage?.promptTokens.toLocaleString('en-US')} prompt`,
    );
    const ok =
      result.status === 'completed' &&
      overflows === 0 &&
      server.rejections.length === 0 &&
      largest <= budget &&
      executorCosts.length === executor.length &&
      executor.length === TURNS + 1;
    console.log(`  ${ok ? 'ok' : 'MISSED'}: every request within budget, one decision per request, run completed`);
    return ok;
  } finally {
    await server.close();
  }
}

function turnMessages(i: number): ChatMessage[] {
  const id = `call_${i}`;
  return [
    {
      role: 'assistant',
      content: null,
      tool_calls: [{ id, type: 'function', function: { name: 'read_file', arguments: JSON.stringify({ path: `src${i}.ts` }) } }],
    },
    { role: 'tool', tool_call_id: id, content: sourceFile(1000 + i) },
  ];
}

/** Median ms of fitRequest per request at a ~128,000-token prompt; each request brings a new 30 KB turn. */
async function overheadAt128k(windowOverPrompt: number): Promise<{ medianMs: number; stringifyMs: number; tokens: number }> {
  const tools = createBuiltinRegistry(parseConfig({})).specs();
  const messages: ChatMessage[] = [
    { role: 'system', content: 'You are the executor of one step.' },
    { role: 'user', content: 'Overall task: read\n\nYour step:\nRead the sources.' },
  ];
  let next = 0;
  while (countPromptTokens(messages, tools) < BIG_PROMPT_TOKENS) messages.push(...turnMessages(next++));
  const tokens = countPromptTokens(messages, tools);
  const deps: ContextFitDeps = {
    budget: new ContextBudget({ windowTokens: tokens + windowOverPrompt, reserveOutputTokens: 0 }, 'bench-model'),
    summarise: () => Promise.resolve('summary'),
    mustPropagate: () => true,
    record: () => undefined,
  };
  const times: number[] = [];
  for (let i = 0; i < 60; i++) {
    // The step's next turn (a fresh 30 KB output no count has seen) replaces the oldest one, so
    // the prompt stays at ~128,000 tokens.
    const turn = turnMessages(next++);
    const oldest = messages.findIndex((m) => m.role === 'assistant');
    messages.splice(oldest, 2);
    messages.push(...turn);
    const started = performance.now();
    await fitRequest(deps, { purpose: 'executor', stepId: 's1', messages, tools });
    times.push(performance.now() - started);
  }
  const stringify: number[] = [];
  for (let i = 0; i < 20; i++) {
    const started = performance.now();
    JSON.stringify({ model: 'm', messages, tools });
    stringify.push(performance.now() - started);
  }
  return { medianMs: median(times.slice(10)), stringifyMs: median(stringify), tokens };
}

async function main(): Promise<void> {
  const stepOk = await longStep();
  const fits = await overheadAt128k(10_000);
  const prunes = await overheadAt128k(-5_000);
  console.log(`budget overhead per request at a ${fits.tokens.toLocaleString('en-US')}-token prompt (new 30 KB turn counted, the rest cached):`);
  console.log(
    `  fits: ${fits.medianMs.toFixed(2)} ms median · over budget, pruning: ${prunes.medianMs.toFixed(2)} ms median · one JSON.stringify of the prompt: ${fits.stringifyMs.toFixed(2)} ms (target < ${OVERHEAD_TARGET_MS} ms)`,
  );
  const overheadOk = fits.medianMs < OVERHEAD_TARGET_MS && prunes.medianMs < OVERHEAD_TARGET_MS;
  if (!overheadOk) console.log('  MISSED: budget overhead target');
  process.exit(stepOk && overheadOk ? 0 : 1);
}

void main();
