import { lstat, realpath } from 'node:fs/promises';
import { z } from 'zod';
import type { ToolDefinition } from '../toolTypes';
import { ToolError } from '../toolTypes';
import { displayPath, resolveInWorkspace } from '../../files/workspaceJail';
import { fileGuardOf } from '../fileGuard';
import { walkFiles, type WalkEntry } from './fileWalker';
import { withFsErrors } from '../../files/fsErrors';
import { globMatcher } from '../../files/globPattern';
import { LineMatcher, scanOpenFile } from './lineScan';
import { describeFileType, openRegularFile } from '../../files/regularFile';

/** Search stops after this long (or 80% of the tool timeout, if less) and reports partial results. */
export const SEARCH_TIME_CAP_MS = 10_000;
const MAX_LINE_CHARS = 300;
const MAX_NAMED_SKIPS = 10;

export const SearchTextArgsSchema = z.strictObject({
  pattern: z.string().min(1).describe('JavaScript regular expression to search for, line by line'),
  path: z.string().min(1).optional().describe("File or folder to search, relative to the workspace root (default '.')"),
  glob: z.string().min(1).optional().describe("Only search files matching this glob, e.g. '*.ts'"),
  case_sensitive: z.boolean().optional().describe('Match case exactly (default true)'),
  max_results: z.number().int().min(1).max(1000).optional().describe('Maximum number of matching lines to return (default 100)'),
});

/** Compiles the model's pattern, or throws a ToolError quoting the problem. */
export function compileSearchPattern(pattern: string, caseSensitive: boolean): RegExp {
  try {
    return new RegExp(pattern, caseSensitive ? '' : 'i');
  } catch (error) {
    throw new ToolError(`Invalid regular expression ${JSON.stringify(pattern)}: ${(error as Error).message}`);
  }
}

/** Files left out of a search, by reason, for the notes at the end of the result. */
class Skipped {
  readonly tooLarge: string[] = [];
  readonly protectedFiles: string[] = [];
  special = 0;

  notes(maxBytes: number): string[] {
    const list = (names: string[]) =>
      `${names.slice(0, MAX_NAMED_SKIPS).join(', ')}${names.length > MAX_NAMED_SKIPS ? `, … (${names.length - MAX_NAMED_SKIPS} more)` : ''}`;
    const notes: string[] = [];
    if (this.tooLarge.length) notes.push(`[not searched, over the ${maxBytes}-byte size limit (cortex.limits.maxReadFileBytes): ${list(this.tooLarge)}]`);
    if (this.protectedFiles.length)
      notes.push(
        `[not searched, protected from reading without approval (cortex.policy.protectedPaths): ${list(this.protectedFiles)}; use read_file on one to ask]`,
      );
    if (this.special) notes.push(`[not searched: ${this.special} file(s) that vanished, could not be opened or stopped being regular files]`);
    return notes;
  }
}

/** search_text: regex search through workspace text files, capped in time, size and results. */
export const searchTextTool: ToolDefinition<typeof SearchTextArgsSchema> = {
  name: 'search_text',
  description:
    "Search workspace text files for a regular expression, line by line. Returns 'path:line: text' for each match. Optional glob filter ('*.ts'). Skips binary files, files over the size limit, protected files, .git and node_modules; capped in time and number of results.",
  schema: SearchTextArgsSchema,
  kind: 'read',
  readOnly: true,
  origin: { kind: 'builtin' },
  idempotent: true,
  changes: 'none',
  fileAccesses: (args) => [{ path: args.path ?? '.', access: 'read' }],
  async run(args, context) {
    const regex = compileSearchPattern(args.pattern, args.case_sensitive ?? true);
    const shown = args.path ?? '.';
    const start = await resolveInWorkspace(context.workspaceRoot, shown);
    const root = await realpath(context.workspaceRoot);
    const guard = fileGuardOf(context);
    guard.checkPath('read', start);
    const startStats = await withFsErrors(shown, () => lstat(start));
    if (!startStats.isDirectory() && !startStats.isFile()) {
      throw new ToolError(`'${shown}' is ${describeFileType(startStats)}, not a regular file; file tools only read and write regular files`);
    }
    const matchesGlob = args.glob ? globMatcher(args.glob) : () => true;
    const limit = args.max_results ?? 100;
    const maxBytes = context.maxReadFileBytes;
    const deadline = Date.now() + Math.min(SEARCH_TIME_CAP_MS, Math.max(500, context.timeoutMs * 0.8));
    const matcher = new LineMatcher(regex);
    const skipped = new Skipped();
    const results: string[] = [];
    let timedOut = false;
    let more = false;

    const files: AsyncIterable<WalkEntry> | Iterable<WalkEntry> = startStats.isDirectory()
      ? walkFiles(start, { signal: context.signal, deadline })
      : [{ absolute: start, relative: shown, kind: 'file' }];
    for await (const entry of files) {
      if (entry.kind !== 'file' || !matchesGlob(entry.relative)) continue; // symlinks are never read
      if (context.signal.aborted) throw new ToolError('Cancelled');
      if (Date.now() > deadline) break;
      const shownFile = displayPath(root, entry.absolute);
      if (entry.absolute !== start && guard.readProtection(entry.absolute) !== undefined) {
        skipped.protectedFiles.push(shownFile);
        continue;
      }
      const single = entry.absolute === start;
      const opened = await openRegularFile(entry.absolute, shownFile, 'read').catch((error: unknown) => {
        if (single) throw error;
        return undefined;
      });
      if (!opened) {
        skipped.special++; // vanished, unreadable, or no longer a regular file since the folder was read
        continue;
      }
      const { handle, stats } = opened;
      try {
        if (stats.size > maxBytes) {
          skipped.tooLarge.push(shownFile);
          continue;
        }
        const scan = await scanOpenFile(handle, matcher, { maxHits: limit - results.length + 1, maxBytes, deadline, signal: context.signal });
        if (scan.tooLarge) skipped.tooLarge.push(shownFile);
        for (const [line, text] of scan.hits) {
          if (results.length >= limit) {
            more = true;
            break;
          }
          const cut = text.length > MAX_LINE_CHARS ? `${text.slice(0, MAX_LINE_CHARS)}…` : text;
          results.push(`${shownFile}:${line}: ${cut}`);
        }
        if (scan.timedOut) timedOut = true;
      } finally {
        await handle.close();
      }
      if (more || timedOut) break;
    }
    if (context.signal.aborted) throw new ToolError('Cancelled');
    if (Date.now() > deadline) timedOut = true;
    const notes = [
      more ? `[more matches not shown; limit ${limit}]` : '',
      timedOut ? '[search stopped at its time limit; results are partial — narrow the path, glob or pattern]' : '',
      ...skipped.notes(maxBytes),
    ].filter(Boolean);
    if (results.length === 0)
      return [
        `No matches for ${JSON.stringify(args.pattern)} in '${shown}'${timedOut ? ' (the search stopped at its time limit)' : ''}`,
        ...notes.filter((n) => !n.startsWith('[search stopped')),
      ].join('\n');
    return [...results, ...notes].join('\n');
  },
};
