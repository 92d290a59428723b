import type { FileHandle } from 'node:fs/promises';
import { StringDecoder } from 'node:string_decoder';
import vm from 'node:vm';
import { looksBinary } from '../../files/textFile';

// search_text's per-file scan: the file is read in chunks and matched line by line, so memory
// stays at one chunk plus the longest line whatever the file's size. Matching runs in a vm context
// with a timeout, because V8 can interrupt a runaway (catastrophically backtracking) regular
// expression there, which plain code cannot.

const CHUNK_BYTES = 64 * 1024;

const SCAN = new vm.Script(`(() => {
  const hits = [];
  for (let i = 0; i < lines.length && hits.length < maxHits; i++) if (re.test(lines[i])) hits.push([firstLine + i, lines[i]]);
  return hits;
})()`);

export type LineHit = [line: number, text: string];

export interface FileScan {
  hits: LineHit[];
  /** The first bytes hold a NUL: not scanned. */
  binary: boolean;
  /** More than `maxBytes` were there to read (the file grew past its checked size): stopped. */
  tooLarge: boolean;
  /** The deadline passed (or the regex ran out of time) before the file was done. */
  timedOut: boolean;
}

/** Matches one regex against lines, in a vm context reused for every file of a search. */
export class LineMatcher {
  private readonly sandbox: vm.Context;

  constructor(regex: RegExp) {
    this.sandbox = vm.createContext({ re: regex, lines: [] as string[], firstLine: 1, maxHits: 0 });
  }

  /** Hits among `lines` (numbered from `firstLine`), at most `maxHits`; throws when `timeoutMs` runs out. */
  match(lines: string[], firstLine: number, maxHits: number, timeoutMs: number): LineHit[] {
    Object.assign(this.sandbox, { lines, firstLine, maxHits });
    return SCAN.runInContext(this.sandbox, { timeout: Math.max(1, Math.ceil(timeoutMs)) }) as LineHit[];
  }
}

/** Scans an open regular file line by line, reading at most `maxBytes`. */
export async function scanOpenFile(
  handle: FileHandle,
  matcher: LineMatcher,
  options: { maxHits: number; maxBytes: number; deadline: number; signal: AbortSignal },
): Promise<FileScan> {
  const scan: FileScan = { hits: [], binary: false, tooLarge: false, timedOut: false };
  const decoder = new StringDecoder('utf8');
  const buffer = Buffer.allocUnsafe(CHUNK_BYTES);
  let position = 0;
  let pending = '';
  let nextLine = 1;
  const matchLines = (rawLines: string[]): boolean => {
    const lines = rawLines.map((line) => (line.endsWith('\r') ? line.slice(0, -1) : line)); // CRLF files
    const remaining = options.deadline - Date.now();
    if (remaining <= 0) return ((scan.timedOut = true), false);
    try {
      scan.hits.push(...matcher.match(lines, nextLine, options.maxHits - scan.hits.length, remaining));
    } catch {
      return ((scan.timedOut = true), false); // the regex ran out of time on these lines
    }
    nextLine += lines.length;
    return scan.hits.length < options.maxHits;
  };
  for (;;) {
    options.signal.throwIfAborted();
    const { bytesRead } = await handle.read(buffer, 0, CHUNK_BYTES, position);
    if (bytesRead === 0) break;
    if (position === 0 && looksBinary(buffer.subarray(0, bytesRead))) return { ...scan, binary: true };
    position += bytesRead;
    if (position > options.maxBytes) return { ...scan, tooLarge: true };
    const text = decoder.write(buffer.subarray(0, bytesRead));
    if (!text.includes('\n')) {
      pending += text; // a long line: split only once it ends
      continue;
    }
    const lines = (pending + text).split('\n');
    pending = lines.pop()!;
    if (lines.length > 0 && !matchLines(lines)) return scan;
  }
  pending += decoder.end();
  if (pending !== '') matchLines([pending]);
  return scan;
}
