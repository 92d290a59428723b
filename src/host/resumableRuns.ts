import { existsSync, realpathSync } from 'node:fs';
import { traceResumability, type TraceResumability } from '../core/resume/traceStatus';
import type { RunSource } from '../panel/runSource';
import type { RecentRun } from './runIndex';

// Which runs this window can resume (docs/design.md, “Resuming a run”): runs of one of its folders whose trace
// stopped without run_finished and that no live process drives. Used by "Cortex: Resume run…"
// and by a restored panel to offer its Resume button.

function canonicalSync(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}

/** The open folder that is `workspace` (the same directory), if any. */
export function matchingFolder<T extends { path: string }>(workspace: string, folders: readonly T[]): T | undefined {
  const wanted = canonicalSync(workspace);
  return folders.find((folder) => folder.path === workspace || canonicalSync(folder.path) === wanted);
}

/** Recent runs of the open folders that stopped without finishing and that nobody drives, newest first. */
export function interruptedRunsSync(recent: readonly RecentRun[], folders: readonly string[], isLiveHere: (runId: string) => boolean): RecentRun[] {
  const open = folders.map((path) => ({ path }));
  return recent.filter(
    (run) =>
      run.status === 'running' &&
      !isLiveHere(run.runId) &&
      run.workspace !== undefined &&
      matchingFolder(run.workspace, open) !== undefined &&
      existsSync(run.traceFile) &&
      traceResumability(run.traceFile).resumable,
  );
}

/** The workspace a run's events say it worked in. */
export function runWorkspace(source: RunSource): string | undefined {
  const started = source.events()[0];
  return started?.type === 'run_started' ? started.workspace : undefined;
}

/** Whether a panel's run can be resumed in this window, and if not, why. */
export function panelResumability(source: RunSource, folders: readonly string[]): TraceResumability {
  if (source.isLive()) return { resumable: false, reason: 'the run is running' };
  if (!source.traceFile) return { resumable: false, reason: 'the run has no trace file' };
  if (source.events().some((event) => event.type === 'run_finished')) return { resumable: false, reason: 'the run finished' };
  const workspace = runWorkspace(source);
  if (!workspace) return { resumable: false, reason: 'its trace does not say which folder it worked in' };
  if (
    !matchingFolder(
      workspace,
      folders.map((path) => ({ path })),
    )
  )
    return { resumable: false, reason: `the run worked in ${workspace}, which is not open in this window` };
  return traceResumability(source.traceFile);
}
