import { readFileSync } from 'node:fs';
import { parseTrace } from '../../src/core/trace/traceReader';
import type { RunEvent } from '../../src/core/plan/events';

/** A trace file's events, read at once (tests only: Cortex reads traces with readTrace, asynchronously). */
export function readTraceSync(file: string): { events: RunEvent[]; warnings: string[] } {
  return parseTrace(readFileSync(file, 'utf8'), file);
}
