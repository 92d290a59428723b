import { z } from 'zod';
import type { ToolDefinition } from '../toolTypes';
import { ToolError } from '../toolTypes';
import { resolveInWorkspace } from '../../files/workspaceJail';
import { fileGuardOf } from '../fileGuard';
import { readTextFile } from '../../files/textFile';

export const ReadFileArgsSchema = z.strictObject({
  path: z.string().min(1).describe('File path, relative to the workspace root'),
  start_line: z.number().int().min(1).optional().describe('First line to return (1-based, inclusive)'),
  end_line: z.number().int().min(1).optional().describe('Last line to return (1-based, inclusive)'),
});

/** Selects lines [start, end] (1-based, inclusive; end clamped to the file) or explains why not. */
export function selectLines(text: string, start: number | undefined, end: number | undefined): string {
  if (start === undefined && end === undefined) return text;
  const lines = text.split('\n');
  if (lines.length > 1 && lines[lines.length - 1] === '') lines.pop(); // trailing newline ends the last line
  const from = start ?? 1;
  const to = Math.min(end ?? lines.length, lines.length);
  if (end !== undefined && end < from) throw new ToolError(`end_line (${end}) is before start_line (${from})`);
  if (from > lines.length) throw new ToolError(`start_line ${from} is past the end of the file (${lines.length} lines)`);
  return lines.slice(from - 1, to).join('\n');
}

/** read_file: a text file of the workspace, whole or a line range; binary and oversized files are refused. */
export const readFileTool: ToolDefinition<typeof ReadFileArgsSchema> = {
  name: 'read_file',
  description:
    'Read a text file in the workspace. Optionally pass start_line and end_line (1-based, inclusive) to read only part of it. Binary files and files over the size limit are refused.',
  schema: ReadFileArgsSchema,
  kind: 'read',
  readOnly: true,
  origin: { kind: 'builtin' },
  idempotent: true,
  changes: 'none',
  fileAccesses: (args) => [{ path: args.path, access: 'read' }],
  async run(args, context) {
    const real = await resolveInWorkspace(context.workspaceRoot, args.path);
    fileGuardOf(context).checkPath('read', real);
    const text = await readTextFile(real, args.path, context.maxReadFileBytes);
    const selected = selectLines(text, args.start_line, args.end_line);
    return selected === '' ? `('${args.path}' is empty)` : selected;
  },
};
