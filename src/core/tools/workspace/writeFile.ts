import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import type { ToolDefinition } from '../toolTypes';
import { resolveInWorkspace } from '../../files/workspaceJail';
import { fileGuardOf } from '../fileGuard';
import { withFsErrors } from '../../files/fsErrors';
import { lstatRegularFile, openRegularFile, replaceContent } from '../../files/regularFile';

export const WriteFileArgsSchema = z.strictObject({
  path: z.string().min(1).describe('File path, relative to the workspace root'),
  content: z.string().describe('The complete new content of the file'),
});

const DIRECTORY_HINT = '; give a file path';

/**
 * write_file: creates or overwrites a regular workspace file (and its missing parent folders).
 * The file is opened without truncating, checked (type, links, protection), then replaced; a new
 * file gets mode 0666 minus the umask, so it is never executable.
 */
export const writeFileTool: ToolDefinition<typeof WriteFileArgsSchema> = {
  name: 'write_file',
  description:
    'Create a file in the workspace or replace its whole content. Missing parent folders are created. For a small change to an existing file prefer edit_file.',
  schema: WriteFileArgsSchema,
  kind: 'write',
  readOnly: false,
  origin: { kind: 'builtin' },
  idempotent: false,
  changes: 'files',
  fileAccesses: (args) => [{ path: args.path, access: 'write' }],
  changePreview: (args) => ({ path: args.path, after: () => args.content }),
  async run(args, context) {
    const real = await resolveInWorkspace(context.workspaceRoot, args.path, { forWrite: true });
    const guard = fileGuardOf(context);
    guard.checkPath('write', real);
    const existed = (await lstatRegularFile(real, args.path, { allowMissing: true, directoryHint: DIRECTORY_HINT })) !== undefined;
    await context.beforeWrite?.(real);
    await withFsErrors(args.path, () => mkdir(path.dirname(real), { recursive: true }));
    const { handle, stats } = await openRegularFile(real, args.path, 'write', { directoryHint: DIRECTORY_HINT });
    try {
      guard.checkOpened('write', real, stats);
      context.signal.throwIfAborted();
      await withFsErrors(args.path, () => replaceContent(handle, args.content));
    } finally {
      await handle.close();
    }
    const bytes = Buffer.byteLength(args.content, 'utf8');
    return `${existed ? 'Overwrote' : 'Created'} '${args.path}' (${bytes} bytes)`;
  },
};
