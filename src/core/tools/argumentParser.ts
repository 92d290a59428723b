import type { ArgumentParseError } from '../llm/llmTypes';

// Turns a tool call's raw argument text into a value, and when it cannot, says which of the three
// failures it is: the useful remedy differs (invalid_json → repair the JSON, too_large → send
// less, truncated → the response was cut off, so retry with a smaller step rather than guess).

/** Argument text above this size is refused before parsing (the LLM client's cap, 4 MiB). */
export const DEFAULT_MAX_ARGUMENT_BYTES = 4 * 1024 * 1024;

export type ParsedArguments =
  | { ok: true; value: unknown; doubleEncoded: boolean }
  | { ok: false; error: ArgumentParseError; message: string };

export interface ParseArgumentsOptions {
  maxBytes?: number;
  /** False when the stream ended before this call's arguments were complete. */
  isComplete?: boolean;
  finishReason?: string | null;
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

/** Parses raw tool-call arguments; an empty text means "no arguments" (`{}`). */
export function parseToolArguments(raw: string, options: ParseArgumentsOptions = {}): ParsedArguments {
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_ARGUMENT_BYTES;
  const bytes = Buffer.byteLength(raw, 'utf8');
  if (bytes > maxBytes) return { ok: false, error: 'too_large', message: `the arguments are ${bytes} bytes, over the ${maxBytes}-byte limit` };
  if (options.isComplete === false) {
    return { ok: false, error: 'truncated', message: 'the response ended before this call\'s arguments were complete' };
  }
  if (raw.trim() === '') return { ok: true, value: {}, doubleEncoded: false };
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch (error) {
    if (looksTruncated(raw) || options.finishReason === 'length') {
      const why = options.finishReason === 'length' ? ' (the model hit its output limit, finish_reason=length)' : '';
      return { ok: false, error: 'truncated', message: `the arguments were cut off before the JSON ended${why}` };
    }
    return { ok: false, error: 'invalid_json', message: `the arguments are not valid JSON: ${(error as Error).message}` };
  }
  // Some models JSON-encode the arguments twice ("{\"path\":\"a\"}"); unwrap one level.
  if (typeof value === 'string') {
    const inner = value.trim();
    if (inner.startsWith('{') || inner.startsWith('[')) {
      try {
        return { ok: true, value: JSON.parse(inner), doubleEncoded: true };
      } catch {
        // Not JSON inside: leave the string for validation to refuse.
      }
    }
  }
  return { ok: true, value, doubleEncoded: false };
}
