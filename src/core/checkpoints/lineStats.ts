import { looksBinary } from '../files/textFile';
import { diffLines, splitLines } from './lineDiff';
import type { LineCounts } from './unifiedDiff';

// Added and removed line counts of one change, cheap enough to record with every write: the
// identical head and tail are skipped in bytes (native compares of 4 KiB blocks), and only the
// lines in between are diffed. A rewrite too large to diff quickly counts every line of the
// changed middle as removed and added.

const BLOCK = 4096;
/** Middle lines (both sides together) past which counts are not diffed but taken whole. */
const MAX_DIFFED_LINES = 20_000;

function commonPrefix(a: Buffer, b: Buffer): number {
  const limit = Math.min(a.length, b.length);
  let at = 0;
  while (at + BLOCK <= limit && a.compare(b, at, at + BLOCK, at, at + BLOCK) === 0) at += BLOCK;
  while (at < limit && a[at] === b[at]) at++;
  return at;
}

function commonSuffix(a: Buffer, b: Buffer, limit: number): number {
  let length = 0;
  while (length + BLOCK <= limit && a.compare(b, b.length - length - BLOCK, b.length - length, a.length - length - BLOCK, a.length - length) === 0)
    length += BLOCK;
  while (length < limit && a[a.length - 1 - length] === b[b.length - 1 - length]) length++;
  return length;
}

/** Line counts between two contents, or undefined when either looks binary. */
export function changedLineCounts(before: Buffer, after: Buffer): LineCounts | undefined {
  if (looksBinary(before) || looksBinary(after)) return undefined;
  if (before.equals(after)) return { added: 0, removed: 0 };
  const differsAt = commonPrefix(before, after);
  // Back to the start of that line (the head is the same bytes on both sides).
  const start = differsAt === 0 ? 0 : before.lastIndexOf(10, differsAt - 1) + 1;
  const suffix = commonSuffix(before, after, Math.min(before.length, after.length) - differsAt);
  // Forward to just after a newline inside the common tail, so both middles end on a line end.
  const cut = (buffer: Buffer) => {
    const tailStart = buffer.length - suffix;
    const newline = suffix === 0 ? -1 : buffer.indexOf(10, tailStart);
    return newline === -1 ? buffer.length : newline + 1;
  };
  const oldMiddle = splitLines(before.toString('utf8', start, cut(before)));
  const newMiddle = splitLines(after.toString('utf8', start, cut(after)));
  if (oldMiddle.length + newMiddle.length > MAX_DIFFED_LINES) return { added: newMiddle.length, removed: oldMiddle.length };
  const counts = { added: 0, removed: 0 };
  for (const run of diffLines(oldMiddle, newMiddle)) {
    if (run.kind === 'insert') counts.added += run.bEnd - run.bStart;
    else if (run.kind === 'delete') counts.removed += run.aEnd - run.aStart;
  }
  return counts;
}
