// Scheduler benchmarks (docs/design.md, “Scheduling and parallelism”), on the real AgentRun:
//  A. Makespan vs the critical path: random DAGs of 20, 100 and 500 steps, a scripted model on
//     127.0.0.1 (real HTTP/SSE through the openai SDK) that answers every executor call after a
//     fixed latency. Ratio = time from the first step start to the last step end, divided by the
//     critical-path lower bound (longest chain × latency). Target ≤ 1.10 at 100 steps. The same
//     plans with maxParallelSteps 1 show the speedup; the ideal speedup is sum / critical path.
//  B. Core overhead: a 10,000-step plan with an instant in-process model; CPU time of the whole
//     run (scheduler + tool loop + reducer + events) per step. Target well under 1 ms.
import { AgentRun } from '../src/core/agent/agentRun';
import { parseConfig } from '../src/core/config/configSchema';
import type { ChatRequest, ChatResponse, LlmClient } from '../src/core/llm/llmTypes';
import { EventLog } from '../src/core/plan/eventLog';
import { ApprovalBroker } from '../src/core/policy/approvalBroker';
import { json, message, route } from '../test/support/scriptedReplies';
import { startScriptedServer } from '../test/support/scriptedServer';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { seededRandom as mulberry32 } from '../test/support/seededRandom';

const LATENCY_MS = 150;
let failures = 0;

/** A layered random DAG: each step depends on 1–2 steps from the previous few layers. */
function randomPlan(n: number, seed: number) {
  const random = mulberry32(seed);
  const layerSize = Math.max(2, Math.round(Math.sqrt(n) * 0.8));
  const dependencies: Record<string, number[]> = {};
  for (let i = layerSize; i < n; i++) {
    const layerStart = Math.floor(i / layerSize) * layerSize;
    const pool = Math.min(layerStart, layerSize * 2);
    const picks = new Set<number>();
    const count = 1 + Math.floor(random() * 2);
    for (let k = 0; k < count; k++) picks.add(layerStart - 1 - Math.floor(random() * pool));
    dependencies[String(i)] = [...picks];
  }
  const steps = Array.from({ length: n }, (_, i) => `Step number ${i} of the benchmark plan`);
  const depth = new Array<number>(n).fill(1);
  for (let i = 0; i < n; i++) for (const d of dependencies[String(i)] ?? []) depth[i] = Math.max(depth[i], depth[d] + 1);
  return { plan: { title: `bench ${n}`, steps, dependencies }, criticalPath: Math.max(...depth) };
}

async function makespan(n: number, maxParallelSteps: number) {
  const { plan, criticalPath } = randomPlan(n, 1000 + n);
  const server = await startScriptedServer(route({ planner: json(plan), executor: message('done', { delayMs: LATENCY_MS }), aggregator: message('ok') }));
  try {
    const log = new EventLog();
    const config = parseConfig({
      'cortex.llm.baseUrl': server.baseUrl,
      'cortex.llm.model': 'bench',
      'cortex.execution.maxParallelSteps': maxParallelSteps,
      'cortex.llm.maxRetries': 0,
    });
    const run = new AgentRun({
      task: 'bench',
      workspaceRoot: mkdtempSync(join(tmpdir(), 'cortex-bench-')),
      config,
      log,
      approvals: new ApprovalBroker(),
      trusted: true,
      maxPlanSteps: n,
    });
    const result = await run.start();
    if (result.status !== 'completed') throw new Error(`run ${result.status}: ${result.error}`);
    const times = log.events.filter((e) => e.type === 'step_status_changed');
    const first = Math.min(...times.filter((e) => e.status === 'in_progress').map((e) => e.time));
    const last = Math.max(...times.filter((e) => e.status === 'completed').map((e) => e.time));
    return { wall: last - first, bound: criticalPath * LATENCY_MS, sum: n * LATENCY_MS, criticalPath };
  } finally {
    await server.close();
  }
}

class InstantModel implements LlmClient {
  constructor(private readonly plan: unknown) {}
  async chat(request: ChatRequest): Promise<ChatResponse> {
    const content = request.purpose === 'planner' ? JSON.stringify(this.plan) : request.purpose === 'aggregator' ? 'ok' : 'done';
    return { content, toolCalls: [], droppedToolNames: [], finishReason: 'stop', requestedModel: 'instant', usedModel: 'instant', attempts: [], notes: [] };
  }
}

async function coreOverhead(n: number) {
  const dependencies: Record<string, number[]> = {};
  const random = mulberry32(7);
  for (let i = 1; i < n; i++) dependencies[String(i)] = [...new Set([Math.floor(random() * i), Math.floor(random() * i)])];
  const plan = { title: 'overhead', steps: Array.from({ length: n }, (_, i) => `step ${i}`), dependencies };
  const log = new EventLog();
  const config = parseConfig({ 'cortex.llm.baseUrl': 'http://127.0.0.1:9/v1', 'cortex.llm.model': 'instant', 'cortex.execution.maxParallelSteps': 8 });
  const run = new AgentRun({
    task: 'overhead',
    workspaceRoot: tmpdir(),
    config,
    log,
    approvals: new ApprovalBroker(),
    trusted: true,
    llm: new InstantModel(plan),
    maxPlanSteps: n,
  });
  const cpu0 = process.cpuUsage();
  const wall0 = performance.now();
  const result = await run.start();
  const cpu = process.cpuUsage(cpu0);
  if (result.status !== 'completed') throw new Error(`run ${result.status}: ${result.error}`);
  return { cpuMsPerStep: (cpu.user + cpu.system) / 1000 / n, wallMs: performance.now() - wall0, events: log.events.length };
}

async function main() {
  console.log(`A. makespan vs critical-path lower bound (latency ${LATENCY_MS} ms per executor call, maxParallelSteps 64)`);
  for (const n of [20, 100, 500]) {
    const r = await makespan(n, 64);
    const ratio = r.wall / r.bound;
    const target = n === 100 ? ' (target ≤ 1.10)' : '';
    const ok = n !== 100 || ratio <= 1.1;
    if (!ok) failures++;
    console.log(
      `  ${String(n).padStart(3)} steps: critical path ${r.criticalPath} steps, bound ${r.bound} ms, wall ${r.wall} ms, ratio ${ratio.toFixed(3)}${target} ${ok ? 'ok' : 'MISSED'}`,
    );
  }
  console.log('   speedup over maxParallelSteps 1 (ideal = sum / critical path):');
  for (const n of [20, 100]) {
    const parallel = await makespan(n, 64);
    const serial = await makespan(n, 1);
    console.log(
      `  ${String(n).padStart(3)} steps: serial ${serial.wall} ms, parallel ${parallel.wall} ms, speedup ${(serial.wall / parallel.wall).toFixed(2)}× (ideal ${(parallel.sum / parallel.bound).toFixed(2)}×)`,
    );
  }
  console.log('B. core overhead: 10,000-step plan, instant model, real AgentRun');
  const o = await coreOverhead(10_000);
  const ok = o.cpuMsPerStep < 1;
  if (!ok) failures++;
  console.log(
    `  CPU per step ${(o.cpuMsPerStep * 1000).toFixed(0)} µs (target < 1000 µs) ${ok ? 'ok' : 'MISSED'}; wall ${o.wallMs.toFixed(0)} ms; ${o.events} events`,
  );
  process.exit(failures ? 1 : 0);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
