import { z } from 'zod';
import type { ToolDefinition } from '../toolTypes';
import { ToolError } from '../toolTypes';
import { resolveInWorkspace } from '../../files/workspaceJail';
import { fileGuardOf } from '../fileGuard';
import { withFsErrors } from '../../files/fsErrors';
import { openRegularFile, replaceContent } from '../../files/regularFile';
import { readOpenTextFile } from '../../files/textFile';

export const EditFileArgsSchema = z.strictObject({
  path: z.string().min(1).describe('File path, relative to the workspace root'),
  old_text: z.string().min(1).describe('Exact text to replace, including whitespace and indentation; must occur exactly once unless replace_all is true'),
  new_text: z.string().describe('Text to put in its place'),
  replace_all: z.boolean().optional().describe('Replace every occurrence instead of requiring exactly one'),
});

/** Start offsets of every occurrence of `needle` (non-overlapping). */
function occurrences(haystack: string, needle: string): number[] {
  const found: number[] = [];
  for (let at = haystack.indexOf(needle); at !== -1; at = haystack.indexOf(needle, at + needle.length)) found.push(at);
  return found;
}

function lineOf(text: string, offset: number): number {
  let line = 1;
  for (let i = 0; i < offset; i++) if (text.charCodeAt(i) === 10) line++;
  return line;
}

/**
 * Replaces `oldText` with `newText` in `text`: exactly one occurrence, or all with `replaceAll`.
 * Text with \n line ends also matches a file with \r\n ones. Throws a ToolError naming the
 * problem when the text is absent or not unique.
 */
export function applyEdit(text: string, oldText: string, newText: string, replaceAll: boolean, shownPath: string): { text: string; count: number } {
  if (oldText === newText) throw new ToolError('old_text and new_text are identical; nothing to change');
  let search = oldText;
  let replacement = newText;
  let found = occurrences(text, search);
  if (found.length === 0 && text.includes('\r\n') && !oldText.includes('\r\n')) {
    search = oldText.replace(/\n/g, '\r\n');
    replacement = newText.replace(/\r?\n/g, '\r\n');
    found = occurrences(text, search);
  }
  if (found.length === 0) {
    const loose = (s: string) => s.replace(/\s+/g, ' ').trim();
    const hint = loose(text).includes(loose(oldText))
      ? ' (a similar text with different whitespace or indentation exists; copy it exactly)'
      : '; read the file again to get the current text';
    throw new ToolError(`old_text was not found in '${shownPath}'${hint}`);
  }
  if (found.length > 1 && !replaceAll) {
    const lines = found.slice(0, 10).map((at) => lineOf(text, at));
    throw new ToolError(
      `old_text occurs ${found.length} times in '${shownPath}' (at lines ${lines.join(', ')}${found.length > 10 ? ', …' : ''}); include more surrounding text to make it unique, or set replace_all to true`,
    );
  }
  let out = '';
  let last = 0;
  for (const at of found) {
    out += text.slice(last, at) + replacement;
    last = at + search.length;
  }
  return { text: out + text.slice(last), count: found.length };
}

/**
 * edit_file: exact search and replace in a workspace text file. It reads the file (so its content
 * can leak through "not found" hints: the read is checked like read_file's) and writes it through
 * one handle, so the file written is the file that was read and checked.
 */
export const editFileTool: ToolDefinition<typeof EditFileArgsSchema> = {
  name: 'edit_file',
  description:
    'Replace exact text in a workspace file. old_text must match the file exactly (whitespace included) and occur once, unless replace_all is true. Read the file first to copy the text.',
  schema: EditFileArgsSchema,
  kind: 'write',
  readOnly: false,
  origin: { kind: 'builtin' },
  idempotent: false,
  changes: 'files',
  fileAccesses: (args) => [
    { path: args.path, access: 'read' },
    { path: args.path, access: 'write' },
  ],
  changePreview: (args) => ({
    path: args.path,
    // An edit needs the file; a failing edit has no preview (its own error says why when it runs).
    after: (before) => (before === null ? undefined : applyEdit(before, args.old_text, args.new_text, args.replace_all ?? false, args.path).text),
  }),
  async run(args, context) {
    const real = await resolveInWorkspace(context.workspaceRoot, args.path, { forWrite: true });
    const guard = fileGuardOf(context);
    guard.checkPath('read', real);
    guard.checkPath('write', real);
    const { handle, stats } = await openRegularFile(real, args.path, 'update', { directoryHint: '; give a file path' });
    try {
      guard.checkOpened('write', real, stats);
      const text = await readOpenTextFile(handle, stats.size, args.path, context.maxReadFileBytes);
      const edited = applyEdit(text, args.old_text, args.new_text, args.replace_all ?? false, args.path);
      context.signal.throwIfAborted();
      await context.beforeWrite?.(real);
      await withFsErrors(args.path, () => replaceContent(handle, edited.text));
      return `Replaced ${edited.count} occurrence${edited.count === 1 ? '' : 's'} in '${args.path}'`;
    } finally {
      await handle.close();
    }
  },
};
