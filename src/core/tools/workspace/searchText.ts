import { readFile, realpath, stat } from 'node:fs/promises';
import vm from 'node:vm';
import { z } from 'zod';
import type { ToolDefinition } from '../toolTypes';
import { ToolError } from '../toolTypes';
import { displayPath, resolveInWorkspace } from '../workspaceJail';
import { walkFiles } from './fileWalker';
import { withFsErrors } from './fsErrors';
import { globMatcher } from './globPattern';
import { looksBinary } from './textFile';

/** Search stops after this long (or 80% of the tool timeout, if less) and reports partial results. */
export const SEARCH_TIME_CAP_MS = 10_000;
const MAX_LINE_CHARS = 300;

export const SearchTextArgsSchema = z.strictObject({
  pattern: z.string().min(1).describe('JavaScript regular expression to search for, line by line'),
  path: z.string().min(1).optional().describe("File or folder to search, relative to the workspace root (default '.')"),
  glob: z.string().min(1).optional().describe("Only search files matching this glob, e.g. '*.ts'"),
  case_sensitive: z.boolean().optional().describe('Match case exactly (default true)'),
  max_results: z.number().int().min(1).max(1000).optional().describe('Maximum number of matching lines to return (default 100)'),
});
export type SearchTextArgs = z.infer<typeof SearchTextArgsSchema>;

// The per-file scan runs in a vm context with a timeout, because V8 can interrupt a runaway
// (catastrophically backtracking) regular expression there, which plain code cannot.
const SCAN = new vm.Script(`(() => {
  const hits = [];
  const lines = text.split('\\n');
  for (let i = 0; i < lines.length && hits.length < maxHits; i++) if (re.test(lines[i])) hits.push([i + 1, lines[i]]);
  return hits;
})()`);

/** Compiles the model's pattern, or throws a ToolError quoting the problem. */
export function compileSearchPattern(pattern: string, caseSensitive: boolean): RegExp {
  try {
    return new RegExp(pattern, caseSensitive ? '' : 'i');
  } catch (error) {
    throw new ToolError(`Invalid regular expression ${JSON.stringify(pattern)}: ${(error as Error).message}`);
  }
}

/** search_text: regex search through workspace text files, capped in time and results. */
export const searchTextTool: ToolDefinition<typeof SearchTextArgsSchema> = {
  name: 'search_text',
  description:
    "Search workspace text files for a regular expression, line by line. Returns 'path:line: text' for each match. Optional glob filter ('*.ts'). Skips binary and very large files, .git and node_modules; capped in time and number of results.",
  schema: SearchTextArgsSchema,
  kind: 'read',
  readOnly: true,
  async run(args, context) {
    const regex = compileSearchPattern(args.pattern, args.case_sensitive ?? true);
    const shown = args.path ?? '.';
    const start = await resolveInWorkspace(context.workspaceRoot, shown);
    const root = await realpath(context.workspaceRoot);
    const startStats = await withFsErrors(shown, () => stat(start));
    const matchesGlob = args.glob ? globMatcher(args.glob) : () => true;
    const limit = args.max_results ?? 100;
    const deadline = Date.now() + Math.min(SEARCH_TIME_CAP_MS, Math.max(500, context.timeoutMs * 0.8));
    const sandbox = vm.createContext({ re: regex, text: '', maxHits: 0 });
    const results: string[] = [];
    let timedOut = false;
    let more = false;

    const files = startStats.isDirectory()
      ? walkFiles(start, { signal: context.signal, deadline })
      : (async function* () {
          yield { absolute: start, relative: shown, kind: 'file' as const };
        })();
    for await (const entry of files) {
      if (entry.kind !== 'file' || !matchesGlob(entry.relative)) continue; // symlinks are never read
      if (context.signal.aborted) throw new ToolError('Cancelled');
      const buffer = await readFile(entry.absolute).catch(() => undefined);
      if (!buffer || buffer.length > context.maxReadFileBytes || looksBinary(buffer)) continue;
      const remaining = deadline - Date.now();
      if (remaining <= 0) {
        timedOut = true;
        break;
      }
      sandbox.text = buffer.toString('utf8');
      sandbox.maxHits = limit - results.length + 1;
      let hits: Array<[number, string]>;
      try {
        hits = SCAN.runInContext(sandbox, { timeout: Math.max(1, Math.ceil(remaining)) });
      } catch {
        timedOut = true; // the regex ran out of time on this file
        break;
      }
      const shownFile = displayPath(root, entry.absolute);
      for (const [line, text] of hits) {
        if (results.length >= limit) {
          more = true;
          break;
        }
        const cut = text.length > MAX_LINE_CHARS ? `${text.slice(0, MAX_LINE_CHARS)}…` : text;
        results.push(`${shownFile}:${line}: ${cut}`);
      }
      if (more) break;
    }
    if (Date.now() > deadline) timedOut = true;
    const notes = [more ? `[more matches not shown; limit ${limit}]` : '', timedOut ? '[search stopped at its time limit; results are partial — narrow the path, glob or pattern]' : ''].filter(Boolean);
    if (results.length === 0) return `No matches for ${JSON.stringify(args.pattern)} in '${shown}'${timedOut ? ' (the search stopped at its time limit)' : ''}`;
    return [...results, ...notes].join('\n');
  },
};
