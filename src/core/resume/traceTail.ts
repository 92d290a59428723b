import { constants } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import { openRegular, UnreadableFileError } from '../files/regularRead';
import { RunEventSchema } from '../plan/events';
import { MAX_TRACE_BYTES, TraceError } from '../trace/traceReader';

// A process killed while writing leaves its trace's last line cut off. Before a resume appends to
// the trace, the file is made valid JSON Lines again (docs/design.md, “Resuming a run”): a cut-off line is
// truncated away; a complete event that only lacks its newline gets it. Only the end of the file
// is read (back to its last newline), and only from a regular file of at most MAX_TRACE_BYTES.

export interface TailRepair {
  /** Bytes removed from the end of the file (a cut-off line). */
  removedBytes: number;
  /** What was done, in words, when anything was. */
  message?: string;
}

function isCompleteEvent(line: string): boolean {
  try {
    return RunEventSchema.safeParse(JSON.parse(line)).success;
  } catch {
    return false;
  }
}

const CHUNK = 64 * 1024;

/** The bytes after the file's last newline, and where they start; read backwards in chunks. */
async function tailAfterLastNewline(handle: FileHandle, size: number): Promise<{ start: number; tail: Buffer }> {
  let tail = Buffer.alloc(0);
  for (let position = size; position > 0;) {
    const length = Math.min(CHUNK, position);
    position -= length;
    const chunk = Buffer.alloc(length);
    await handle.read(chunk, 0, length, position);
    const newline = chunk.lastIndexOf(0x0a);
    if (newline !== -1) return { start: position + newline + 1, tail: Buffer.concat([chunk.subarray(newline + 1), tail]) };
    tail = Buffer.concat([chunk, tail]);
  }
  return { start: 0, tail };
}

/**
 * Makes `file` end with a complete line; says what it changed. Throws TraceError for a file that
 * is not a trace to repair. Asynchronous: in the editor a resume runs on the extension host's thread.
 */
export async function repairTraceTail(file: string, maxBytes = MAX_TRACE_BYTES): Promise<TailRepair> {
  let opened;
  try {
    opened = await openRegular(file, { what: 'trace file', maxBytes, followLinks: true }, constants.O_RDWR);
  } catch (error) {
    if (error instanceof UnreadableFileError) throw new TraceError(error.message);
    throw error;
  }
  if (!opened) throw new TraceError(`trace file ${file} does not exist`);
  const { handle, size } = opened;
  try {
    if (size === 0) return { removedBytes: 0 };
    const { start, tail } = await tailAfterLastNewline(handle, size);
    if (tail.length === 0) return { removedBytes: 0 };
    if (isCompleteEvent(tail.toString('utf8'))) {
      await handle.write('\n', size);
      return { removedBytes: 0, message: `${file}: the last event had no line end; it was added` };
    }
    await handle.truncate(start);
    const removedBytes = size - start;
    return {
      removedBytes,
      message: `${file}: its last line was cut off when the run stopped (${removedBytes} bytes); it was removed, and the run resumes after the last complete event`,
    };
  } finally {
    await handle.close();
  }
}
