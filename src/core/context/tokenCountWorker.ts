import { parentPort } from 'node:worker_threads';
import { countTextTokens } from './tokenCounter';

// The worker thread of backgroundCounter.ts (its own bundle, dist/tokenCountWorker.js): it loads
// the tokenizer and answers each `{id, texts}` with `{id, counts}`, counted exactly as on the
// run's own thread.

parentPort?.on('message', (request: { id: number; texts: string[] }) => {
  let counts: number[] | undefined;
  try {
    counts = request.texts.map((text) => countTextTokens(text));
  } catch {
    // The caller counts on its own thread when no counts come back.
  }
  parentPort!.postMessage({ id: request.id, counts });
});
