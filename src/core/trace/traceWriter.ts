import { createWriteStream, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import type { EventListener } from '../plan/eventLog';

/**
 * Writes each run event as one JSON line, in order, as it happens (so a crashed run still leaves
 * a readable trace). `close()` resolves once everything is flushed to disk. `append`: continue an
 * existing trace (a resumed run) instead of starting the file over.
 */
export function createTraceWriter(file: string, options: { append?: boolean } = {}): { listener: EventListener; close(): Promise<void>; error(): Error | undefined } {
  mkdirSync(dirname(file), { recursive: true });
  const stream = createWriteStream(file, { flags: options.append ? 'a' : 'w', encoding: 'utf8' });
  let failure: Error | undefined;
  stream.on('error', (error) => {
    failure = error;
  });
  return {
    listener: (event) => {
      if (!failure) stream.write(`${JSON.stringify(event)}\n`);
    },
    close: () =>
      new Promise<void>((resolve) => {
        if (stream.closed || stream.destroyed) return resolve();
        stream.end(() => resolve());
      }),
    error: () => failure,
  };
}
