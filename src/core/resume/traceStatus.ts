import { openRegular } from '../files/regularRead';
import { MAX_TRACE_BYTES } from '../trace/traceReader';
import { hostname } from 'node:os';
import { processIsAlive } from './processState';
import { describeHolder, readLockHolder } from './runLock';

// Whether a trace on disk can be resumed, told cheaply (for lists of recent runs and a restored
// panel): its last complete line is read from the end of the file, not the whole trace.

const CHUNK = 64 * 1024;

/**
 * The last complete line of `file` ('' when there is none); a cut-off line after it is ignored.
 * Asynchronous: in the editor this runs on the extension host's thread.
 */
export async function lastCompleteLine(file: string): Promise<string> {
  // A FIFO or a device named like a trace would block or never end: regular files only.
  const opened = await openRegular(file, { what: 'trace file', maxBytes: MAX_TRACE_BYTES, followLinks: true });
  if (!opened) throw Object.assign(new Error(`trace file ${file} does not exist`), { code: 'ENOENT' });
  const { handle, size } = opened;
  const readAt = async (position: number, length: number): Promise<Buffer> => {
    const chunk = Buffer.alloc(length);
    await handle.read(chunk, 0, length, position);
    return chunk;
  };
  try {
    let end = size;
    let tail = Buffer.alloc(0);
    // Walk back to the last newline: everything after it is a cut-off line.
    for (let position = size; position > 0 && !tail.includes(0x0a);) {
      const length = Math.min(CHUNK, position);
      position -= length;
      tail = Buffer.concat([await readAt(position, length), tail]);
      end = position + tail.lastIndexOf(0x0a);
    }
    if (!tail.includes(0x0a)) return '';
    // Then back to the newline before it, however long the line (a snapshot can be large).
    let line = tail.subarray(0, tail.lastIndexOf(0x0a));
    let start = end - line.length;
    while (!line.includes(0x0a) && start > 0) {
      const length = Math.min(CHUNK, start);
      start -= length;
      line = Buffer.concat([await readAt(start, length), line]);
    }
    return line.subarray(line.lastIndexOf(0x0a) + 1).toString('utf8');
  } finally {
    await handle.close();
  }
}

export type TraceResumability = { resumable: true } | { resumable: false; reason: string };

/** Whether the trace ended without run_finished and no live process drives it. */
export async function traceResumability(file: string): Promise<TraceResumability> {
  let last: string;
  try {
    last = await lastCompleteLine(file);
  } catch (error) {
    return { resumable: false, reason: `its trace cannot be read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})` };
  }
  let type: unknown;
  try {
    type = (JSON.parse(last) as { type?: unknown }).type;
  } catch {
    type = undefined;
  }
  if (type === 'run_finished') return { resumable: false, reason: 'the run finished' };
  if (last === '') return { resumable: false, reason: 'its trace holds no complete event' };
  const holder = await readLockHolder(file);
  if (holder && (holder.host !== hostname() || processIsAlive(holder.pid, holder.pidStart)))
    return { resumable: false, reason: `it is driven by ${describeHolder(holder)}` };
  return { resumable: true };
}
