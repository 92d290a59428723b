import { build } from 'esbuild';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { aiSdkClient, cortexClient, floorClient, openAiStreamClient, type Assembled, type Contender } from './streaming/contenders';
import { buildRecording, type Recording } from './streaming/recording';
import { median } from './support/median';
import { runBenchmark } from './support/runBenchmark';
import type { createOpenAiClient } from '../src/core/llm/openAiClient';

// CPU cost of reading one streamed chat completion, whole client included (request, HTTP, SSE
// decoding, JSON, assembling the tool calls). One recorded OpenAI-shaped stream (542 events,
// 186 KB: a sentence and three parallel tool calls) is served from a separate process on
// 127.0.0.1 (bench/streaming/sseServer.mjs), in two read modes: 16 KiB network reads, and one
// SSE event per read (how live providers stream). Contenders, interleaved in this one process:
//   floor     node:http, decode, split lines, one JSON.parse per line (assembles nothing);
//   cortex    src/core/llm/openAiClient.ts, as the agent uses it;
//   openai    the openai SDK's ChatCompletionStream (finalChatCompletion);
//   ai-sdk    @ai-sdk/openai-compatible's doStream.
// Cortex's client is bundled first (esbuild, as for the CLI and the extension) and loaded from the
// bundle: it runs its own copy of the openai SDK, as it does when shipped, rather than sharing one
// (and the engine's optimisations of it, tuned to another caller) with the openai contender.
// Every contender's ids, names, arguments and text must equal the recording's byte for byte.
// CPU time (process.cpuUsage: all threads, GC included) of a round of concurrent requests, the
// median over rounds of each ratio. The order of the contenders rotates every round, and the
// number of rounds is a multiple of their number: each runs as often first as last (what ran
// before leaves work behind, collected garbage or compiled code, that the next one pays for).
// Targets in both modes: cortex <= 0.7 x openai, <= 2 x floor.

const MAX_VS_OPENAI = 0.7;
const MAX_VS_FLOOR = 2;

interface Mode {
  name: string;
  path: string;
  concurrency: number;
  /** Requests each concurrent lane makes in a row per round. */
  perLane: number;
  rounds: number;
}

const MODES: Mode[] = [
  { name: '16 KiB reads', path: 'reads16k', concurrency: 16, perLane: 12, rounds: 8 },
  { name: 'one event per read', path: 'events', concurrency: 16, perLane: 1, rounds: 4 },
];

let CONTENDERS: Array<{ name: string; client: Contender }> = [];

/** Cortex's client from a bundle of src/core/llm/openAiClient.ts made in `scratch`. */
async function bundledCortexClient(scratch: string): Promise<typeof createOpenAiClient> {
  const outfile = join(scratch, 'openAiClient.cjs');
  await build({
    entryPoints: [join(__dirname, '..', 'src', 'core', 'llm', 'openAiClient.ts')],
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node22',
    outfile,
    logLevel: 'warning',
  });
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- the bundle made just now
  return (require(outfile) as { createOpenAiClient: typeof createOpenAiClient }).createOpenAiClient;
}

async function startServer(recordingFile: string): Promise<{ port: number; child: ChildProcess }> {
  const child = spawn(process.execPath, [join(__dirname, 'streaming', 'sseServer.mjs'), recordingFile], { stdio: ['ignore', 'pipe', 'inherit', 'ipc'] });
  const lines = createInterface({ input: child.stdout! });
  const port = await new Promise<number>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`the SSE server exited (${code}) before listening`)));
    lines.on('line', (line) => {
      const match = /^PORT (\d+)$/.exec(line);
      if (match) resolve(Number(match[1]));
    });
  });
  return { port, child };
}

function check(name: string, got: Assembled, recording: Recording): void {
  if (name === 'floor') {
    const expected = recording.events.length - 1;
    if (got.events !== expected) throw new Error(`floor parsed ${got.events} events, expected ${expected}`);
    return;
  }
  const want = JSON.stringify({ content: recording.content, calls: recording.calls });
  const have = JSON.stringify({ content: got.content, calls: got.calls });
  if (want !== have) throw new Error(`${name} assembled something else than the recording:\n  got  ${have.slice(0, 400)}\n  want ${want.slice(0, 400)}`);
}

/** CPU ms of one round: `concurrency` lanes, each making `perLane` requests in a row. */
async function round(client: Contender, baseUrl: string, mode: Mode, results: Assembled[]): Promise<number> {
  const started = process.cpuUsage();
  await Promise.all(
    Array.from({ length: mode.concurrency }, async () => {
      for (let i = 0; i < mode.perLane; i++) results.push(await client(baseUrl));
    }),
  );
  const used = process.cpuUsage(started);
  return (used.user + used.system) / 1000;
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Collects the garbage of whoever ran before, so the next measured round is not charged for it. */
async function settle(): Promise<void> {
  (globalThis as { gc?: () => void }).gc?.();
  await pause(150);
}

async function measureMode(mode: Mode, port: number, recording: Recording): Promise<boolean> {
  const baseUrl = `http://127.0.0.1:${port}/${mode.path}/v1`;
  const requests = mode.concurrency * mode.perLane;
  console.log(`${mode.name}: ${mode.rounds} rounds of ${requests} requests (${mode.concurrency} at a time), contenders interleaved`);
  // Warm-up (and the correctness check of every contender).
  for (const { name, client } of CONTENDERS) {
    const results: Assembled[] = [];
    await round(client, baseUrl, { ...mode, perLane: 1 }, results);
    for (const result of results) check(name, result, recording);
  }
  const cpu = new Map<string, number[]>(CONTENDERS.map((c) => [c.name, []]));
  const ratios = { openai: [] as number[], floor: [] as number[], aiSdk: [] as number[] };
  let reads = 0;
  for (let r = 0; r < mode.rounds; r++) {
    const order = CONTENDERS.map((_, i) => CONTENDERS[(i + r) % CONTENDERS.length]);
    const times = new Map<string, number>();
    for (const { name, client } of order) {
      await settle();
      const results: Assembled[] = [];
      const ms = await round(client, baseUrl, mode, results);
      for (const result of results) check(name, result, recording);
      if (name === 'floor') reads = results.reduce((sum, x) => sum + (x.reads ?? 0), 0) / results.length;
      times.set(name, ms);
      cpu.get(name)!.push(ms / requests);
    }
    ratios.openai.push(times.get('cortex')! / times.get('openai')!);
    ratios.floor.push(times.get('cortex')! / times.get('floor')!);
    ratios.aiSdk.push(times.get('cortex')! / times.get('ai-sdk')!);
  }
  const eventsPerRead = (recording.events.length / reads).toFixed(2);
  console.log(`  network reads per response (seen by the floor): ${reads.toFixed(0)}, ${eventsPerRead} events per read`);
  for (const { name } of CONTENDERS) console.log(`  ${name.padEnd(7)} ${median(cpu.get(name)!).toFixed(3).padStart(7)} ms CPU per response (median round)`);
  const vsOpenai = median(ratios.openai);
  const vsFloor = median(ratios.floor);
  const okOpenai = vsOpenai <= MAX_VS_OPENAI;
  const okFloor = vsFloor <= MAX_VS_FLOOR;
  console.log(`  cortex / floor per round: ${ratios.floor.map((r) => r.toFixed(2)).join(' ')}`);
  console.log(`  cortex / openai ChatCompletionStream = ${vsOpenai.toFixed(2)} (target <= ${MAX_VS_OPENAI}): ${okOpenai ? 'met' : 'MISSED'}`);
  console.log(`  cortex / floor (decode + split + JSON.parse) = ${vsFloor.toFixed(2)} (target <= ${MAX_VS_FLOOR}): ${okFloor ? 'met' : 'MISSED'}`);
  console.log(`  cortex / @ai-sdk/openai-compatible = ${median(ratios.aiSdk).toFixed(2)} (measured alongside, no target)`);
  return okOpenai && okFloor;
}

async function main(): Promise<boolean> {
  const recording = buildRecording();
  const scratch = mkdtempSync(join(tmpdir(), 'cortex-streaming-bench-'));
  const file = join(scratch, 'recording.sse');
  writeFileSync(file, recording.body);
  CONTENDERS = [
    { name: 'floor', client: floorClient() },
    { name: 'cortex', client: cortexClient(await bundledCortexClient(scratch)) },
    { name: 'openai', client: openAiStreamClient() },
    { name: 'ai-sdk', client: aiSdkClient() },
  ];
  const { port, child } = await startServer(file);
  let ok = true;
  try {
    console.log(
      `recording: ${recording.events.length} events, ${(recording.body.length / 1024).toFixed(0)} KiB, ${recording.calls.length} tool calls; server on 127.0.0.1:${port} in its own process`,
    );
    for (const mode of MODES) ok = (await measureMode(mode, port, recording)) && ok;
  } finally {
    child.kill();
    rmSync(scratch, { recursive: true, force: true });
  }
  return ok;
}

runBenchmark('streaming', main);
