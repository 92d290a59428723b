// Prompts providers can cache (docs/design.md, “Context budget and memory”): a 10-step run of 5
// turns a step (a directory listing, a read_file of a 0.4–1 KB file, a write_file of 300 bytes, another
// read_file, then the answer), through the real AgentRun, the real openai
// client and the scripted server, which plays a provider's prompt cache (test/support/promptCache.ts:
// each prompt rendered as a provider reads it, tools first, then the messages; the tokens of its
// longest start shared with an earlier request of the run count as cached). The workspace has
// project instructions (AGENTS.md) and the run a memory file whose notes are injected into the
// steps, and half the steps depend on others (their outputs are in the step's prompt): what a real
// run adds to the prompts.
// Figures, for every executor request from a step's second turn on: the share of its prompt that
// repeats the start of an earlier request of the same run (lowest, median, highest, by turn), and
// whether it begins with the whole of its step's previous request. Targets: the median share at
// least 90 %, and every such request an exact extension of its step's previous one unless the
// context budget rewrote it (pruning or compaction: the only rewrites, each a context_cost audit,
// counted here). The lowest share is printed, not a target: it is bounded by how much a turn adds
// (a 1 KB file read into a 2,600-token prompt is about 12 % of it), not by the prompt's layout.
// Also printed: the share for the steps' first requests (what the steps share: the system prompt,
// the tools, the instructions and the task).
// Exits non-zero on a missed target.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AgentRun } from '../src/core/agent/agentRun';
import { parseConfig } from '../src/core/config/configSchema';
import { MemoryStore } from '../src/core/memory/memoryStore';
import { EventLog } from '../src/core/plan/eventLog';
import { ApprovalBroker } from '../src/core/policy/approvalBroker';
import { eventsOf, tempWorkspace } from '../test/support/agentHarness';
import { renderPrompt } from '../test/support/promptCache';
import { call, json, message, route, toolCalls } from '../test/support/scriptedReplies';
import { startScriptedServer, type ScriptedRequest } from '../test/support/scriptedServer';
import { median } from './support/median';
import { runBenchmark } from './support/runBenchmark';

const STEPS = 10;
const TURNS_PER_STEP = 5;
const TARGET = 0.9;
/** read_file results of 0.4 to 1 KB: small source files, as a step reads them. */
const FILE_BYTES = [400, 700, 1_000];
const FILES = STEPS * 2;

/** A source file of `bytes` bytes or a little more, different per index. */
function sourceFile(i: number, bytes: number): string {
  const lines: string[] = [];
  for (let n = 0; lines.join('\n').length < bytes; n++) lines.push(`export const part${i}_${n} = compute(${(i * 31 + n * 7) % 997}, 'module-${i}');`);
  return lines.join('\n');
}

function plan(): { title: string; steps: string[]; dependencies: Record<string, number[]> } {
  const steps = Array.from({ length: STEPS }, (_, i) => `Read the source files of module ${i} and summarise their build settings`);
  const dependencies: Record<string, number[]> = {};
  for (let i = STEPS / 2; i < STEPS; i++) dependencies[String(i)] = [i - STEPS / 2];
  return { title: 'summarise the modules', steps, dependencies };
}

const percent = (share: number) => `${(share * 100).toFixed(1)} %`;

async function main(): Promise<boolean> {
  const workspace = tempWorkspace('cortex-bench-cache-');
  for (let i = 0; i < FILES; i++) writeFileSync(join(workspace, `src${i}.ts`), sourceFile(i, FILE_BYTES[i % FILE_BYTES.length]));
  writeFileSync(join(workspace, 'AGENTS.md'), '# Agent notes\n\nBuild with `make dist`; the modules are in src*.ts; never edit generated files.\n');
  const memoryFile = join(mkdtempSync(join(tmpdir(), 'cortex-bench-cache-memory-')), 'memory.json');
  const memory = new MemoryStore(memoryFile);
  await memory.store('The build settings of every module are in its source files, as exported constants.', ['build']);
  await memory.store('Module summaries should name the constants that compute() receives.', ['summaries']);

  const server = await startScriptedServer(undefined, { promptCache: 'openai' });
  const turns = new Map<string, number>();
  server.setHandler(
    route({
      planner: json(plan()),
      executor: (request: ScriptedRequest) => {
        const step = request.stepId ?? '?';
        const turn = (turns.get(step) ?? 0) + 1;
        turns.set(step, turn);
        const index = Number(/\d+/.exec(step)?.[0] ?? 0);
        // First a look at the workspace, then its files.
        // A step's usual turns: look around, read a file, write what it found, read another file, answer.
        if (turn === 1) return toolCalls(call('list_directory', {}));
        if (turn === 2) return toolCalls(call('read_file', { path: `src${(index * 2) % FILES}.ts` }));
        if (turn === 3)
          return toolCalls(
            call('write_file', {
              path: `notes/module${index}.md`,
              content: `# Module ${index}\n\n${'Build settings: exported constants passed to compute(). '.repeat(5)}`,
            }),
          );
        if (turn === 4) return toolCalls(call('read_file', { path: `src${(index * 2 + 1) % FILES}.ts` }));
        return message(`Module ${index}: its build settings are the constants part${index}_0 to part${index}_9.`);
      },
      aggregator: message('All modules summarised.'),
    }),
  );
  const log = new EventLog({
    onListenerError: (error) => {
      throw error;
    },
  });
  const run = new AgentRun({
    task: 'Summarise the build settings of every module',
    workspaceRoot: workspace,
    config: parseConfig({ 'cortex.llm.baseUrl': server.baseUrl, 'cortex.llm.model': 'bench-model', 'cortex.llm.maxRetries': 0 }),
    apiKey: 'bench-key',
    log,
    approvals: new ApprovalBroker(),
    trusted: true,
    memoryFile,
  });
  try {
    const result = await run.start();
    if (result.status !== 'completed') {
      for (const e of eventsOf(log.events, 'tool_call_completed')) if (e.status !== 'success') console.error(JSON.stringify(e).slice(0, 400));
      throw new Error(`the run ended ${result.status}: ${result.error}`);
    }
    const executor = server.chatRequests().filter((r) => r.purpose === 'executor');
    if (executor.length !== STEPS * TURNS_PER_STEP) throw new Error(`${executor.length} executor requests, expected ${STEPS * TURNS_PER_STEP}`);
    const previous = new Map<string, string>();
    const first: number[] = [];
    const later: number[] = [];
    const byTurn = new Map<number, number[]>();
    const tokensByTurn = new Map<number, number[]>();
    let extended = 0;
    const turnOf = new Map<string, number>();
    for (const request of executor) {
      const step = request.stepId ?? '?';
      const prompt = renderPrompt(request.body);
      const before = previous.get(step);
      (before === undefined ? first : later).push(request.sharedShare!);
      const turn = (turnOf.get(step) ?? 0) + 1;
      turnOf.set(step, turn);
      byTurn.set(turn, [...(byTurn.get(turn) ?? []), request.sharedShare!]);
      tokensByTurn.set(turn, [...(tokensByTurn.get(turn) ?? []), request.promptTokens!]);
      // Everything the step's previous request held, byte for byte, then only what is new.
      if (before !== undefined && prompt.startsWith(before)) extended++;
      previous.set(step, prompt);
    }
    const memoryInjected = eventsOf(log.events, 'step_audit').filter((e) => e.kind === 'memory_injected').length;
    const rewrites = eventsOf(log.events, 'step_audit').filter(
      (e) => e.kind === 'context_cost' && (e.data.actions as unknown[]).length > 0 && e.data.purpose === 'executor',
    ).length;
    const instructions = executor.every((r) => JSON.stringify(r.body.messages).includes('make dist'));
    const lowest = Math.min(...later);
    const middle = median(later);
    const ok = middle >= TARGET && extended + rewrites >= later.length;
    console.log(
      `${STEPS} steps × ${TURNS_PER_STEP} turns: ${executor.length} executor requests; project instructions in every prompt: ${instructions ? 'yes' : 'NO'}; steps given memory: ${memoryInjected} of ${STEPS}; requests rewritten by pruning or compaction: ${rewrites}`,
    );
    console.log(
      `share of each prompt repeating the start of an earlier request, turns 2–${TURNS_PER_STEP}: median ${percent(middle)} (≥ ${percent(TARGET)} ${middle >= TARGET ? 'met' : 'MISSED'}), lowest ${percent(lowest)}, highest ${percent(Math.max(...later))}`,
    );
    console.log(
      `  each step's first request (shares the system prompt, tools, instructions and task): lowest ${percent(Math.min(...first.slice(1)))}, median ${percent(median(first.slice(1)))}`,
    );
    console.log(
      `  by turn (median share, median prompt tokens): ${[...byTurn].map(([turn, shares]) => `${turn}: ${percent(median(shares))}, ${median(tokensByTurn.get(turn)!)}`).join('; ')}`,
    );
    console.log(`  requests that begin with the whole of their step's previous request: ${extended} of ${later.length} (the others must be rewrites)`);
    if (middle < TARGET) console.log(`  why: the median request from a step's second turn on repeated only ${percent(middle)} of an earlier request's start`);
    if (extended + rewrites < later.length)
      console.log(`  why: ${later.length - extended - rewrites} requests changed what their step had sent before without a pruning or compaction`);
    return ok;
  } finally {
    await server.close();
  }
}

runBenchmark('prompt cache', main);
