import type { ToolDefinition } from '../tools/toolTypes';
import type { FileGuard } from '../tools/fileGuard';
import { openRegularFile } from '../files/regularFile';
import { readOpenTextFile } from '../files/textFile';
import { resolveInWorkspace } from '../files/workspaceJail';
import { unifiedDiff } from './unifiedDiff';

// The diff a file tool's call would make (the tools that declare a `changePreview`: write_file, edit_file), for the person asked to approve it
// (docs/design.md, “Checkpoints and revert”). It is computed from the exact arguments the approval's hash binds, against
// the file as it is when approval is asked, and shortened to what a card can show. Anything that
// keeps it from being computed (a missing file for an edit, a binary or oversized file, a path the
// tool would refuse) gives no preview: the call's own checks say why when it runs. A file that is
// protected from reading (cortex.policy.protectedPaths) is never read for a preview: its content
// would reach the trace and the panel before anyone approved reading it.

/** Lines of a preview; the rest is counted, not shown. */
export const PREVIEW_MAX_LINES = 80;
export const PREVIEW_MAX_CHARS = 6000;

/** The file's text, null when it does not exist; throws when it may not or cannot be read. */
async function currentText(workspaceRoot: string, shownPath: string, maxBytes: number, guard: FileGuard): Promise<string | null> {
  const real = await resolveInWorkspace(workspaceRoot, shownPath, { forWrite: true });
  guard.checkPath('read', real);
  let opened;
  try {
    opened = await openRegularFile(real, shownPath, 'read');
  } catch (error) {
    if ((error as Error).message.includes('does not exist')) return null;
    throw error;
  }
  try {
    // Hard links and executables are checked on what was opened, as read_file does.
    guard.checkOpened('read', real, opened.stats);
    return await readOpenTextFile(opened.handle, opened.stats.size, shownPath, maxBytes);
  } finally {
    await opened.handle.close();
  }
}

/** Cuts a diff to PREVIEW_MAX_LINES lines and PREVIEW_MAX_CHARS characters, saying how much was left out. */
export function shortenDiff(diff: string): string {
  const lines = diff.split('\n');
  if (lines.at(-1) === '') lines.pop();
  let kept = lines.slice(0, PREVIEW_MAX_LINES);
  while (kept.length > 1 && kept.join('\n').length > PREVIEW_MAX_CHARS) kept = kept.slice(0, -1);
  const omitted = lines.length - kept.length;
  return `${kept.join('\n')}\n${omitted > 0 ? `… ${omitted} more line${omitted === 1 ? '' : 's'} of the diff not shown\n` : ''}`;
}

/**
 * The shortened diff `tool` would make with `args`, or undefined when there is none to show.
 * `guard` is the batch's file guard with nothing approved.
 */
export async function approvalPreview(
  workspaceRoot: string,
  tool: ToolDefinition,
  args: unknown,
  maxReadBytes: number,
  guard: FileGuard,
): Promise<string | undefined> {
  if (!tool.changePreview) return undefined;
  try {
    const { path, after } = tool.changePreview(args);
    const before = await currentText(workspaceRoot, path, maxReadBytes, guard);
    const text = after(before);
    if (text === undefined) return undefined;
    const diff = unifiedDiff(before ?? '', text, { oldLabel: before === null ? '/dev/null' : `a/${path}`, newLabel: `b/${path}` });
    return shortenDiff(diff || `(no change: '${path}' already has this content)\n`);
  } catch {
    return undefined;
  }
}

/** Previews for the calls of a batch that wait for approval, by call id. */
export async function approvalPreviews(
  workspaceRoot: string,
  calls: ReadonlyArray<{ callId: string; tool: ToolDefinition; args: unknown }>,
  maxReadBytes: number,
  guard: FileGuard,
): Promise<Map<string, string>> {
  const previews = new Map<string, string>();
  for (const call of calls) {
    const preview = await approvalPreview(workspaceRoot, call.tool, call.args, maxReadBytes, guard);
    if (preview) previews.set(call.callId, preview);
  }
  return previews;
}
