// Streamed planning (docs/design.md, “The planner”), on the real AgentRun against the scripted
// server (real HTTP and SSE through the openai SDK): a realistic planner — first token after
// 400 ms, then 50 tokens/s (a token taken as 4 characters) — writes a 12-step plan of 3 independent
// chains of 4 steps; every executor turn takes 1 s. Measured with cortex.planning.stream on and off
// in the same run:
//  - the first step's first executor request, from the moment the server wrote the last
//    character of that step's entry. Target: within 100 ms.
//  - the whole run's wall time. Target: streamed ≤ 0.8 × not streamed.
// Both plan orders a planner may write are measured: breadth first (the chains' first steps, then
// their second steps…) and chain by chain; the target is the breadth-first one (see bench/README.md).
// A redesign that streams (docs/design.md, “The replanner”) is measured the same way, without a
// target: a one-step plan whose step fails its check, and a replanner as fast as the planner
// writing 6 new steps in 3 chains of 2, breadth first.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { AgentRun } from '../src/core/agent/agentRun';
import { parseConfig } from '../src/core/config/configSchema';
import { EventLog } from '../src/core/plan/eventLog';
import { ApprovalBroker } from '../src/core/policy/approvalBroker';
import { message, route } from '../test/support/scriptedReplies';
import { startScriptedServer, type MessageReply, type ScriptedRequest } from '../test/support/scriptedServer';

const FIRST_TOKEN_MS = 400;
const CHARS_PER_TOKEN = 4;
const TOKENS_PER_SECOND = 50;
const TURN_MS = 1000;
const CHAINS = 3;
const CHAIN_LENGTH = 4;

type Order = 'breadth first' | 'chain by chain';

/** The plan a planner writes for 3 independent chains of 4 steps, in the given order. */
function planText(order: Order): { text: string; firstEntryEnd: number } {
  const cells: Array<{ chain: number; link: number }> = [];
  if (order === 'chain by chain') for (let c = 0; c < CHAINS; c++) for (let l = 0; l < CHAIN_LENGTH; l++) cells.push({ chain: c, link: l });
  else for (let l = 0; l < CHAIN_LENGTH; l++) for (let c = 0; c < CHAINS; c++) cells.push({ chain: c, link: l });
  const index = (chain: number, link: number) => cells.findIndex((cell) => cell.chain === chain && cell.link === link);
  const modules = ['parser', 'renderer', 'exporter'];
  const actions = ['Read the current', 'Refactor the', 'Add unit tests for the', 'Document the'];
  const steps = cells.map(({ chain, link }) => ({
    description: `${actions[link]} ${modules[chain]} module in src/${modules[chain]}.ts and report what changed`,
    dependsOn: link === 0 ? [] : [index(chain, link - 1)],
    expects: [],
  }));
  const text = JSON.stringify({ title: 'Refactor the parser, renderer and exporter modules', steps });
  const firstStep = JSON.stringify(steps[0]);
  return { text, firstEntryEnd: text.indexOf(firstStep) + firstStep.length };
}

interface Measure {
  wallMs: number;
  /** First executor request of s1 after its entry's last character was written by the server. */
  firstRequestAfterEntryMs: number;
}

/**
 * A reply written at a realistic model's pace (first token after 400 ms, then 50 tokens/s), with
 * the moment the last character of its first entry was written. Not streamed, the reply is sent
 * whole after the same timer waits, one per token, so both runs' models take the same time.
 */
function realisticReply(text: string, firstEntryEnd: number) {
  let written = 0;
  let entryWrittenAt = 0;
  const streamed: MessageReply = {
    kind: 'message',
    content: text,
    delayMs: FIRST_TOKEN_MS,
    fragmentSize: CHARS_PER_TOKEN,
    chunkDelayMs: 1000 / TOKENS_PER_SECOND,
    onChunkWritten: (chunk) => {
      written += (chunk.choices as Array<{ delta?: { content?: string } }> | undefined)?.[0]?.delta?.content?.length ?? 0;
      if (!entryWrittenAt && written >= firstEntryEnd) entryWrittenAt = performance.now();
    },
  };
  return {
    handler: async (req: ScriptedRequest): Promise<MessageReply> => {
      if (req.stream) return streamed;
      await sleep(FIRST_TOKEN_MS);
      for (let at = 0; at < text.length; at += CHARS_PER_TOKEN) {
        await sleep(1000 / TOKENS_PER_SECOND);
        if (!entryWrittenAt && at + CHARS_PER_TOKEN >= firstEntryEnd) entryWrittenAt = performance.now();
      }
      return message(text);
    },
    entryWrittenAt: () => entryWrittenAt,
  };
}

/** The real AgentRun of `task` against `baseUrl`, streaming its plans or not; its wall time. */
async function timedRun(baseUrl: string, task: string, stream: boolean): Promise<number> {
  const config = parseConfig({ 'cortex.llm.baseUrl': baseUrl, 'cortex.llm.model': 'bench', 'cortex.llm.maxRetries': 0, 'cortex.planning.stream': stream });
  const run = new AgentRun({
    task,
    workspaceRoot: mkdtempSync(join(tmpdir(), 'cortex-bench-planstream-')),
    config,
    log: new EventLog(),
    approvals: new ApprovalBroker(),
    trusted: true,
  });
  const started = performance.now();
  const result = await run.start();
  const wallMs = performance.now() - started;
  if (result.status !== 'completed') throw new Error(`run ${result.status}: ${result.error}`);
  return wallMs;
}

async function measure(order: Order, stream: boolean): Promise<Measure> {
  const { text, firstEntryEnd } = planText(order);
  const planner = realisticReply(text, firstEntryEnd);
  let firstRequestAt = 0;
  const server = await startScriptedServer(
    route({
      planner: planner.handler,
      executor: (req: ScriptedRequest) => {
        if (req.stepId === 's1' && !firstRequestAt) firstRequestAt = performance.now();
        return message('Done: nothing else to report.', { delayMs: TURN_MS });
      },
      aggregator: message('All three modules were refactored.'),
    }),
  );
  try {
    const wallMs = await timedRun(server.baseUrl, 'Refactor the parser, renderer and exporter modules', stream);
    return { wallMs, firstRequestAfterEntryMs: firstRequestAt - planner.entryWrittenAt() };
  } finally {
    await server.close();
  }
}

/** The replanner's reply: 6 new steps in 3 independent chains of 2, written breadth first. */
function redesignText(): { text: string; firstEntryEnd: number } {
  const modules = ['parser', 'renderer', 'exporter'];
  const steps = [0, 1].flatMap((link) =>
    modules.map((module, chain) => ({
      description: `${link === 0 ? 'Write the release notes section for the' : 'Proofread the release notes section for the'} ${module} module in NOTES.md`,
      dependsOn: link === 0 ? [] : [chain],
      uses: [],
      expects: [],
    })),
  );
  const text = JSON.stringify({ action: 'redesign', reason: 'the notes were never written', new_steps: steps });
  const firstStep = JSON.stringify(steps[0]);
  return { text, firstEntryEnd: text.indexOf(firstStep) + firstStep.length };
}

async function measureReplan(stream: boolean): Promise<Measure> {
  const { text, firstEntryEnd } = redesignText();
  const replanner = realisticReply(text, firstEntryEnd);
  let firstRequestAt = 0;
  const plan = { title: 'Release notes', steps: [{ description: 'Write the release notes to NOTES.md', dependsOn: [], expects: [{ changed: 'NOTES.md' }] }] };
  const server = await startScriptedServer(
    route({
      planner: message(JSON.stringify(plan)),
      replanner: replanner.handler,
      executor: (req: ScriptedRequest) => {
        // s1 claims the notes without writing them: its check fails and it is redesigned (s2 is the first new step).
        if (req.stepId === 's2' && !firstRequestAt) firstRequestAt = performance.now();
        return message('Done: nothing else to report.', { delayMs: TURN_MS });
      },
      aggregator: message('The release notes were written.'),
    }),
  );
  try {
    const wallMs = await timedRun(server.baseUrl, 'Write the release notes', stream);
    return { wallMs, firstRequestAfterEntryMs: firstRequestAt - replanner.entryWrittenAt() };
  } finally {
    await server.close();
  }
}

async function main() {
  let failures = 0;
  const ms = (n: number) => `${Math.round(n)} ms`;
  console.log(
    `streamed plan: 12 steps in ${CHAINS} independent chains, planner ${FIRST_TOKEN_MS} ms to the first token then ${TOKENS_PER_SECOND} tokens/s, executor turns ${TURN_MS} ms`,
  );
  for (const order of ['breadth first', 'chain by chain'] as const) {
    const off = await measure(order, false);
    const on = await measure(order, true);
    const ratio = on.wallMs / off.wallMs;
    const targeted = order === 'breadth first';
    const latencyOk = on.firstRequestAfterEntryMs <= 100;
    const ratioOk = ratio <= 0.8;
    if (targeted && !(latencyOk && ratioOk)) failures++;
    const mark = (ok: boolean) => (targeted ? (ok ? ' ok' : ' MISSED') : '');
    console.log(`  plan written ${order}${targeted ? '' : ' (no target: shown for comparison)'}:`);
    console.log(
      `    first step's first executor request after its entry was complete: ${ms(on.firstRequestAfterEntryMs)}${targeted ? ' (target ≤ 100 ms)' : ''}${mark(latencyOk)}; not streamed: ${ms(off.firstRequestAfterEntryMs)} (it waits for the rest of the plan)`,
    );
    console.log(
      `    whole run: ${ms(on.wallMs)} streamed, ${ms(off.wallMs)} not streamed: ratio ${ratio.toFixed(2)}${targeted ? ' (target ≤ 0.80)' : ''}${mark(ratioOk)}`,
    );
  }
  const off = await measureReplan(false);
  const on = await measureReplan(true);
  console.log(`  a redesign of 6 steps in 3 chains of 2, written breadth first (no target):`);
  console.log(
    `    first redesigned step's first executor request after its entry was complete: ${ms(on.firstRequestAfterEntryMs)}; not streamed: ${ms(off.firstRequestAfterEntryMs)}`,
  );
  console.log(`    whole run: ${ms(on.wallMs)} streamed, ${ms(off.wallMs)} not streamed: ratio ${(on.wallMs / off.wallMs).toFixed(2)}`);
  process.exit(failures ? 1 : 0);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
