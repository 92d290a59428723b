// The checks of a `cortex.llm.headers` entry, a settings-schema piece: the schema (config) sits below
// the LLM client that sends the headers (docs/design.md, “The core's inner layers”).

/** Header names Cortex sets itself or the HTTP layer owns: a setting may not replace them. */
export const RESERVED_HEADERS: readonly string[] = Object.freeze([
  'content-type',
  'content-length',
  'host',
  'connection',
  'transfer-encoding',
  'x-cortex-purpose',
  'x-cortex-step',
]);

const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/** Why a header name is unusable, or undefined. */
export function headerNameProblem(name: string): string | undefined {
  if (!HEADER_NAME.test(name)) return `"${name}" is not a valid HTTP header name`;
  if (RESERVED_HEADERS.includes(name.toLowerCase())) return `"${name}" is set by Cortex itself and cannot be replaced`;
  return undefined;
}

/** Why a header value is unusable (a line break would start another header), or undefined. */
export function headerValueProblem(value: string): string | undefined {
  return /[\r\n\0]/.test(value) ? 'a header value cannot contain line breaks or NUL' : undefined;
}
