import { mkdir, stat } from 'node:fs/promises';
import { z } from 'zod';
import type { ToolDefinition } from '../toolTypes';
import { ToolError } from '../toolTypes';
import { resolveInWorkspace } from '../../files/workspaceJail';
import { fileGuardOf } from '../fileGuard';
import { withFsErrors } from '../../files/fsErrors';

export const CreateDirectoryArgsSchema = z.strictObject({
  path: z.string().min(1).describe('Folder path, relative to the workspace root; missing parents are created'),
});

/** create_directory: creates a workspace folder and its missing parents (an existing folder is fine). */
export const createDirectoryTool: ToolDefinition<typeof CreateDirectoryArgsSchema> = {
  name: 'create_directory',
  description: 'Create a folder in the workspace, including missing parent folders. Succeeds if it already exists.',
  schema: CreateDirectoryArgsSchema,
  kind: 'write',
  readOnly: false,
  origin: { kind: 'builtin' },
  idempotent: false,
  changes: 'files',
  fileAccesses: (args) => [{ path: args.path, access: 'write' }],
  async run(args, context) {
    const real = await resolveInWorkspace(context.workspaceRoot, args.path, { forWrite: true });
    fileGuardOf(context).checkPath('write', real);
    const existing = await stat(real).catch(() => undefined);
    if (existing && !existing.isDirectory()) throw new ToolError(`'${args.path}' already exists and is a file`);
    if (existing) return `Folder '${args.path}' already exists`;
    await context.beforeWrite?.(real, { directory: true });
    await withFsErrors(args.path, () => mkdir(real, { recursive: true }));
    return `Created folder '${args.path}'`;
  },
};
