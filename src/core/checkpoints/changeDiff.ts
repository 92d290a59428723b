import { looksBinary } from '../files/textFile';
import type { FileSummary } from './changeSummary';
import type { ContentStore } from './contentStore';
import { countChangedLines, unifiedDiff } from './unifiedDiff';

// The text of `cortex diff`: one unified diff per changed file, from the contents the run saved
// (not from the disk, which may have changed since). Files whose content was not saved, binary
// files and folders get one line saying so.

async function contentOf(store: ContentStore, hash: string | null, known: boolean): Promise<Buffer | null | 'missing'> {
  if (!known) return 'missing';
  if (hash === null) return null;
  return (await store.get(hash)) ?? 'missing';
}

export interface FileDiff {
  path: string;
  text: string;
  /** Net lines added and removed, for text files whose contents are known. */
  added?: number;
  removed?: number;
}

/** The diff of one file's net change. */
export async function fileDiff(summary: FileSummary, store: ContentStore): Promise<FileDiff> {
  const { path } = summary;
  const a = `a/${path}`;
  const b = `b/${path}`;
  const mark = summary.reverted ? `# reverted (${summary.reverted}): ${path}\n` : '';
  if (summary.directory) return { path, text: `${mark}# folder ${summary.kind === 'created' ? 'created' : 'deleted'}: ${path}/\n` };
  const before = await contentOf(store, summary.before, summary.beforeKnown);
  const after = await contentOf(store, summary.after, summary.afterKnown);
  if (before === 'missing' || after === 'missing') {
    const why = summary.notes[0] ?? 'its content was not saved';
    return { path, text: `${mark}Files ${summary.kind === 'created' ? '/dev/null' : a} and ${summary.kind === 'deleted' ? '/dev/null' : b} differ (${why})\n` };
  }
  if ((before && looksBinary(before)) || (after && looksBinary(after)))
    return { path, text: `${mark}Binary files ${before ? a : '/dev/null'} and ${after ? b : '/dev/null'} differ\n` };
  const oldText = before?.toString('utf8') ?? '';
  const newText = after?.toString('utf8') ?? '';
  const text = unifiedDiff(oldText, newText, { oldLabel: before ? a : '/dev/null', newLabel: after ? b : '/dev/null' });
  return { path, text: mark + (text || `# ${summary.kind} (empty file): ${path}\n`), ...countChangedLines(oldText, newText) };
}

/** The diffs of every summary, in order, with the net line counts of them all. */
export async function diffText(
  summaries: readonly FileSummary[],
  store: ContentStore,
): Promise<{ text: string; files: FileDiff[]; added: number; removed: number }> {
  const files: FileDiff[] = [];
  for (const summary of summaries) files.push(await fileDiff(summary, store));
  return {
    text: files.map((f) => f.text).join(''),
    files,
    added: files.reduce((n, f) => n + (f.added ?? 0), 0),
    removed: files.reduce((n, f) => n + (f.removed ?? 0), 0),
  };
}
