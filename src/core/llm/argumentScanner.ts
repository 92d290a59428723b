// A streaming tool call's arguments arrive a few characters at a time. Routing needs to know, per
// fragment, whether a call's arguments already form a complete JSON value (then more text cannot
// belong to it) without re-parsing the growing string, which would be quadratic. This scanner
// tracks nesting and string state incrementally, one pass over each fragment, and counts UTF-8
// bytes on the way. It does not validate: the final JSON.parse decides.

/** Incremental scan state, embedded in each accumulated call. */
export interface ArgumentScan {
  /** Open `{`/`[` not yet closed (outside strings). */
  depth: number;
  inString: boolean;
  escaped: boolean;
  /** A top-level object, array or string has closed: any further non-space text starts something else. */
  closed: boolean;
  /** UTF-8 bytes scanned so far. */
  bytes: number;
}

export function newArgumentScan(): ArgumentScan {
  return { depth: 0, inString: false, escaped: false, closed: false, bytes: 0 };
}

/** Advances `scan` over `text`; returns the UTF-8 byte length of `text`. */
export function scanArgumentText(scan: ArgumentScan, text: string): number {
  let { depth, inString, escaped, closed } = scan;
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x80) bytes += 1;
    else if (c < 0x800) bytes += 2;
    else if (c >= 0xd800 && c <= 0xdbff)
      bytes += 4; // high surrogate: the pair is 4 bytes
    else if (c < 0xdc00 || c > 0xdfff) bytes += 3; // low surrogates were counted with their pair

    if (inString) {
      if (escaped) escaped = false;
      else if (c === 92 /* \ */) escaped = true;
      else if (c === 34 /* " */) {
        inString = false;
        if (depth === 0) closed = true;
      }
    } else if (c === 34) inString = true;
    else if (c === 123 /* { */ || c === 91 /* [ */) depth++;
    else if (c === 125 /* } */ || c === 93 /* ] */) {
      if (depth > 0) {
        depth--;
        if (depth === 0) closed = true;
      }
    }
  }
  scan.depth = depth;
  scan.inString = inString;
  scan.escaped = escaped;
  scan.closed = closed;
  scan.bytes += bytes;
  return bytes;
}

/** True when `text` has a character other than JSON whitespace. */
export function hasNonWhitespace(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c !== 32 && c !== 9 && c !== 10 && c !== 13) return true;
  }
  return false;
}
