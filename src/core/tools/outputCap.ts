import { stripTerminalControls } from '../text/stripTerminalControls';

// Tool output on its way to the model: terminal controls removed and the size capped, keeping
// the head and the tail (errors usually sit at the end of a build log, context at the start).

/** Removes every terminal control sequence and control character (see stripTerminalControls). */
export const stripAnsi = stripTerminalControls;

/** The longest prefix of `text` that fits in `maxBytes` UTF-8 bytes, never splitting a character. */
export function utf8Head(text: string, maxBytes: number): string {
  const buffer = Buffer.from(text, 'utf8');
  if (buffer.length <= maxBytes) return text;
  let end = Math.max(0, maxBytes);
  while (end > 0 && (buffer[end] & 0xc0) === 0x80) end--; // step back off a continuation byte
  return buffer.subarray(0, end).toString('utf8');
}

/** The longest suffix of `text` that fits in `maxBytes` UTF-8 bytes, never splitting a character. */
export function utf8Tail(text: string, maxBytes: number): string {
  const buffer = Buffer.from(text, 'utf8');
  if (buffer.length <= maxBytes) return text;
  let start = buffer.length - Math.max(0, maxBytes);
  while (start < buffer.length && (buffer[start] & 0xc0) === 0x80) start++;
  return buffer.subarray(start).toString('utf8');
}

/**
 * Caps `text` at `maxBytes` UTF-8 bytes (marker included) by keeping its head and tail and saying
 * in between how much was left out. Text under the cap comes back unchanged.
 */
export function capOutput(text: string, maxBytes: number): string {
  const total = Buffer.byteLength(text, 'utf8');
  if (total <= maxBytes) return text;
  // The marker's length depends on the omitted count; size it for the worst case (all omitted).
  const markerFor = (omitted: number) => `\n\n[... output truncated: ${omitted} of ${total} bytes omitted ...]\n\n`;
  const budget = Math.max(0, maxBytes - Buffer.byteLength(markerFor(total), 'utf8'));
  const head = utf8Head(text, Math.ceil(budget / 2));
  const tail = utf8Tail(text, Math.floor(budget / 2));
  const omitted = total - Buffer.byteLength(head, 'utf8') - Buffer.byteLength(tail, 'utf8');
  return `${head}${markerFor(omitted)}${tail}`;
}

/** What the model sees of a tool's output: terminal controls stripped, then capped. */
export function prepareToolOutput(text: string, maxBytes: number): string {
  return capOutput(stripTerminalControls(text), maxBytes);
}
