// Core overhead with an instant model: what the plan model itself costs per step.
// A 10,000-step sparse random DAG (~2 dependencies per step) is built through the real operations
// and EventLog, then:
//  1. getDownstreamSteps from the root: PlanGraph (index build + O(V+E) walk) against the naive
//     rescanning walk (naiveDownstream), both timed here on the same plan. Target < 5 ms.
//  2. a simulated run: every step goes in_progress → tool_call_requested → tool_call_completed →
//     step_output → step_verified → completed through the builders and the step-end rule the agent
//     uses, and the reducer, scheduled by the agent's ReadyQueue. Baseline: the same run with a
//     full ready-set rescan after every completion. Target < 1 ms of CPU per step.
import { ReadyQueue } from '../src/core/agent/readyQueue';
import { stepEndEvents } from '../src/core/agent/stepJudgement';
import { EventLog } from '../src/core/plan/eventLog';
import { PlanGraph } from '../src/core/plan/planGraph';
import { addStepsEvents, addToolCallEvent, startStepEvent, StepIdAllocator, updateToolResultEvent } from '../src/core/plan/planOperations';
import type { PlanState } from '../src/core/plan/planTypes';
import { seededRandom as mulberry32 } from '../test/support/seededRandom';
import { dependencyMap, naiveDownstream } from '../test/support/naiveDownstream';

const STEPS = 10_000;
const DOWNSTREAM_TARGET_MS = 5;
const PER_STEP_TARGET_US = 1_000;

function gc(): void {
  (globalThis as { gc?: () => void }).gc?.();
}

function cpuMs(from: NodeJS.CpuUsage, to: NodeJS.CpuUsage): number {
  return (to.user - from.user + to.system - from.system) / 1000;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

/** Relative dependencies of a sparse random DAG: each step depends on up to 2 earlier steps. */
function randomDag(n: number, seed: number): Record<number, number[]> {
  const random = mulberry32(seed);
  const deps: Record<number, number[]> = {};
  for (let i = 1; i < n; i++) {
    const picks = new Set<number>([Math.floor(random() * i)]);
    if (i > 1) picks.add(Math.floor(random() * i));
    deps[i] = [...picks];
  }
  return deps;
}

function buildPlan(): { log: EventLog; buildMs: number } {
  const log = new EventLog({ now: () => 0 });
  const ids = new StepIdAllocator();
  const start = performance.now();
  const events = addStepsEvents(log.state, {
    descriptions: Array.from({ length: STEPS }, (_, i) => `step ${i}`),
    dependencies: randomDag(STEPS, 20_260_126),
    anchorDeps: [],
    origin: 'planner',
    newId: () => ids.next(),
  });
  for (const event of events) log.append(event);
  return { log, buildMs: performance.now() - start };
}

/** The baseline's ready set: every step rescanned (not started, all dependencies completed). */
function rescanReady(state: PlanState): string[] {
  return state.stepOrder.filter((id) => {
    const step = state.steps.get(id)!;
    return step.status === 'not_started' && step.dependsOn.every((dep) => state.steps.get(dep)?.status === 'completed');
  });
}

/** Runs every step with one answered tool call; returns CPU µs per step. */
function simulateRun(log: EventLog, scheduler: 'queue' | 'rescan'): { cpuUsPerStep: number; wallMs: number } {
  const state = log.state;
  gc();
  const cpuStart = process.cpuUsage();
  const wallStart = performance.now();
  let completed = 0;
  const runOne = (stepId: string) => {
    log.append(startStepEvent(state, stepId));
    const callId = `call_${stepId}`;
    log.append(addToolCallEvent(state, stepId, { id: callId, name: 'write_file', arguments: '{"path":"a.txt","content":"x"}' }));
    log.append(updateToolResultEvent(state, stepId, callId, { result: 'File written' }));
    for (const event of stepEndEvents(state, stepId, { kind: 'loop', outcome: { output: 'written', endReason: 'answered' } }).events) log.append(event);
    if (state.steps.get(stepId)!.status !== 'completed') throw new Error(`step ${stepId} unexpectedly failed verification`);
    completed++;
  };
  if (scheduler === 'queue') {
    const queue = new ReadyQueue(state);
    const unsubscribe = log.subscribe((event) => queue.observe(event));
    const running = new Set<string>();
    for (let ready = queue.ready(running); ready.length > 0; ready = queue.ready(running)) runOne(ready[0]);
    unsubscribe();
  } else {
    for (let ready = rescanReady(state); ready.length > 0; ready = rescanReady(state)) runOne(ready[0]);
  }
  const cpu = process.cpuUsage(cpuStart);
  const wallMs = performance.now() - wallStart;
  if (completed !== STEPS) throw new Error(`only ${completed} of ${STEPS} steps ran`);
  return { cpuUsPerStep: (cpu.user + cpu.system) / STEPS, wallMs };
}

function main(): number {
  let failed = false;
  const { log, buildMs } = buildPlan();
  const edges = log.state.stepOrder.reduce((sum, id) => sum + log.state.steps.get(id)!.dependsOn.length, 0);
  console.log(`plan: ${STEPS} steps, ${edges} dependencies, built through addStepsEvents + EventLog in ${buildMs.toFixed(1)} ms`);

  // 1. downstream of the root (it reaches almost every step: the worst case).
  const root = log.state.stepOrder[0];
  // CPU time (process.cpuUsage) rather than wall time: the machine is shared, and being
  // descheduled is not the algorithm's cost. Wall-clock medians are printed alongside.
  const fastCpu: number[] = [];
  const fastWall: number[] = [];
  const walkCpu: number[] = [];
  let fast: string[] = [];
  gc();
  for (let i = 0; i < 41; i++) {
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    const graph = PlanGraph.fromState(log.state);
    const c1 = process.cpuUsage();
    fast = graph.downstream(root);
    const c2 = process.cpuUsage();
    fastWall.push(performance.now() - t0);
    fastCpu.push(cpuMs(c0, c2));
    walkCpu.push(cpuMs(c1, c2));
  }
  const naiveCpu: number[] = [];
  let naive: string[] = [];
  for (let i = 0; i < 3; i++) {
    gc();
    const c0 = process.cpuUsage();
    naive = naiveDownstream(dependencyMap(log.state), root);
    naiveCpu.push(cpuMs(c0, process.cpuUsage()));
  }
  if (JSON.stringify(fast) !== JSON.stringify(naive)) {
    console.log('MISMATCH: PlanGraph.downstream and naiveDownstream disagree');
    failed = true;
  }
  const downstreamMs = median(fastCpu);
  const naiveMs = median(naiveCpu);
  const downstreamOk = downstreamMs < DOWNSTREAM_TARGET_MS;
  console.log(`\ngetDownstreamSteps(root) → ${fast.length} steps`);
  console.log(
    `  PlanGraph.fromState + downstream: ${downstreamMs.toFixed(2)} ms CPU, median of 41 (wall ${median(fastWall).toFixed(2)} ms; the walk alone on a built graph ${median(walkCpu).toFixed(2)} ms)`,
  );
  console.log(`  baseline, naive rescanning walk (naiveDownstream): ${naiveMs.toFixed(1)} ms CPU, median of 3`);
  console.log(`  speed-up: ${(naiveMs / downstreamMs).toFixed(0)}x`);
  console.log(`  target < ${DOWNSTREAM_TARGET_MS} ms: ${downstreamOk ? 'met' : 'MISSED'}`);
  failed ||= !downstreamOk;

  // 2. simulated run, ReadyQueue vs rescan, each on a fresh copy of the plan.
  const tracked = simulateRun(buildPlan().log, 'queue');
  const rescanned = simulateRun(buildPlan().log, 'rescan');
  const runOk = tracked.cpuUsPerStep < PER_STEP_TARGET_US;
  console.log(`\nsimulated run, ${STEPS} steps × 6 events (operations + reducer + scheduling), instant model`);
  console.log(`  ReadyQueue scheduler: ${tracked.cpuUsPerStep.toFixed(1)} µs CPU per step (${tracked.wallMs.toFixed(0)} ms wall)`);
  console.log(
    `  baseline, full ready-set rescan per completion: ${rescanned.cpuUsPerStep.toFixed(1)} µs CPU per step (${rescanned.wallMs.toFixed(0)} ms wall)`,
  );
  console.log(`  ratio: ${(rescanned.cpuUsPerStep / tracked.cpuUsPerStep).toFixed(1)}x`);
  console.log(`  target < ${PER_STEP_TARGET_US} µs per step: ${runOk ? 'met' : 'MISSED'}`);
  failed ||= !runOk;
  return failed ? 1 : 0;
}

process.exit(main());
