import { createWriteStream, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import type { EventListener } from '../plan/eventLog';

/**
 * Writes each run event as one JSON line, in order, as it happens (so a crashed run still leaves
 * a readable trace). The lines of one turn of the event loop go out in one write: a step's burst
 * of events costs one call into the file stream, not one per event. `close()` resolves once
 * everything is flushed to disk. `append`: continue an existing trace (a resumed run) instead of
 * starting the file over.
 */
export function createTraceWriter(
  file: string,
  options: { append?: boolean } = {},
): { listener: EventListener; close(): Promise<void>; error(): Error | undefined } {
  mkdirSync(dirname(file), { recursive: true });
  const stream = createWriteStream(file, { flags: options.append ? 'a' : 'w', encoding: 'utf8' });
  let failure: Error | undefined;
  stream.on('error', (error) => {
    failure = error;
  });
  let lines: string[] = [];
  let scheduled: NodeJS.Immediate | undefined;
  const flush = (): void => {
    scheduled = undefined;
    if (lines.length === 0) return;
    const text = lines.join('');
    lines = [];
    if (!failure && stream.writable) stream.write(text);
  };
  return {
    listener: (event) => {
      if (failure) return;
      lines.push(`${JSON.stringify(event)}\n`);
      scheduled ??= setImmediate(flush);
    },
    close: () =>
      new Promise<void>((resolve) => {
        if (scheduled) clearImmediate(scheduled);
        flush();
        if (stream.closed || stream.destroyed) return resolve();
        stream.end(() => resolve());
      }),
    error: () => failure,
  };
}
