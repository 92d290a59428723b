// The verdict of `npm run bench` (scripts/bench.mjs) from each benchmark file's outcome: which
// files missed a target and why, which could not run (a setup error), and the exit code. A
// benchmark exits 0 when its targets are met, 2 for a setup error (bench/support/runBenchmark.ts,
// `setupError`), and otherwise 1 (a missed target, or an error).

export const SETUP_ERROR_EXIT = 2;

/** A line of a benchmark's output that says what was missed or why: MISSED, a failed check (✗ FAILED), `why:`. */
export function isReasonLine(line) {
  return /MISSED|✗ FAILED|^\s*why:/.test(line);
}

/**
 * `results`: per file, in order, `{ file, code, reasons, errorTail }` (`code` the exit code or the
 * signal's name, `reasons` its reason lines, `errorTail` the last lines it wrote to stderr).
 * Returns the exit code (0 only when every file met its targets; 2 when the only problems were
 * setup errors; else 1) and the lines that say which files did not, and why.
 */
export function benchVerdict(results) {
  const missed = [];
  const setup = [];
  for (const result of results) {
    if (result.code === SETUP_ERROR_EXIT) setup.push(result.file);
    // A file that exits 0 but printed a missed target has not met it (its exit code is a bug).
    else if (result.code !== 0 || result.reasons.length > 0) missed.push(result);
  }
  if (missed.length === 0 && setup.length === 0) return { exitCode: 0, lines: ['all benchmark targets met.'] };
  const lines = [];
  for (const { file, code, reasons, errorTail } of missed) {
    lines.push('');
    if (reasons.length > 0) {
      lines.push(`${file}: a target was missed${code === 0 ? ' (though it exited 0)' : ''}:`);
      for (const reason of reasons) lines.push(`  ${reason.trim()}`);
    } else {
      const how = typeof code === 'string' ? `was stopped by ${code}` : `failed (exit ${code})`;
      lines.push(`${file}: ${how} without a MISSED or why: line${errorTail.length > 0 ? '; the end of its error output:' : ' (see its output above)'}`);
      for (const line of errorTail) lines.push(`  ${line.trim()}`);
    }
  }
  for (const file of setup) lines.push('', `${file}: not run, a setup error (see its message above); not a missed target`);
  return { exitCode: missed.length > 0 ? 1 : SETUP_ERROR_EXIT, lines };
}
