import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { median } from './support/median';
import { buildProductionCli, PRODUCTION_CLI as cli } from './support/productionCli';
import { runBenchmark } from './support/runBenchmark';

// How fast the CLI starts (the production bundles, each start a fresh process):
//   `cortex --help` (dist/cli.js answers it without loading the agent) next to `node -e 0`, the
//   floor of any Node program; target: at most 2.5 x, median of ROUNDS interleaved starts. Both
//   the bundle started by Node directly and the `cortex` command as a user types it (the package's
//   bin, scripts/cortex, which execs Node in its own process) are held to it.
//   `cortex run` until its first request reaches a local endpoint, next to a plain node:http
//   program making the same first request (measured alongside, no target). The compile cache
//   lives in a scratch folder that one start fills first, as any earlier use would have.

const TARGET_HELP_RATIO = 2.5;
const ROUNDS = 15;
const RUN_ROUNDS = 7;

const BIN = join(__dirname, '..', 'scripts', 'cortex');

function wall(args: string[], env: NodeJS.ProcessEnv, command = process.execPath): number {
  const started = performance.now();
  const result = spawnSync(command, args, { env, encoding: 'utf8' });
  const ms = performance.now() - started;
  if (result.status !== 0) throw new Error(`${args.join(' ')} exited ${result.status}: ${result.stderr}`);
  return ms;
}

/**
 * Starts `args` and resolves with the ms until the endpoint's first request arrived, once the
 * process (stopped then) has exited, so the next start does not share the machine with it.
 */
function untilFirstRequest(args: string[], env: NodeJS.ProcessEnv, server: { next(): Promise<void> }, stop: NodeJS.Signals = 'SIGKILL'): Promise<number> {
  return new Promise((resolvePromise, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, args, { env, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (text: Buffer) => (stderr += text.toString('utf8')));
    let arrivedAfter: number | undefined;
    server.next().then(() => {
      arrivedAfter = performance.now() - started;
      child.kill(stop);
    }, reject);
    child.on('exit', (code) => {
      if (arrivedAfter === undefined) reject(new Error(`${args.join(' ')} exited ${code} before its first request: ${stderr.slice(-1000)}`));
      else resolvePromise(arrivedAfter);
    });
  });
}

/** An endpoint that notes each request's arrival and never answers (the process is stopped then). */
async function listeningEndpoint(): Promise<{ baseUrl: string; next(): Promise<void>; close(): Promise<void> }> {
  let waiting: (() => void) | undefined;
  const server = http.createServer((req) => {
    req.resume();
    waiting?.();
    waiting = undefined;
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    next: () => new Promise<void>((done) => (waiting = done)),
    close: () =>
      new Promise<void>((done) => {
        server.closeAllConnections();
        server.close(() => done());
      }),
  };
}

async function main(): Promise<boolean> {
  console.log('building the production CLI bundles…');
  buildProductionCli();
  const scratch = mkdtempSync(join(tmpdir(), 'cortex-start-bench-'));
  const env = { PATH: process.env.PATH, HOME: scratch, XDG_CACHE_HOME: join(scratch, 'cache') };
  let ok: boolean;
  const endpoint = await listeningEndpoint();
  try {
    const help = wall([cli, '--help'], env); // fills the compile cache
    const helpTimes: number[] = [];
    const nodeTimes: number[] = [];
    const binTimes: number[] = [];
    for (let i = 0; i < ROUNDS; i++) {
      nodeTimes.push(wall(['-e', '0'], env));
      helpTimes.push(wall([cli, '--help'], env));
      binTimes.push(wall(['--help'], env, BIN));
    }
    const ratio = median(helpTimes) / median(nodeTimes);
    const binRatio = median(binTimes) / median(nodeTimes);
    ok = ratio <= TARGET_HELP_RATIO && binRatio <= TARGET_HELP_RATIO;
    console.log(
      `cortex --help ${median(helpTimes).toFixed(1)} ms (first start, filling the cache: ${help.toFixed(1)} ms), node -e 0 ${median(nodeTimes).toFixed(1)} ms (median of ${ROUNDS}, interleaved)`,
    );
    console.log(`  ratio ${ratio.toFixed(2)} (target <= ${TARGET_HELP_RATIO}): ${ratio <= TARGET_HELP_RATIO ? 'met' : 'MISSED'}`);
    console.log(
      `the cortex command (bin) --help ${median(binTimes).toFixed(1)} ms: ratio ${binRatio.toFixed(2)} (target <= ${TARGET_HELP_RATIO}): ${binRatio <= TARGET_HELP_RATIO ? 'met' : 'MISSED'}`,
    );

    const workspace = join(scratch, 'workspace');
    mkdirSync(workspace);
    writeFileSync(join(workspace, 'notes.txt'), 'hello\n');
    const runArgs = [
      cli,
      'run',
      '--workspace',
      workspace,
      '--base-url',
      endpoint.baseUrl,
      '--model',
      'bench-model',
      '--memory',
      join(scratch, 'memory.json'),
      'Read the notes.',
    ];
    // Only the floor's first request (the planner's) is timed here, so the shape of its step
    // requests does not matter; it still reads the file, as it does in the width benchmark.
    const requestShape = join(scratch, 'request-shape.json');
    writeFileSync(requestShape, JSON.stringify({ system: 'You carry out one step of a plan.', tools: [] }));
    const floorArgs = [join(__dirname, 'cliWidth', 'floorRunner.mjs'), endpoint.baseUrl, workspace, requestShape];
    // Warm-up, ended the way Ctrl-C ends a run: the agent's bundles and the tokenizer are compiled and cached.
    for (let i = 0; i < 2; i++) await untilFirstRequest(runArgs, env, endpoint, 'SIGINT');
    const runTimes: number[] = [];
    const floorTimes: number[] = [];
    for (let i = 0; i < RUN_ROUNDS; i++) {
      floorTimes.push(await untilFirstRequest(floorArgs, env, endpoint));
      runTimes.push(await untilFirstRequest(runArgs, env, endpoint));
    }
    console.log(
      `cortex run until its first request ${median(runTimes).toFixed(1)} ms; a plain node:http program ${median(floorTimes).toFixed(1)} ms (median of ${RUN_ROUNDS}, measured alongside)`,
    );
  } finally {
    await endpoint.close();
    rmSync(scratch, { recursive: true, force: true });
  }
  return ok;
}

runBenchmark('cli start', main);
