import type { ArgumentParseError } from './llmTypes';

// Turns a call's received argument text into what the executor may run (docs/design.md §6, §9):
// only arguments that parse to a JSON object are complete; everything else is reported with the
// reason so the call stays `pending` instead of running on half-received input.

export interface DecodedArguments {
  isComplete: boolean;
  arguments?: Record<string, unknown>;
  parseError?: ArgumentParseError;
  doubleEncoded?: boolean;
  /** Something a person reading the trace should know (double encoding, empty arguments...). */
  note?: string;
}

/**
 * @param raw the concatenated argument text
 * @param cutOff true when the response was cut (finish_reason "length", or the stream broke off):
 *   unparseable text is then reported as 'truncated' rather than 'invalid_json'.
 */
export function decodeArguments(raw: string, cutOff: boolean): DecodedArguments {
  if (raw.trim() === '') {
    // Some providers send nothing at all for a tool without parameters.
    if (cutOff) return { isComplete: false, parseError: 'truncated' };
    return { isComplete: true, arguments: {}, note: 'empty arguments read as {}' };
  }
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    return { isComplete: false, parseError: cutOff ? 'truncated' : 'invalid_json' };
  }
  if (typeof value === 'string') {
    // Double-encoded: the provider sent the JSON object as a JSON string. Parse once more.
    let inner: unknown;
    try {
      inner = JSON.parse(value);
    } catch {
      return { isComplete: false, parseError: 'invalid_json', note: 'arguments are a JSON string that is not itself JSON' };
    }
    if (isPlainObject(inner)) {
      return { isComplete: true, arguments: inner, doubleEncoded: true, note: 'double-encoded JSON arguments: parsed a second time' };
    }
    return { isComplete: false, parseError: 'invalid_json', note: 'double-encoded arguments are not a JSON object' };
  }
  if (isPlainObject(value)) return { isComplete: true, arguments: value };
  return { isComplete: false, parseError: 'invalid_json', note: `arguments must be a JSON object, got ${value === null ? 'null' : Array.isArray(value) ? 'an array' : typeof value}` };
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
