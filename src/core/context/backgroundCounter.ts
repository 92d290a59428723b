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

function post(channel: Channel, texts: readonly string[], resolve: (counts: number[]) => void): void {
  const id = channel.nextId++;
  channel.pending.set(id, resolve);
  if (channel.pending.size === 1) channel.worker.ref();
  channel.worker.postMessage({ id, texts });
}

/**
 * The token counts of `texts`, in order, from the worker; `countHere` makes them on this thread
 * when there is no worker (or it failed, or answered with the wrong number of counts).
 */
export function countInBackground(texts: readonly string[], countHere: Counter): Promise<number[]> {
  if (texts.length === 0) return Promise.resolve([]);
  startBackgroundCounter();
  const channel = shared.channel;
  if (!channel) return new Promise((resolve) => setImmediate(() => resolve(countHere(texts))));
  return new Promise((resolve) => post(channel, texts, (counts) => resolve(counts.length === texts.length ? counts : countHere(texts))));
}
