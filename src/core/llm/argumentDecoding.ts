import { isRecord } from '../text/isRecord';
import type { ArgumentParseError, ArgumentValue } from './llmTypes';

// The one decoding of a call's received argument text (docs/design.md, “Streamed tool-call accumulation”, docs/design.md, “Preflight validation and the invalid result”). The accumulator
// runs it once per call and carries the result on the call (`decoded`); the tool pipeline reads
// that value and never parses the text again. Only arguments that decode to a JSON object can
// run; everything else says why, so the call stays `pending` (unparseable) or gets the invalid
// payload (JSON that is not an object) instead of running on half-received input.

const MESSAGES = {
  tooLarge: 'the arguments are too large',
  cutOff: 'the arguments were cut off before they were complete',
  unterminated: 'the arguments were cut off before the JSON ended',
} as const;

export interface DecodeOptions {
  /** The response was cut (finish_reason "length", or the stream broke off). */
  cutOff: boolean;
  /** The text went over the byte cap while it streamed; what was kept is not decoded. */
  tooLarge?: boolean;
}

export interface ArgumentDecodingResult {
  decoded: ArgumentValue;
  /** Something a person reading the trace should know (double encoding, empty arguments...). */
  note?: string;
}

/**
 * True when `text` reads like the beginning of a JSON value that was cut off: it ends inside a
 * string or with brackets still open, and no bracket before that was mismatched.
 */
export function looksTruncated(text: string): boolean {
  const stack: string[] = [];
  let inString = false;
  let escaped = false;
  for (const char of text) {
    if (inString) {
      if (escaped) escaped = false;
      else if (char === '\\') escaped = true;
      else if (char === '"') inString = false;
      continue;
    }
    if (char === '"') inString = true;
    else if (char === '{' || char === '[') stack.push(char);
    else if (char === '}' || char === ']') {
      const open = stack.pop();
      if (open === undefined || (open === '{') !== (char === '}')) return false;
    }
  }
  return inString || stack.length > 0;
}

function failed(error: ArgumentParseError, message: string, note?: string): ArgumentDecodingResult {
  return note === undefined ? { decoded: { ok: false, error, message } } : { decoded: { ok: false, error, message }, note };
}

function decodedValue(value: unknown, doubleEncoded: boolean, note?: string): ArgumentDecodingResult {
  const result: ArgumentDecodingResult = { decoded: { ok: true, value, doubleEncoded } };
  const shape =
    note ??
    (isRecord(value) ? undefined : `arguments must be a JSON object, got ${value === null ? 'null' : Array.isArray(value) ? 'an array' : typeof value}`);
  if (shape !== undefined) result.note = shape;
  return result;
}

/**
 * Decodes `raw`: empty text is `{}`; text that parses is its value (a double-encoded object or
 * array is unwrapped once); text that does not parse is `truncated` when the response was cut off
 * or the text ends mid-value, else `invalid_json`.
 */
export function decodeArgumentText(raw: string, options: DecodeOptions): ArgumentDecodingResult {
  if (options.tooLarge) return failed('too_large', MESSAGES.tooLarge);
  if (raw.trim() === '') {
    // Some providers send nothing at all for a tool without parameters.
    if (options.cutOff) return failed('truncated', MESSAGES.cutOff);
    return decodedValue({}, false, 'empty arguments read as {}');
  }
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch (error) {
    if (options.cutOff) return failed('truncated', MESSAGES.cutOff);
    if (looksTruncated(raw)) return failed('truncated', MESSAGES.unterminated);
    return failed('invalid_json', `the arguments are not valid JSON: ${(error as Error).message}`);
  }
  if (typeof value !== 'string') return decodedValue(value, false);
  // Double-encoded: the provider sent the arguments as a JSON string. Parse once more.
  let inner: unknown;
  try {
    inner = JSON.parse(value);
  } catch {
    return decodedValue(value, false, 'arguments are a JSON string that is not itself JSON');
  }
  if (isRecord(inner)) return decodedValue(inner, true, 'double-encoded JSON arguments: parsed a second time');
  if (Array.isArray(inner)) return decodedValue(inner, true, 'double-encoded arguments are not a JSON object');
  return decodedValue(value, false, 'double-encoded arguments are not a JSON object');
}

/** What the accumulator reports of a decoding (docs/design.md, “Streamed tool-call accumulation”): complete only for a JSON object. */
export interface DecodedArguments {
  isComplete: boolean;
  arguments?: Record<string, unknown>;
  /** `truncated` only when the response was cut off; any other failure reads `invalid_json`. */
  parseError?: ArgumentParseError;
  doubleEncoded?: boolean;
  note?: string;
}

/** The accumulator's summary of a decoding; reads the decoded value, never the text. */
export function summarizeDecoding(result: ArgumentDecodingResult, cutOff: boolean): DecodedArguments {
  const { decoded, note } = result;
  let summary: DecodedArguments;
  if (decoded.ok && isRecord(decoded.value)) {
    summary = { isComplete: true, arguments: decoded.value };
    if (decoded.doubleEncoded) summary.doubleEncoded = true;
  } else if (decoded.ok) {
    summary = { isComplete: false, parseError: 'invalid_json' };
  } else {
    summary = { isComplete: false, parseError: decoded.error === 'truncated' && !cutOff ? 'invalid_json' : decoded.error };
  }
  if (note !== undefined) summary.note = note;
  return summary;
}

/**
 * @param raw the concatenated argument text
 * @param cutOff true when the response was cut (finish_reason "length", or the stream broke off):
 *   unparseable text is then reported as 'truncated' rather than 'invalid_json'.
 */
export function decodeArguments(raw: string, cutOff: boolean): DecodedArguments {
  return summarizeDecoding(decodeArgumentText(raw, { cutOff }), cutOff);
}
