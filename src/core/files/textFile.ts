import type { FileHandle } from 'node:fs/promises';
import { ToolError } from './toolError';
import { lstatRegularFile, openVerified, readAtMost } from './regularFile';

// Reading a workspace file as text, with the two refusals every text tool shares: files over the
// size cap and binary files (a NUL byte in the first 8 KB, as git decides). The size is checked
// before reading, and reading stops at the cap too (a file can grow while it is read).

const BINARY_SNIFF_BYTES = 8000;
const DIRECTORY_HINT = '; use list_directory to see what it contains';

/** True when the buffer looks like binary data (contains a NUL byte near the start). */
export function looksBinary(buffer: Uint8Array): boolean {
  const end = Math.min(buffer.length, BINARY_SNIFF_BYTES);
  for (let i = 0; i < end; i++) if (buffer[i] === 0) return true;
  return false;
}

function tooLarge(shownPath: string, size: number | undefined, maxBytes: number): ToolError {
  const what = size === undefined ? 'larger than' : `${size} bytes, over`;
  return new ToolError(`'${shownPath}' is ${what} the ${maxBytes}-byte read limit; use search_text to find the part you need`);
}

/** The text of an already opened regular file (size from its fstat), or a ToolError saying why not. */
export async function readOpenTextFile(handle: FileHandle, size: number, shownPath: string, maxBytes: number): Promise<string> {
  if (size > maxBytes) throw tooLarge(shownPath, size, maxBytes);
  return textOf(await readAtMost(handle, maxBytes), shownPath, maxBytes);
}

function textOf({ buffer, truncated }: { buffer: Buffer; truncated: boolean }, shownPath: string, maxBytes: number): string {
  if (truncated) throw tooLarge(shownPath, undefined, maxBytes);
  if (looksBinary(buffer)) throw new ToolError(`'${shownPath}' looks like a binary file; only text files can be read`);
  return buffer.toString('utf8');
}

/** Reads a text file at a real (already jailed and guarded) path, or throws a ToolError saying why not. */
export async function readTextFile(realPath: string, shownPath: string, maxBytes: number): Promise<string> {
  // The type is checked before any open (a FIFO must never be opened); the open checks it again.
  await lstatRegularFile(realPath, shownPath, { directoryHint: DIRECTORY_HINT });
  const { handle, stats } = await openVerified(realPath, shownPath, 'read', DIRECTORY_HINT);
  try {
    return await readOpenTextFile(handle, stats.size, shownPath, maxBytes);
  } finally {
    await handle.close();
  }
}
