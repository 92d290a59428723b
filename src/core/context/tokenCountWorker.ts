import { enableCompileCache, flushCompileCache } from 'node:module';
import { parentPort, workerData } from 'node:worker_threads';
import { countTextTokens } from './tokenCounter';

// The worker thread of backgroundCounter.ts (its own bundle, dist/tokenCountWorker.js): it loads
// the tokenizer and answers each `{id, texts}` with `{id, counts}`, counted exactly as on the
// run's own thread. With the compile cache of the thread that started it, the tokenizer's code
// (dist/o200k.js) is not compiled again on every start.

const cacheDir = (workerData as { compileCacheDir?: string } | null)?.compileCacheDir;
if (cacheDir) {
  try {
    enableCompileCache(cacheDir);
  } catch {
    // Only slower without it.
  }
}

let flushed = !cacheDir;
parentPort?.on('message', (request: { id: number; texts: string[] }) => {
  let counts: number[] | undefined;
  try {
    counts = request.texts.map((text) => countTextTokens(text));
  } catch {
    // The caller counts on its own thread when no counts come back.
  }
  parentPort!.postMessage({ id: request.id, counts });
  if (!flushed) {
    // The tokenizer's compiled code is written once it is loaded, not at exit: a process that is
    // killed still leaves it for the next start.
    flushed = true;
    try {
      flushCompileCache();
    } catch {
      // Only slower without it.
    }
  }
});
