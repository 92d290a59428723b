import { mkdir, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import type { ToolDefinition } from '../toolTypes';
import { ToolError } from '../toolTypes';
import { resolveInWorkspace } from '../workspaceJail';
import { withFsErrors } from './fsErrors';

export const WriteFileArgsSchema = z.strictObject({
  path: z.string().min(1).describe('File path, relative to the workspace root'),
  content: z.string().describe('The complete new content of the file'),
});
export type WriteFileArgs = z.infer<typeof WriteFileArgsSchema>;

/** write_file: creates or overwrites a workspace file (and its missing parent folders). */
export const writeFileTool: ToolDefinition<typeof WriteFileArgsSchema> = {
  name: 'write_file',
  description: 'Create a file in the workspace or replace its whole content. Missing parent folders are created. For a small change to an existing file prefer edit_file.',
  schema: WriteFileArgsSchema,
  kind: 'write',
  readOnly: false,
  async run(args, context) {
    const real = await resolveInWorkspace(context.workspaceRoot, args.path, { forWrite: true });
    const existing = await stat(real).catch(() => undefined);
    if (existing?.isDirectory()) throw new ToolError(`'${args.path}' is a directory; give a file path`);
    await withFsErrors(args.path, () => mkdir(path.dirname(real), { recursive: true }));
    await withFsErrors(args.path, () => writeFile(real, args.content, { encoding: 'utf8', signal: context.signal }));
    const bytes = Buffer.byteLength(args.content, 'utf8');
    return `${existing ? 'Overwrote' : 'Created'} '${args.path}' (${bytes} bytes)`;
  },
};
