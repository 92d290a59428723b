import { readFile, stat } from 'node:fs/promises';
import { ToolError } from '../toolTypes';
import { withFsErrors } from './fsErrors';

// Reading a workspace file as text, with the two refusals every text tool shares: files over the
// size cap and binary files (a NUL byte in the first 8 KB, as git decides).

const BINARY_SNIFF_BYTES = 8000;

/** True when the buffer looks like binary data (contains a NUL byte near the start). */
export function looksBinary(buffer: Uint8Array): boolean {
  const end = Math.min(buffer.length, BINARY_SNIFF_BYTES);
  for (let i = 0; i < end; i++) if (buffer[i] === 0) return true;
  return false;
}

/** Reads a text file at a real (already jailed) path, or throws a ToolError saying why not. */
export async function readTextFile(realPath: string, shownPath: string, maxBytes: number): Promise<string> {
  const stats = await withFsErrors(shownPath, () => stat(realPath));
  if (stats.isDirectory()) throw new ToolError(`'${shownPath}' is a directory; use list_directory to see what it contains`);
  if (!stats.isFile()) throw new ToolError(`'${shownPath}' is not a regular file`);
  if (stats.size > maxBytes) {
    throw new ToolError(`'${shownPath}' is ${stats.size} bytes, over the ${maxBytes}-byte read limit; use search_text to find the part you need`);
  }
  const buffer = await withFsErrors(shownPath, () => readFile(realPath));
  if (looksBinary(buffer)) throw new ToolError(`'${shownPath}' looks like a binary file; only text files can be read`);
  return buffer.toString('utf8');
}
