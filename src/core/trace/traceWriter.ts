import { close, open, write } from 'node:fs';
import { dirname } from 'node:path';
import { makeFolders } from '../files/makeFolders';
import type { EventListener } from '../plan/eventLog';

/**
 * Writes each run event as one JSON line, in order, as it happens (so a crashed run still leaves
 * a readable trace). Nothing here holds the run's thread: in the editor that thread is the
 * extension host's, and the trace lives in the user's storage, which can be a slow or network
 * disk. The lines of one turn of the event loop go out in one write; while a write is under way
 * the next lines wait and go out together after it, so a slow disk delays the trace but never
 * reorders or drops it. `close()` resolves once everything is written and the file closed. A
 * file that cannot be opened or written is reported by `error()`, never thrown at the run.
 * `append`: continue an existing trace (a resumed run) instead of starting the file over.
 */
export interface TraceWriter {
  listener: EventListener;
  close(): Promise<void>;
  error(): Error | undefined;
}

export function createTraceWriter(file: string, options: { append?: boolean } = {}): TraceWriter {
  let failure: Error | undefined;
  let fd: number | undefined;
  let lines: string[] = [];
  let writing = false;
  let closing = false;
  let scheduled: NodeJS.Immediate | undefined;
  let settle: (() => void) | undefined;
  const closed = new Promise<void>((resolve) => (settle = resolve));

  const opened = makeFolders(dirname(file))
    .then(() => new Promise<number>((resolve, reject) => open(file, options.append ? 'a' : 'w', (error, handle) => (error ? reject(error) : resolve(handle)))))
    .then(
      (handle) => {
        fd = handle;
      },
      (error: unknown) => {
        failure = error as Error;
      },
    );

  const finishIfDone = (): void => {
    if (!closing || writing || lines.length > 0) return;
    if (fd === undefined) return settle!();
    const handle = fd;
    fd = undefined;
    close(handle, (error) => {
      if (error) failure ??= error;
      settle!();
    });
  };

  const flush = (): void => {
    scheduled = undefined;
    if (writing) return;
    if (failure) lines = [];
    if (lines.length === 0 || fd === undefined) return finishIfDone();
    const bytes = Buffer.from(lines.join(''), 'utf8');
    lines = [];
    writing = true;
    writeAll(fd, bytes, (error) => {
      writing = false;
      if (error) failure ??= error;
      flush();
    });
  };

  void opened.then(flush);

  return {
    listener: (event) => {
      if (failure || closing) return;
      lines.push(`${JSON.stringify(event)}\n`);
      scheduled ??= setImmediate(flush);
    },
    close: () => {
      if (!closing) {
        closing = true;
        if (scheduled) clearImmediate(scheduled);
        void opened.then(flush);
      }
      return closed;
    },
    error: () => failure,
  };
}

/** Writes all of `bytes` (a write may take only part of them). */
function writeAll(fd: number, bytes: Buffer, done: (error: Error | null) => void, at = 0): void {
  if (at >= bytes.length) return done(null);
  write(fd, bytes, at, bytes.length - at, null, (error, written) => (error ? done(error) : writeAll(fd, bytes, done, at + written)));
}
