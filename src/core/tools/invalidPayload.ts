import { clip } from '../text/clip';

// The tool message a call gets when it cannot run as sent (docs/design.md, “Preflight validation and the invalid result”): a JSON object naming
// the tool as requested, what is wrong, and the arguments as received, so the model can see its
// own mistake and retry with fixed arguments. `tool` is present even when the call had no name.

/** String values in `receivedArgs` longer than this are shortened (the payload stays valid JSON). */
const MAX_ECHOED_STRING = 2000;

export interface InvalidPayload {
  tool: string;
  error: string;
  receivedArgs: unknown;
}

function shorten(value: unknown, depth = 0): unknown {
  if (typeof value === 'string') {
    return clip(value, MAX_ECHOED_STRING, { marker: (omitted) => `… [${omitted} more characters not shown]` });
  }
  if (depth > 20 || value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map((item) => shorten(item, depth + 1));
  return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, shorten(item, depth + 1)]));
}

/**
 * Builds the invalid payload as a JSON string. `receivedArgs` is the parsed value when the
 * arguments were JSON, else the raw text; long strings inside it are shortened.
 */
export function buildInvalidPayload(requestedName: string, error: string, receivedArgs: unknown): string {
  const payload: InvalidPayload = { tool: requestedName, error, receivedArgs: shorten(receivedArgs === undefined ? {} : receivedArgs) };
  return JSON.stringify(payload);
}

/**
 * The system-prompt paragraph (docs/design.md, “Preflight validation and the invalid result”) that tells the model how to read an invalid payload
 * and that it must retry with corrected arguments rather than give up.
 */
export const TOOL_ERROR_GUIDANCE = [
  '## Tool errors',
  'When a tool call cannot run as sent, its result is a JSON object {"tool": "<the name you used>", "error": "<what is wrong>", "receivedArgs": <the arguments you sent>}.',
  'Read "error": it names the missing fields, the fields with the wrong type, unknown fields, or an unknown tool name (with the tools that do exist).',
  "Then call the tool again with corrected arguments: add every missing required field, use the types the tool's schema asks for, drop fields it does not know, and use an exact tool name from your tool list.",
  'Do not repeat the same call unchanged and do not stop or ask the user because of such an error; fix the arguments and retry (at least two or three attempts before trying another approach).',
  'Example: you call read_file with {} and get {"tool":"read_file","error":"Invalid arguments: missing required field(s): path","receivedArgs":{}}; you then call read_file with {"path":"src/index.ts"}.',
  'If a result says your arguments were cut off (truncated), your output was too long: do the work in smaller steps (for example write a large file in several smaller edits).',
].join('\n');
