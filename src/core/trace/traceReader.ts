import { readFileSync } from 'node:fs';
import { RunEventSchema, type RunEvent } from '../plan/events';

export class TraceError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TraceError';
  }
}

/**
 * Parses a JSONL trace. Every line must be a valid event with increasing `seq`; a bad line is a
 * clear error naming its line number. The one exception is a truncated last line (a run killed
 * mid-write): it is dropped and reported in `warnings`, so the rest can still be replayed.
 */
export function parseTrace(text: string, source = 'trace'): { events: RunEvent[]; warnings: string[] } {
  const lines = text.split('\n');
  while (lines.length && lines[lines.length - 1].trim() === '') lines.pop();
  if (lines.length === 0) throw new TraceError(`${source} is empty: no events to replay.`);
  const events: RunEvent[] = [];
  const warnings: string[] = [];
  lines.forEach((line, i) => {
    const lineNo = i + 1;
    const isLast = i === lines.length - 1;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      if (isLast) {
        warnings.push(`${source}: line ${lineNo} is cut off (the run was probably interrupted); it was ignored.`);
        return;
      }
      throw new TraceError(`${source}: line ${lineNo} is not valid JSON.`);
    }
    const parsed = RunEventSchema.safeParse(value);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw new TraceError(`${source}: line ${lineNo} is not a Cortex event (${issue.path.join('.') || 'event'}: ${issue.message}).`);
    }
    const previous = events[events.length - 1];
    if (previous && parsed.data.seq <= previous.seq)
      throw new TraceError(`${source}: line ${lineNo} has seq ${parsed.data.seq} after ${previous.seq}; events must be in order.`);
    events.push(parsed.data);
  });
  // A finished run's reverts (files_reverted) are appended after its run_finished line.
  if (!events.some((event) => event.type === 'run_finished'))
    warnings.push(`${source}: the run did not finish (no run_finished line); showing it as it was left.`);
  return { events, warnings };
}

/** Reads and parses a trace file; file errors become a TraceError with a clear message. */
export function readTrace(file: string): { events: RunEvent[]; warnings: string[] } {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new TraceError(`Cannot read trace ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
  return parseTrace(text, file);
}
