import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTurnServer, type TurnServer } from './cliWidth/turnServer';
import { median } from './support/median';
import { buildProductionCli, PRODUCTION_CLI as cli } from './support/productionCli';
import { runBenchmark } from './support/runBenchmark';

// Wide and long plans through the real CLI: `node dist/cli.js run` (the production bundles) in its
// own process against an endpoint on 127.0.0.1 that answers every request after LATENCY_MS
// (bench/cliWidth/turnServer.ts). Each step takes two turns: the model asks for read_file, then
// answers. Plans: a 50-step fan-out (one step, 48 in parallel, one that joins them) and three
// chains of 10, 20 and 33 steps each (33: three chains of 50 would exceed the 100 steps a plan may
// have). Measured in the same run, interleaved, the floor: bench/cliWidth/floorRunner.mjs, a plain
// node:http program making the same requests in the same dependency order with nothing else to do
// (with the system prompt and tool definitions Cortex sent in its run just before, so the bodies
// are as large).
//   steps:   from the plan's response to the aggregator's request (every step started, ran and
//            ended), divided by the critical path: longest chain x 2 turns x LATENCY_MS;
//   process: from spawn to exit, divided by the same bound plus the planner's and the
//            aggregator's turns.
// Targets, as ratios to the floor measured in the same run (each Cortex run divided by the floor
// run right after it, the median of ROUNDS such pairs): steps <= 1.10 for the fan-out and the
// chains; process <= 1.10 for the chains of 20 and 33 steps (for shorter plans the CLI's start is a
// large part of a short run). The figures of each side are printed too, and, where GNU time is
// installed (/usr/bin/time), each side's CPU seconds per run (user + system, all threads): a figure
// the machine's load moves far less than the wall-clock ratios.

const LATENCY_MS = 50;
const TURNS_PER_STEP = 2;
const ROUNDS = 5;
const floor = join(__dirname, 'cliWidth', 'floorRunner.mjs');
const GNU_TIME = '/usr/bin/time';

interface Shape {
  name: string;
  plan: { title: string; steps: string[]; dependencies: Record<string, number[]> };
  /** Steps on the longest chain. */
  depth: number;
  /** Cortex's steps figure ÷ the floor's, at most. */
  stepsTarget: number;
  /** Cortex's process figure ÷ the floor's, at most. */
  processTarget?: number;
}

function fanOut(n: number): Shape {
  const steps = Array.from({ length: n }, (_, i) =>
    i === 0 ? 'Read notes.txt to start' : i === n - 1 ? 'Read notes.txt to join the parts' : `Read notes.txt for part ${i}`,
  );
  const dependencies: Record<string, number[]> = {};
  for (let i = 1; i < n - 1; i++) dependencies[String(i)] = [0];
  dependencies[String(n - 1)] = Array.from({ length: n - 2 }, (_, i) => i + 1);
  return { name: `fan-out ${n} steps (${n - 2} in parallel)`, plan: { title: `fan-out ${n}`, steps, dependencies }, depth: 3, stepsTarget: 1.1 };
}

function chains(length: number, count: number, processTarget?: number): Shape {
  const steps: string[] = [];
  const dependencies: Record<string, number[]> = {};
  for (let c = 0; c < count; c++) {
    for (let k = 0; k < length; k++) {
      const index = steps.length;
      steps.push(`Read notes.txt for chain ${c}, link ${k}`);
      if (k > 0) dependencies[String(index)] = [index - 1];
    }
  }
  return {
    name: `${count} chains of ${length} steps`,
    plan: { title: `chains ${length}`, steps, dependencies },
    depth: length,
    stepsTarget: 1.1,
    processTarget,
  };
}

const SHAPES: Shape[] = [fanOut(50), chains(10, 3), chains(20, 3, 1.1), chains(33, 3, 1.1)];

interface Measured {
  steps: number;
  process: number;
  /** CPU seconds of the process (GNU time), when measured. */
  cpu?: number;
}

/** Runs Node with `args`; with `cpuFile`, under GNU time, which writes the CPU seconds used there. */
function runProcess(
  args: string[],
  env: NodeJS.ProcessEnv,
  cpuFile?: string,
): Promise<{ code: number | null; stdout: string; stderr: string; wallMs: number }> {
  return new Promise((resolvePromise, reject) => {
    const started = performance.now();
    const [command, commandArgs] = cpuFile ? [GNU_TIME, ['-f', '%U %S', '-o', cpuFile, process.execPath, ...args]] : [process.execPath, args];
    const child = spawn(command, commandArgs, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (text: string) => (stdout += text));
    child.stderr.setEncoding('utf8').on('data', (text: string) => (stderr += text));
    child.on('error', reject);
    child.on('exit', (code) => resolvePromise({ code, stdout, stderr, wallMs: performance.now() - started }));
  });
}

async function measure(who: 'cortex' | 'floor', shape: Shape, server: TurnServer, scratch: string, run: number): Promise<Measured> {
  server.reset(shape.plan);
  const workspace = join(scratch, 'workspace');
  const requestShape = join(scratch, 'request-shape.json');
  const env = { PATH: process.env.PATH, HOME: scratch, XDG_CACHE_HOME: join(scratch, 'cache') };
  const args =
    who === 'floor'
      ? [floor, server.baseUrl, workspace, requestShape]
      : [
          cli,
          'run',
          '--workspace',
          workspace,
          '--config',
          join(scratch, 'settings.json'),
          '--base-url',
          server.baseUrl,
          '--model',
          'bench-model',
          '--trace',
          join(scratch, `trace-${run}.jsonl`),
          '--memory',
          join(scratch, 'memory.json'),
          '--approve',
          'all',
          'Read the notes in every part.',
        ];
  const cpuFile = existsSync(GNU_TIME) ? join(scratch, 'cpu.txt') : undefined;
  const result = await runProcess(args, env, cpuFile);
  const times = server.times();
  const expectedRequests = shape.plan.steps.length * TURNS_PER_STEP;
  if (result.code !== 0 || result.stdout.trim() !== 'All steps are done.' || times.executorRequests !== expectedRequests || times.otherRequests !== 0) {
    throw new Error(
      `${who} on ${shape.name}: exit ${result.code}, ${times.executorRequests} executor requests (expected ${expectedRequests}), ${times.otherRequests} others, stdout ${JSON.stringify(result.stdout.slice(0, 200))}\n${result.stderr.slice(-2000)}`,
    );
  }
  if (who === 'cortex') writeFileSync(requestShape, JSON.stringify(times.requestShape));
  const stepsBound = shape.depth * TURNS_PER_STEP * LATENCY_MS;
  return { steps: (times.aggregatorAt! - times.planSentAt!) / stepsBound, process: result.wallMs / (stepsBound + 2 * LATENCY_MS), cpu: cpuSeconds(cpuFile) };
}

/** User + system seconds from GNU time's `%U %S` line (its last line). */
function cpuSeconds(cpuFile: string | undefined): number | undefined {
  if (!cpuFile) return undefined;
  const [user, system] = readFileSync(cpuFile, 'utf8').trim().split('\n').at(-1)!.split(' ').map(Number);
  return Number.isFinite(user) && Number.isFinite(system) ? user + system : undefined;
}

async function main(): Promise<boolean> {
  console.log('building the production CLI bundle…');
  buildProductionCli();
  const scratch = mkdtempSync(join(tmpdir(), 'cortex-width-bench-'));
  mkdirSync(join(scratch, 'workspace'));
  writeFileSync(join(scratch, 'workspace', 'notes.txt'), 'hello from the notes\n');
  // The plan is asked for whole (not streamed): the turn server answers the planner with one
  // completion, and the floor, like the steps figure, starts from the plan's end.
  writeFileSync(
    join(scratch, 'settings.json'),
    JSON.stringify({ 'cortex.execution.maxParallelSteps': 64, 'cortex.llm.maxRetries': 0, 'cortex.planning.stream': false }),
  );
  const server = await startTurnServer(LATENCY_MS);
  let ok = true;
  let run = 0;
  try {
    // Warm-up: the first start fills the CLI's compile cache, as any earlier use would have.
    await measure('cortex', SHAPES[1], server, scratch, run++);
    await measure('floor', SHAPES[1], server, scratch, run++);
    console.log(`latency ${LATENCY_MS} ms per turn, ${TURNS_PER_STEP} turns per step; median of ${ROUNDS} runs each, Cortex and the floor interleaved`);
    console.log(
      '  plan                                   steps ÷ floor         process ÷ floor        Cortex steps  floor steps  Cortex process  floor process',
    );
    for (const shape of SHAPES) {
      const cortex: Measured[] = [];
      const base: Measured[] = [];
      for (let r = 0; r < ROUNDS; r++) {
        cortex.push(await measure('cortex', shape, server, scratch, run++));
        base.push(await measure('floor', shape, server, scratch, run++));
      }
      // Paired: each Cortex run against the floor run right after it, under the same load.
      const stepsRatios = cortex.map((m, r) => m.steps / base[r].steps);
      const processRatios = cortex.map((m, r) => m.process / base[r].process);
      const steps = median(stepsRatios);
      const processRatio = median(processRatios);
      const stepsOk = steps <= shape.stepsTarget;
      const processOk = shape.processTarget === undefined || processRatio <= shape.processTarget;
      if (!stepsOk) ok = false;
      if (!processOk) ok = false;
      const spread = (values: number[]) => `${Math.min(...values).toFixed(2)}–${Math.max(...values).toFixed(2)}`;
      const stepsText = `${steps.toFixed(2)} (≤ ${shape.stepsTarget.toFixed(2)} ${stepsOk ? 'met' : 'MISSED'})`;
      const processText = `${processRatio.toFixed(2)}${shape.processTarget === undefined ? '' : ` (≤ ${shape.processTarget.toFixed(2)} ${processOk ? 'met' : 'MISSED'})`}`;
      console.log(
        `  ${shape.name.padEnd(38)} ${stepsText.padEnd(21)} ${processText.padEnd(22)} ${median(cortex.map((m) => m.steps))
          .toFixed(2)
          .padEnd(13)} ${median(base.map((m) => m.steps))
          .toFixed(2)
          .padEnd(12)} ${median(cortex.map((m) => m.process))
          .toFixed(2)
          .padEnd(15)} ${median(base.map((m) => m.process)).toFixed(2)}`,
      );
      console.log(`    spread of the ${ROUNDS} pairs: steps ÷ floor ${spread(stepsRatios)}, process ÷ floor ${spread(processRatios)}`);
      const cpu = (runs: Measured[]) => runs.map((m) => m.cpu).filter((seconds): seconds is number => seconds !== undefined);
      if (cpu(cortex).length === ROUNDS && cpu(base).length === ROUNDS)
        console.log(
          `    CPU per run (user + system): Cortex ${median(cpu(cortex)).toFixed(2)} s (${spread(cpu(cortex))}), floor ${median(cpu(base)).toFixed(2)} s (${spread(cpu(base))})`,
        );
      if (!stepsOk) console.log(`    why: Cortex's steps took ${steps.toFixed(2)} × the floor's, above ${shape.stepsTarget.toFixed(2)}`);
      if (!processOk) console.log(`    why: Cortex's whole process took ${processRatio.toFixed(2)} × the floor's, above ${shape.processTarget!.toFixed(2)}`);
    }
  } finally {
    await server.close();
    rmSync(scratch, { recursive: true, force: true });
  }
  return ok;
}

runBenchmark('cli width', main);
