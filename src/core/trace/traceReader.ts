import { readLines, UnreadableFileError } from '../files/regularRead';
import { RunEventSchema, type RunEvent } from '../plan/events';

export class TraceError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TraceError';
  }
}

/**
 * The largest trace read (256 MiB): a trace is input like any file, so a bigger one is refused
 * before it is read, and one that grows past it while being read is refused then. A run's trace
 * holds its events and clipped tool results; real ones stay far below this.
 */
export const MAX_TRACE_BYTES = 256 * 1024 * 1024;

/** Turns lines into events: every line a valid event with increasing `seq`, a cut-off last line dropped. */
class TraceParser {
  readonly events: RunEvent[] = [];
  readonly warnings: string[] = [];
  private lineNo = 0;
  private cutOff: number | undefined;

  constructor(private readonly source: string) {}

  line(text: string): void {
    this.lineNo++;
    if (text.trim() === '') return;
    // A line that was not JSON is only forgivable as the very last line.
    if (this.cutOff !== undefined) throw new TraceError(`${this.source}: line ${this.cutOff} is not valid JSON.`);
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      this.cutOff = this.lineNo;
      return;
    }
    const parsed = RunEventSchema.safeParse(value);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw new TraceError(`${this.source}: line ${this.lineNo} is not a Cortex event (${issue.path.join('.') || 'event'}: ${issue.message}).`);
    }
    const previous = this.events[this.events.length - 1];
    if (previous && parsed.data.seq <= previous.seq)
      throw new TraceError(`${this.source}: line ${this.lineNo} has seq ${parsed.data.seq} after ${previous.seq}; events must be in order.`);
    this.events.push(parsed.data);
  }

  finish(): { events: RunEvent[]; warnings: string[] } {
    if (this.cutOff !== undefined) {
      this.warnings.push(`${this.source}: line ${this.cutOff} is cut off (the run was probably interrupted); it was ignored.`);
    }
    if (this.events.length === 0 && this.cutOff === undefined) throw new TraceError(`${this.source} is empty: no events to replay.`);
    // A finished run's reverts (files_reverted) are appended after its run_finished line.
    if (!this.events.some((event) => event.type === 'run_finished'))
      this.warnings.push(`${this.source}: the run did not finish (no run_finished line); showing it as it was left.`);
    return { events: this.events, warnings: this.warnings };
  }
}

/**
 * Parses a JSONL trace. Every line must be a valid event with increasing `seq`; a bad line is a
 * clear error naming its line number. The one exception is a truncated last line (a run killed
 * mid-write): it is dropped and reported in `warnings`, so the rest can still be replayed.
 */
export function parseTrace(text: string, source = 'trace'): { events: RunEvent[]; warnings: string[] } {
  const parser = new TraceParser(source);
  for (const line of text.split('\n')) parser.line(line);
  return parser.finish();
}

/**
 * Reads and parses a trace file as a stream of lines, the way workspace files are read: a regular
 * file only (a link the person named is followed, but never to a FIFO or a device), opened without
 * blocking, at most MAX_TRACE_BYTES, without holding the thread while the disk reads (in the
 * editor it is the extension host's). Every problem is a TraceError of one clear line.
 */
export async function readTrace(file: string, maxBytes = MAX_TRACE_BYTES): Promise<{ events: RunEvent[]; warnings: string[] }> {
  const parser = new TraceParser(file);
  try {
    for await (const line of readLines(file, { what: 'trace file', maxBytes, followLinks: true })) parser.line(line.text);
  } catch (error) {
    if (error instanceof UnreadableFileError) throw new TraceError(error.message);
    throw error;
  }
  return parser.finish();
}
