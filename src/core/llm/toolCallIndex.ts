// Providers send `tool_calls[].index` as a number, a numeric string, null, nothing, -1, 1.5...
// Normalising early keeps routing exact (docs/design.md, “Streamed tool-call accumulation”) instead of treating anything odd as
// index 0, which would merge parallel calls.

/**
 * A routing key for a fragment's index:
 * - a non-negative safe integer (also from a numeric string like "2");
 * - `undefined` when the provider sent none (missing or null);
 * - an opaque string key for anything else (negative, fractional, non-numeric). Fragments with the
 *   same odd value still group together, but never with an integer-indexed call.
 */
export type IndexKey = number | string | undefined;

const DIGITS = /^\s*\d+\s*$/;

export function normalizeToolCallIndex(raw: unknown): IndexKey {
  if (typeof raw === 'number') {
    if (Number.isSafeInteger(raw) && raw >= 0) return raw;
    return `odd:${raw}`;
  }
  if (raw === undefined || raw === null) return undefined;
  if (typeof raw === 'string') {
    if (DIGITS.test(raw)) {
      const n = Number(raw);
      if (Number.isSafeInteger(n)) return n;
    }
    return `odd:${raw}`;
  }
  let text: string;
  try {
    // undefined for functions and symbols, which never come from JSON anyway.
    text = JSON.stringify(raw) ?? typeof raw;
  } catch {
    text = typeof raw;
  }
  return `odd:${text}`;
}

/** Where an opaque key sorts: its numeric value when it has one (e.g. -1 before 0), else last. */
export function opaqueSortKey(key: string): number {
  const n = Number(key.slice(4).trim());
  return key.length > 4 && Number.isFinite(n) ? n : Number.POSITIVE_INFINITY;
}
