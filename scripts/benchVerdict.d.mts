// Types for scripts/benchVerdict.mjs (used by its unit test).
export const SETUP_ERROR_EXIT: number;
export function isReasonLine(line: string): boolean;
export interface BenchResult {
  file: string;
  /** The exit code, or the name of the signal that stopped it. */
  code: number | string;
  reasons: string[];
  errorTail: string[];
}
export function benchVerdict(results: BenchResult[]): { exitCode: number; lines: string[] };
