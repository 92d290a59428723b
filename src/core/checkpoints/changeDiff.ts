import { looksBinary } from '../tools/workspace/textFile';
import type { FileSummary } from './changeSummary';
import type { ContentStore } from './contentStore';
import { unifiedDiff } from './unifiedDiff';

// The text of `cortex diff`: one unified diff per changed file, from the contents the run saved
// (not from the disk, which may have changed since). Files whose content was not saved, binary
// files and folders get one line saying so.

async function contentOf(store: ContentStore, hash: string | null, known: boolean): Promise<Buffer | null | 'missing'> {
  if (!known) return 'missing';
  if (hash === null) return null;
  return (await store.get(hash)) ?? 'missing';
}

/** The diff of one file's net change. */
export async function fileDiff(summary: FileSummary, store: ContentStore): Promise<string> {
  const a = `a/${summary.path}`;
  const b = `b/${summary.path}`;
  const mark = summary.reverted ? `# reverted (${summary.reverted}): ${summary.path}\n` : '';
  if (summary.directory) return `${mark}# folder ${summary.kind === 'created' ? 'created' : 'deleted'}: ${summary.path}/\n`;
  const before = await contentOf(store, summary.before, summary.beforeKnown);
  const after = await contentOf(store, summary.after, summary.afterKnown);
  if (before === 'missing' || after === 'missing') {
    const why = summary.notes[0] ?? 'its content was not saved';
    return `${mark}Files ${summary.kind === 'created' ? '/dev/null' : a} and ${summary.kind === 'deleted' ? '/dev/null' : b} differ (${why})\n`;
  }
  if ((before && looksBinary(before)) || (after && looksBinary(after))) return `${mark}Binary files ${before ? a : '/dev/null'} and ${after ? b : '/dev/null'} differ\n`;
  const text = unifiedDiff(before?.toString('utf8') ?? '', after?.toString('utf8') ?? '', { oldLabel: before ? a : '/dev/null', newLabel: after ? b : '/dev/null' });
  return mark + (text || `# ${summary.kind} (empty file): ${summary.path}\n`);
}

/** The diffs of every summary, in order. */
export async function diffText(summaries: readonly FileSummary[], store: ContentStore): Promise<string> {
  let out = '';
  for (const summary of summaries) out += await fileDiff(summary, store);
  return out;
}
