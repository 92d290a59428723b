import { readdir, stat } from 'node:fs/promises';
import { z } from 'zod';
import type { ToolDefinition } from '../toolTypes';
import { ToolError } from '../toolTypes';
import { resolveInWorkspace } from '../../files/workspaceJail';
import { withFsErrors } from '../../files/fsErrors';

const MAX_ENTRIES = 1000;

export const ListDirectoryArgsSchema = z.strictObject({
  path: z.string().min(1).optional().describe("Folder path, relative to the workspace root (default '.')"),
});

/** list_directory: the entries of one workspace folder; folders end in '/', symlinks in '@' (not followed). */
export const listDirectoryTool: ToolDefinition<typeof ListDirectoryArgsSchema> = {
  name: 'list_directory',
  description:
    "List the entries of a folder in the workspace (not recursive). Folders end with '/', symbolic links with '@'. Use find_files to search recursively.",
  schema: ListDirectoryArgsSchema,
  kind: 'read',
  readOnly: true,
  origin: { kind: 'builtin' },
  idempotent: true,
  changes: 'none',
  async run(args, context) {
    const shown = args.path ?? '.';
    const real = await resolveInWorkspace(context.workspaceRoot, shown);
    const stats = await withFsErrors(shown, () => stat(real));
    if (!stats.isDirectory()) throw new ToolError(`'${shown}' is not a directory; use read_file to read a file`);
    const entries = await withFsErrors(shown, () => readdir(real, { withFileTypes: true }));
    // FIFOs, sockets and devices are left out: no file tool reads or writes them.
    const listed = entries.filter((e) => e.isSymbolicLink() || e.isDirectory() || e.isFile());
    const special = entries.length - listed.length;
    const names = listed.map((e) => (e.isSymbolicLink() ? `${e.name}@` : e.isDirectory() ? `${e.name}/` : e.name)).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    const specialNote = special > 0 ? `[${special} special file${special === 1 ? '' : 's'} (FIFOs, sockets or devices) not shown]` : '';
    if (names.length === 0) return specialNote ? `('${shown}' has no regular files or folders)\n${specialNote}` : `('${shown}' is empty)`;
    const shownNames = names.slice(0, MAX_ENTRIES);
    const more = names.length - shownNames.length;
    return [shownNames.join('\n'), more > 0 ? `[... ${more} more entries not shown]` : '', specialNote].filter(Boolean).join('\n');
  },
};
