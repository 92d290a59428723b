// A line diff without dependencies: the common head and tail are trimmed first (most edits touch a
// small part of a file), then Myers' O(ND) algorithm finds a shortest edit script for the middle.
// Lines keep their line terminator, so "x" at the end of a file and "x\n" differ, as in `diff`.

/** One run of the edit script: lines a[aStart, aEnd) became b[bStart, bEnd). */
export interface DiffRun {
  kind: 'equal' | 'delete' | 'insert';
  aStart: number;
  aEnd: number;
  bStart: number;
  bEnd: number;
}

/**
 * Past this many differences the middle is reported as one replacement (every old line removed,
 * every new line added): still a correct diff, just not the shortest, and bounded in time.
 */
export const MAX_EDIT_DISTANCE = 4000;

/** The lines of `text`, each with its '\n' (the last one without it when the text lacks a final newline). */
export function splitLines(text: string): string[] {
  const lines: string[] = [];
  let start = 0;
  for (let at = text.indexOf('\n'); at !== -1; at = text.indexOf('\n', start)) {
    lines.push(text.slice(start, at + 1));
    start = at + 1;
  }
  if (start < text.length) lines.push(text.slice(start));
  return lines;
}

/** Maps each distinct line to a small integer, so the inner loop compares numbers. */
function internLines(a: readonly string[], b: readonly string[]): { ia: Int32Array; ib: Int32Array } {
  const ids = new Map<string, number>();
  const intern = (lines: readonly string[]) => {
    const out = new Int32Array(lines.length);
    for (let i = 0; i < lines.length; i++) {
      let id = ids.get(lines[i]);
      if (id === undefined) ids.set(lines[i], (id = ids.size));
      out[i] = id;
    }
    return out;
  };
  return { ia: intern(a), ib: intern(b) };
}

/** The edit script turning `a` into `b`, as runs in order (adjacent runs have different kinds). */
export function diffLines(a: readonly string[], b: readonly string[]): DiffRun[] {
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head++;
  let tail = 0;
  while (tail < a.length - head && tail < b.length - head && a[a.length - 1 - tail] === b[b.length - 1 - tail]) tail++;
  const runs: DiffRun[] = [];
  const push = (kind: DiffRun['kind'], aStart: number, aEnd: number, bStart: number, bEnd: number) => {
    if (aEnd === aStart && bEnd === bStart) return;
    const last = runs.at(-1);
    if (last && last.kind === kind && last.aEnd === aStart && last.bEnd === bStart) {
      last.aEnd = aEnd;
      last.bEnd = bEnd;
    } else runs.push({ kind, aStart, aEnd, bStart, bEnd });
  };
  push('equal', 0, head, 0, head);
  const { ia, ib } = internLines(a.slice(head, a.length - tail), b.slice(head, b.length - tail));
  for (const run of myers(ia, ib)) push(run.kind, run.aStart + head, run.aEnd + head, run.bStart + head, run.bEnd + head);
  push('equal', a.length - tail, a.length, b.length - tail, b.length);
  return runs;
}

/** Myers' greedy forward search, keeping each round's frontier to walk the path back. */
function myers(a: Int32Array, b: Int32Array): DiffRun[] {
  const n = a.length;
  const m = b.length;
  if (n === 0 && m === 0) return [];
  if (n === 0) return [{ kind: 'insert', aStart: 0, aEnd: 0, bStart: 0, bEnd: m }];
  if (m === 0) return [{ kind: 'delete', aStart: 0, aEnd: n, bStart: 0, bEnd: 0 }];
  const max = Math.min(n + m, MAX_EDIT_DISTANCE);
  const offset = max + 1;
  const v = new Int32Array(2 * max + 3);
  const trace: Int32Array[] = [];
  for (let d = 0; d <= max; d++) {
    trace.push(v.slice(offset - d - 1, offset + d + 2));
    for (let k = -d; k <= d; k += 2) {
      let x = k === -d || (k !== d && v[offset + k - 1] < v[offset + k + 1]) ? v[offset + k + 1] : v[offset + k - 1] + 1;
      let y = x - k;
      while (x < n && y < m && a[x] === b[y]) {
        x++;
        y++;
      }
      v[offset + k] = x;
      if (x >= n && y >= m) return backtrack(trace, d, n, m);
    }
  }
  // Too different for a shortest script within the bound: one replacement.
  return [
    { kind: 'delete', aStart: 0, aEnd: n, bStart: 0, bEnd: 0 },
    { kind: 'insert', aStart: n, aEnd: n, bStart: 0, bEnd: m },
  ];
}

/** Walks the recorded frontiers from (n, m) back to (0, 0) and returns the runs in forward order. */
function backtrack(trace: Int32Array[], last: number, n: number, m: number): DiffRun[] {
  const steps: DiffRun[] = [];
  let x = n;
  let y = m;
  for (let d = last; d > 0; d--) {
    // trace[d] holds v[-d-1 .. d+1] as it was before round d.
    const frontier = trace[d];
    const at = (k: number) => frontier[k + d + 1];
    const k = x - y;
    const down = k === -d || (k !== d && at(k - 1) < at(k + 1));
    const prevK = down ? k + 1 : k - 1;
    const prevX = at(prevK);
    const prevY = prevX - prevK;
    const startX = down ? prevX : prevX + 1;
    const startY = startX - k;
    if (x > startX) steps.push({ kind: 'equal', aStart: startX, aEnd: x, bStart: startY, bEnd: y });
    if (down) steps.push({ kind: 'insert', aStart: prevX, aEnd: prevX, bStart: prevY, bEnd: prevY + 1 });
    else steps.push({ kind: 'delete', aStart: prevX, aEnd: prevX + 1, bStart: prevY, bEnd: prevY });
    x = prevX;
    y = prevY;
  }
  if (x > 0) steps.push({ kind: 'equal', aStart: 0, aEnd: x, bStart: 0, bEnd: y });
  steps.reverse();
  const runs: DiffRun[] = [];
  for (const step of steps) {
    const lastRun = runs.at(-1);
    if (lastRun && lastRun.kind === step.kind && lastRun.aEnd === step.aStart && lastRun.bEnd === step.bStart) {
      lastRun.aEnd = step.aEnd;
      lastRun.bEnd = step.bEnd;
    } else runs.push({ ...step });
  }
  return runs;
}
