import { appendFileSync, readFileSync, truncateSync } from 'node:fs';
import { RunEventSchema } from '../plan/events';

// A process killed while writing leaves its trace's last line cut off. Before a resume appends to
// the trace, the file is made valid JSON Lines again (docs/design.md, “Resuming a run”): a cut-off line is
// truncated away; a complete event that only lacks its newline gets it.

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

/** Makes `file` end with a complete line; says what it changed. */
export function repairTraceTail(file: string): TailRepair {
  const bytes = readFileSync(file);
  if (bytes.length === 0 || bytes[bytes.length - 1] === 0x0a) return { removedBytes: 0 };
  const lastNewline = bytes.lastIndexOf(0x0a);
  const tail = bytes.subarray(lastNewline + 1).toString('utf8');
  if (isCompleteEvent(tail)) {
    appendFileSync(file, '\n');
    return { removedBytes: 0, message: `${file}: the last event had no line end; it was added` };
  }
  truncateSync(file, lastNewline + 1);
  const removedBytes = bytes.length - (lastNewline + 1);
  return {
    removedBytes,
    message: `${file}: its last line was cut off when the run stopped (${removedBytes} bytes); it was removed, and the run resumes after the last complete event`,
  };
}
