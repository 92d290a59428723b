// The one way text is cut short for a prompt, the trace or the panel: at most `max` characters,
// never inside a surrogate pair, and a marker saying that (and often how much) was left out. Each
// caller picks its marker; the cutting is the same everywhere.

/** The first at most `max` characters of `text` (one fewer when the last would split a pair) and how many were left out. */
export function clipParts(text: string, max: number): { head: string; omitted: number } {
  if (text.length <= max) return { head: text, omitted: 0 };
  let end = Math.max(0, max);
  const last = text.charCodeAt(end - 1);
  if (end > 0 && last >= 0xd800 && last <= 0xdbff) end--;
  return { head: text.slice(0, end), omitted: text.length - end };
}

export interface ClipOptions {
  /** What follows the kept text; gets the number of characters left out. Default `…`. */
  marker?: (omitted: number) => string;
  /** Count the marker toward `max`, so the result is never longer than `max`. */
  markerWithin?: boolean;
}

const ELLIPSIS = () => '…';

/** `text` cut to `max` characters and marked; text that fits is returned as is. */
export function clip(text: string, max: number, options: ClipOptions = {}): string {
  if (text.length <= max) return text;
  const marker = options.marker ?? ELLIPSIS;
  const keep = options.markerWithin ? Math.max(0, max - marker(text.length - max).length) : max;
  const { head, omitted } = clipParts(text, keep);
  return `${head}${marker(omitted)}`;
}

/** A single-line preview: whitespace runs become one space, then the text is cut to `max` characters with `…`. */
export function oneLine(text: string, max: number): string {
  return clip(text.replace(/\s+/g, ' ').trim(), max);
}
