import * as vscode from 'vscode';
import type { Logger } from '../core/ports';
import type { RunSource } from '../panel/runSource';
import { interruptedRuns, panelResumability, runWorkspace } from './resumableRuns';
import type { RunIndex } from './runIndex';

// "Cortex: Resume run…" and the Resume button of a restored panel (docs/design.md, “Resuming a run”).

export interface Resumer {
  resume(target: { traceFile: string; workspace: string }): Promise<void>;
}

function openFolders(): string[] {
  return (vscode.workspace.workspaceFolders ?? []).map((folder) => folder.uri.fsPath);
}

/** Lists the interrupted runs of this window's folders and resumes the one picked (or `runId`, from the Cortex view). */
export async function resumeRunCommand(
  index: RunIndex,
  isLiveHere: (runId: string) => boolean,
  resumer: Resumer,
  logger: Logger,
  runId?: string,
): Promise<void> {
  const runs = await interruptedRuns(index.list(), openFolders(), isLiveHere);
  if (runId !== undefined) {
    const run = runs.find((candidate) => candidate.runId === runId);
    if (!run) {
      void vscode.window.showInformationMessage('That Cortex run cannot be resumed here: it is running, finished, or worked in a folder that is not open.');
      return;
    }
    logger.info(`Resuming the run in ${run.traceFile}`);
    await resumer.resume({ traceFile: run.traceFile, workspace: run.workspace! });
    return;
  }
  if (runs.length === 0) {
    void vscode.window.showInformationMessage(
      'No interrupted Cortex run of this workspace to resume. A run can be resumed when it stopped without finishing (the window was reloaded or closed, the process died).',
    );
    return;
  }
  type Item = vscode.QuickPickItem & { traceFile: string; workspace: string };
  const items: Item[] = runs.map((run) => ({
    label: run.task.replace(/\s+/g, ' ').slice(0, 120),
    description: `interrupted · started ${new Date(run.startedAt).toLocaleString()}`,
    detail: `${run.runId} · ${run.workspace}`,
    traceFile: run.traceFile,
    workspace: run.workspace!,
  }));
  const picked = await vscode.window.showQuickPick(items, {
    title: 'Cortex: Resume run',
    placeHolder: 'Interrupted runs of this workspace',
    matchOnDetail: true,
  });
  if (!picked) return;
  logger.info(`Resuming the run in ${picked.traceFile}`);
  await resumer.resume({ traceFile: picked.traceFile, workspace: picked.workspace });
}

/** The panel actions behind the Resume button of a run read from its trace. */
export function panelResumeActions(
  resumer: Resumer,
  logger: Logger,
): { canResume(source: RunSource): Promise<boolean>; resume(source: RunSource): Promise<void> } {
  return {
    canResume: async (source) => {
      const verdict = await panelResumability(source, openFolders());
      if (!verdict.resumable && !source.isLive() && !source.events().some((event) => event.type === 'run_finished'))
        logger.info(`Run ${source.runId} stopped without finishing and cannot be resumed here: ${verdict.reason}`);
      return verdict.resumable;
    },
    resume: async (source) => {
      const verdict = await panelResumability(source, openFolders());
      if (!verdict.resumable) throw new Error(`this run cannot be resumed here: ${verdict.reason}`);
      await resumer.resume({ traceFile: source.traceFile!, workspace: runWorkspace(source)! });
    },
  };
}
