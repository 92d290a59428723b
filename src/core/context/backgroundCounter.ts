import { existsSync } from 'node:fs';
import { getCompileCacheDir } from 'node:module';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';

// Token counts made on a worker thread (tokenCountWorker.ts). Loading the tokenizer's tables takes
// about 100 ms of CPU and counting a long prompt a few more: on the run's own thread that time
// would hold up every step; on a worker it overlaps with the requests in flight. Without a worker
// (no worker script next to this module, or the worker failed) the texts are counted here, after
// the current turn of the event loop, with the same result.

type Counter = (texts: readonly string[]) => number[];

interface Channel {
  worker: Worker;
  /** Who waits for each request's counts. */
  pending: Map<number, (counts: number[]) => void>;
  nextId: number;
}

/**
 * One worker per process, shared by every copy of this module: the CLI's entry starts it before
 * the agent's own bundle (which has its own copy of this module) has even loaded.
 */
const SHARED = Symbol.for('cortex.tokenCountWorker');
type Shared = { channel?: Channel | null };
const shared = ((globalThis as Record<symbol, Shared | undefined>)[SHARED] ??= {});

/** The worker's script: the bundle next to this one, or the TypeScript source in development. */
function workerScript(): string | undefined {
  for (const name of ['tokenCountWorker.js', 'tokenCountWorker.ts']) {
    const path = join(__dirname, name);
    if (existsSync(path)) return path;
  }
  return undefined;
}

/**
 * Starts the worker (once per process), on the first count: that is the planner's prompt, counted
 * while it travels, so the tokenizer loads while the planner thinks. Started with the process
 * instead, its loading took the CPU the agent's own start needed (the planner's request went out
 * 20–70 ms later).
 */
function startBackgroundCounter(): void {
  if (shared.channel !== undefined) return;
  const script = workerScript();
  if (!script) {
    shared.channel = null;
    return;
  }
  let worker: Worker;
  try {
    worker = new Worker(script, { stdout: false, stderr: false, workerData: { compileCacheDir: getCompileCacheDir() } });
  } catch {
    shared.channel = null;
    return;
  }
  const channel: Channel = { worker, pending: new Map(), nextId: 1 };
  shared.channel = channel;
  // An idle worker never keeps the process alive.
  worker.unref();
  worker.on('message', (reply: { id: number; counts?: number[] }) => {
    const resolve = channel.pending.get(reply.id);
    if (!resolve) return;
    channel.pending.delete(reply.id);
    if (channel.pending.size === 0) worker.unref();
    resolve(reply.counts ?? []);
  });
  const fail = (): void => {
    if (shared.channel === channel) shared.channel = null;
    const orphans = [...channel.pending.values()];
    channel.pending.clear();
    for (const resolve of orphans) resolve([]);
  };
  worker.on('error', fail);
  worker.on('exit', fail);
  // Warm up: the tables load now, not on the first real count.
  post(channel, ['warm up'], () => undefined);
}

/** What this process has asked of the background counter so far (for tests and benchmarks). */
export interface BackgroundCounterStats {
  /** Texts callers asked to have counted. */
  asked: number;
  /** Distinct texts sent to the worker, one batch per turn of the event loop. */
  posted: number;
  /** Messages sent to the worker (batches, and the warm-up). */
  messages: number;
}
const stats: BackgroundCounterStats = { asked: 0, posted: 0, messages: 0 };

export function backgroundCounterStats(): BackgroundCounterStats {
  return { ...stats };
}

function post(channel: Channel, texts: readonly string[], resolve: (counts: number[]) => void): void {
  const id = channel.nextId++;
  channel.pending.set(id, resolve);
  if (channel.pending.size === 1) channel.worker.ref();
  stats.messages++;
  channel.worker.postMessage({ id, texts });
}

/**
 * The requests of one turn of the event loop, sent as one message: many steps started together
 * would otherwise wake the worker once each, and often ask for the same texts.
 */
interface Batch {
  texts: string[];
  /** Position of each distinct text in `texts`. */
  index: Map<string, number>;
  waiters: Array<{ positions: number[]; resolve: (counts: number[] | undefined) => void }>;
}
let batch: Batch | undefined;

function enqueue(texts: readonly string[], resolve: (counts: number[] | undefined) => void): void {
  if (!batch) {
    batch = { texts: [], index: new Map(), waiters: [] };
    setImmediate(flush);
  }
  const { index } = batch;
  const positions = texts.map((text) => {
    let at = index.get(text);
    if (at === undefined) {
      at = batch!.texts.push(text) - 1;
      index.set(text, at);
    }
    return at;
  });
  batch.waiters.push({ positions, resolve });
}

function flush(): void {
  const sent = batch!;
  batch = undefined;
  const channel = shared.channel;
  const answer = (counts: number[]): void => {
    const complete = counts.length === sent.texts.length;
    for (const waiter of sent.waiters) waiter.resolve(complete ? waiter.positions.map((at) => counts[at]) : undefined);
  };
  if (!channel) {
    answer([]);
    return;
  }
  stats.posted += sent.texts.length;
  post(channel, sent.texts, answer);
}

/**
 * The token counts of `texts`, in order, from the worker; `countHere` makes them on this thread
 * when there is no worker (or it failed, or answered with the wrong number of counts).
 */
export function countInBackground(texts: readonly string[], countHere: Counter): Promise<number[]> {
  if (texts.length === 0) return Promise.resolve([]);
  stats.asked += texts.length;
  startBackgroundCounter();
  if (!shared.channel) return new Promise((resolve) => setImmediate(() => resolve(countHere(texts))));
  return new Promise((resolve) => enqueue(texts, (counts) => resolve(counts ?? countHere(texts))));
}
