import { realpath } from 'node:fs/promises';
import { traceResumability, type TraceResumability } from '../core/resume/traceStatus';
import type { RunSource } from '../panel/runSource';
import type { RecentRun } from './runIndex';

// Which runs this window can resume (docs/design.md, “Resuming a run”): runs of one of its folders whose trace
// stopped without run_finished and that no live process drives. Used by "Cortex: Resume run…"
// and by a restored panel to offer its Resume button.

// Folders and traces can be on a slow or network disk: nothing here holds the extension host's thread.

function canonical(path: string): Promise<string> {
  return realpath(path).catch(() => path);
}

/** The open folder that is `workspace` (the same directory), if any. */
export async function matchingFolder<T extends { path: string }>(workspace: string, folders: readonly T[]): Promise<T | undefined> {
  const same = folders.find((folder) => folder.path === workspace);
  if (same) return same;
  const wanted = await canonical(workspace);
  const canonicalFolders = await Promise.all(folders.map((folder) => canonical(folder.path)));
  return folders.find((_, index) => canonicalFolders[index] === wanted);
}

/** Recent runs of the open folders that stopped without finishing and that nobody drives, newest first. */
export async function interruptedRuns(recent: readonly RecentRun[], folders: readonly string[], isLiveHere: (runId: string) => boolean): Promise<RecentRun[]> {
  const open = folders.map((path) => ({ path }));
  const candidates = recent.filter((run) => run.status === 'running' && !isLiveHere(run.runId) && run.workspace !== undefined);
  const verdicts = await Promise.all(
    candidates.map(async (run) => (await matchingFolder(run.workspace!, open)) !== undefined && (await traceResumability(run.traceFile)).resumable),
  );
  return candidates.filter((_, index) => verdicts[index]);
}

/** The workspace a run's events say it worked in. */
export function runWorkspace(source: RunSource): string | undefined {
  const started = source.events()[0];
  return started?.type === 'run_started' ? started.workspace : undefined;
}

/** Whether a panel's run can be resumed in this window, and if not, why. */
export async function panelResumability(source: RunSource, folders: readonly string[]): Promise<TraceResumability> {
  if (source.isLive()) return { resumable: false, reason: 'the run is running' };
  if (!source.traceFile) return { resumable: false, reason: 'the run has no trace file' };
  if (source.events().some((event) => event.type === 'run_finished')) return { resumable: false, reason: 'the run finished' };
  const workspace = runWorkspace(source);
  if (!workspace) return { resumable: false, reason: 'its trace does not say which folder it worked in' };
  if (
    !(await matchingFolder(
      workspace,
      folders.map((path) => ({ path })),
    ))
  )
    return { resumable: false, reason: `the run worked in ${workspace}, which is not open in this window` };
  return traceResumability(source.traceFile);
}
