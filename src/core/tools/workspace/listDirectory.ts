import { readdir, stat } from 'node:fs/promises';
import { z } from 'zod';
import type { ToolDefinition } from '../toolTypes';
import { ToolError } from '../toolTypes';
import { resolveInWorkspace } from '../workspaceJail';
import { withFsErrors } from './fsErrors';

const MAX_ENTRIES = 1000;

export const ListDirectoryArgsSchema = z.strictObject({
  path: z.string().min(1).optional().describe("Folder path, relative to the workspace root (default '.')"),
});
export type ListDirectoryArgs = z.infer<typeof ListDirectoryArgsSchema>;

/** list_directory: the entries of one workspace folder; folders end in '/', symlinks in '@' (not followed). */
export const listDirectoryTool: ToolDefinition<typeof ListDirectoryArgsSchema> = {
  name: 'list_directory',
  description: "List the entries of a folder in the workspace (not recursive). Folders end with '/', symbolic links with '@'. Use find_files to search recursively.",
  schema: ListDirectoryArgsSchema,
  kind: 'read',
  readOnly: true,
  async run(args, context) {
    const shown = args.path ?? '.';
    const real = await resolveInWorkspace(context.workspaceRoot, shown);
    const stats = await withFsErrors(shown, () => stat(real));
    if (!stats.isDirectory()) throw new ToolError(`'${shown}' is not a directory; use read_file to read a file`);
    const entries = await withFsErrors(shown, () => readdir(real, { withFileTypes: true }));
    const names = entries
      .map((e) => (e.isSymbolicLink() ? `${e.name}@` : e.isDirectory() ? `${e.name}/` : e.name))
      .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    if (names.length === 0) return `('${shown}' is empty)`;
    const shownNames = names.slice(0, MAX_ENTRIES);
    const more = names.length - shownNames.length;
    return shownNames.join('\n') + (more > 0 ? `\n[... ${more} more entries not shown]` : '');
  },
};
