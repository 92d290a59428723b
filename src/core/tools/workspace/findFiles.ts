import { realpath, stat } from 'node:fs/promises';
import { z } from 'zod';
import type { ToolDefinition } from '../toolTypes';
import { ToolError } from '../toolTypes';
import { displayPath, resolveInWorkspace } from '../../files/workspaceJail';
import { IGNORED_DIRECTORIES, walkFiles } from './fileWalker';
import { withFsErrors } from '../../files/fsErrors';
import { globMatcher } from '../../files/globPattern';

export const FindFilesArgsSchema = z.strictObject({
  pattern: z.string().min(1).describe("Glob pattern, e.g. '**/*.ts' or 'src/**/test_*.py'. A pattern without '/' matches file names at any depth ('*.md')."),
  path: z.string().min(1).optional().describe("Folder to search in, relative to the workspace root (default '.')"),
  max_results: z.number().int().min(1).max(1000).optional().describe('Maximum number of paths to return (default 200)'),
});

/** find_files: workspace files matching a glob, as workspace-relative paths (symlinks not followed). */
export const findFilesTool: ToolDefinition<typeof FindFilesArgsSchema> = {
  name: 'find_files',
  description: `Find files in the workspace by glob pattern ('**' any folders, '*' any characters in a name, '{a,b}' alternatives). Returns workspace-relative paths. Skips ${[...IGNORED_DIRECTORIES].join(' and ')} and does not follow symbolic links.`,
  schema: FindFilesArgsSchema,
  kind: 'read',
  readOnly: true,
  origin: { kind: 'builtin' },
  idempotent: true,
  changes: 'none',
  async run(args, context) {
    const shown = args.path ?? '.';
    const start = await resolveInWorkspace(context.workspaceRoot, shown);
    const root = await realpath(context.workspaceRoot);
    const stats = await withFsErrors(shown, () => stat(start));
    if (!stats.isDirectory()) throw new ToolError(`'${shown}' is not a directory`);
    const matches = globMatcher(args.pattern);
    const limit = args.max_results ?? 200;
    const deadline = Date.now() + Math.max(1000, context.timeoutMs * 0.8);
    const found: string[] = [];
    let more = false;
    for await (const entry of walkFiles(start, { signal: context.signal, deadline })) {
      if (!matches(entry.relative)) continue;
      if (found.length >= limit) {
        more = true;
        break;
      }
      found.push(displayPath(root, entry.absolute));
    }
    if (context.signal.aborted) throw new ToolError('Cancelled');
    const stoppedEarly = Date.now() > deadline;
    if (found.length === 0) return `No files match '${args.pattern}' in '${shown}'${stoppedEarly ? ' (the search stopped at its time limit)' : ''}`;
    const notes = [
      more ? `[more matches not shown; limit ${limit}]` : '',
      stoppedEarly ? '[search stopped at its time limit; narrow the path or pattern]' : '',
    ].filter(Boolean);
    return [...found, ...notes].join('\n');
  },
};
