import { diffLines, splitLines, type DiffRun } from './lineDiff';

// Unified diffs in the format `diff -u` and `git diff` print (and `patch` reads): `---`/`+++`
// headers, `@@ -start,count +start,count @@` hunks with 3 lines of context, and
// "\ No newline at end of file" after a last line without one.

export interface UnifiedDiffOptions {
  /** Header names, e.g. `a/src/x.ts` and `b/src/x.ts`; `/dev/null` for a missing side. */
  oldLabel: string;
  newLabel: string;
  context?: number;
}

export interface LineCounts {
  added: number;
  removed: number;
}

const NO_NEWLINE = '\\ No newline at end of file\n';

function hunkRange(start: number, count: number): string {
  // diff -u: an empty side is shown at the line before it ("-0,0" for an empty file).
  const first = count === 0 ? start : start + 1;
  return count === 1 ? String(first) : `${first},${count}`;
}

function emit(prefix: string, line: string): string {
  return line.endsWith('\n') ? `${prefix}${line}` : `${prefix}${line}\n${NO_NEWLINE}`;
}

/** Lines added and removed between two texts. */
export function countChangedLines(oldText: string, newText: string): LineCounts {
  const counts = { added: 0, removed: 0 };
  for (const run of diffLines(splitLines(oldText), splitLines(newText))) {
    if (run.kind === 'insert') counts.added += run.bEnd - run.bStart;
    else if (run.kind === 'delete') counts.removed += run.aEnd - run.aStart;
  }
  return counts;
}

/** The unified diff from `oldText` to `newText`; an empty string when they are equal. */
export function unifiedDiff(oldText: string, newText: string, options: UnifiedDiffOptions): string {
  if (oldText === newText) return '';
  const context = options.context ?? 3;
  const a = splitLines(oldText);
  const b = splitLines(newText);
  const runs = diffLines(a, b);
  let out = `--- ${options.oldLabel}\n+++ ${options.newLabel}\n`;
  for (const hunk of groupHunks(runs, context)) {
    const first = hunk[0];
    const last = hunk[hunk.length - 1];
    out += `@@ -${hunkRange(first.aStart, last.aEnd - first.aStart)} +${hunkRange(first.bStart, last.bEnd - first.bStart)} @@\n`;
    for (const run of hunk) {
      if (run.kind === 'equal') for (let i = run.aStart; i < run.aEnd; i++) out += emit(' ', a[i]);
      else if (run.kind === 'delete') for (let i = run.aStart; i < run.aEnd; i++) out += emit('-', a[i]);
      else for (let i = run.bStart; i < run.bEnd; i++) out += emit('+', b[i]);
    }
  }
  return out;
}

/** Splits the runs into hunks: changes closer than 2×context lines share a hunk; equal runs are cut to the context. */
function groupHunks(runs: DiffRun[], context: number): DiffRun[][] {
  const hunks: DiffRun[][] = [];
  let current: DiffRun[] | undefined;
  for (let i = 0; i < runs.length; i++) {
    const run = runs[i];
    if (run.kind !== 'equal') {
      (current ??= []).push(run);
      continue;
    }
    const length = run.aEnd - run.aStart;
    const keep = Math.min(length, context);
    const isLast = i === runs.length - 1;
    if (current && !isLast && length <= 2 * context) {
      current.push(run);
      continue;
    }
    if (current) {
      // Trailing context of the hunk that ends here.
      if (keep > 0) current.push({ ...run, aEnd: run.aStart + keep, bEnd: run.bStart + keep });
      hunks.push(current);
      current = undefined;
    }
    // Leading context of the next hunk.
    if (!isLast) current = keep > 0 ? [{ ...run, aStart: run.aEnd - keep, bStart: run.bEnd - keep }] : [];
  }
  if (current?.some((run) => run.kind !== 'equal')) hunks.push(current);
  return hunks;
}
