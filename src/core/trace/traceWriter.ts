import { closeSync, openSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import { makeFoldersSync } from '../files/makeFolders';
import type { EventListener } from '../plan/eventLog';

/**
 * Writes each run event as one JSON line, in order, as it happens (so a crashed run still leaves
 * a readable trace). The lines of one turn of the event loop go out in one synchronous write: a
 * few kilobytes into the page cache take microseconds, where a file stream would cost a trip
 * through libuv's thread pool for every burst of events, and a thread pool kept busy by tool calls
 * cannot hold the trace back. `closeSync()` returns once everything is written. A file that cannot
 * be opened or written is reported by `error()`, never thrown at the run. `append`: continue an
 * existing trace (a resumed run) instead of starting the file over.
 */
export function createTraceWriterSync(
  file: string,
  options: { append?: boolean } = {},
): { listener: EventListener; closeSync(): void; error(): Error | undefined } {
  makeFoldersSync(dirname(file));
  let failure: Error | undefined;
  let fd: number | undefined;
  try {
    fd = openSync(file, options.append ? 'a' : 'w');
  } catch (error) {
    failure = error as Error;
  }
  let lines: string[] = [];
  let scheduled: NodeJS.Immediate | undefined;
  const flushSync = (): void => {
    scheduled = undefined;
    if (lines.length === 0) return;
    const bytes = Buffer.from(lines.join(''), 'utf8');
    lines = [];
    if (failure || fd === undefined) return;
    try {
      for (let at = 0; at < bytes.length;) at += writeSync(fd, bytes, at);
    } catch (error) {
      failure = error as Error;
    }
  };
  return {
    listener: (event) => {
      if (failure) return;
      lines.push(`${JSON.stringify(event)}\n`);
      scheduled ??= setImmediate(flushSync);
    },
    closeSync: () => {
      if (scheduled) clearImmediate(scheduled);
      flushSync();
      if (fd !== undefined) {
        try {
          closeSync(fd);
        } catch (error) {
          failure ??= error as Error;
        }
        fd = undefined;
      }
    },
    error: () => failure,
  };
}
