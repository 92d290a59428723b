// Text that came from a model, a tool or an endpoint, made safe to print on a terminal: characters
// a terminal would act on instead of showing are replaced by a visible escape, so nothing printed
// can move the cursor, clear or recolour the screen, retitle the window, hide text, or reorder it.

// C0 controls except tab and newline, DEL, C1 controls, bidi embeddings/overrides/isolates, and
// the Unicode line/paragraph separators (some terminals and editors break lines on them).
// eslint-disable-next-line no-control-regex
const UNSAFE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069\u2028\u2029]/g;

const NAMED: Record<string, string> = { '\r': '\\r', '\b': '\\b', '\f': '\\f', '\v': '\\v', '\0': '\\0' };

/** How one unsafe character is shown: `\r`, `\x1b`, `\u202e`. */
export function visibleEscape(char: string): string {
  const named = NAMED[char];
  if (named) return named;
  const code = char.charCodeAt(0);
  return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
}

/**
 * `text` with every terminal control made visible (ESC becomes the four characters `\x1b`, so an
 * escape sequence prints as harmless text). Newlines and tabs stay; everything else is unchanged.
 */
export function terminalSafe(text: string): string {
  return text.replace(UNSAFE, visibleEscape);
}
