import { basename } from 'node:path';
import * as vscode from 'vscode';
import type { Logger } from '../core/ports';
import type { RunSource } from '../panel/runSource';
import type { PanelManager } from './panelManager';
import type { RunIndex } from './runIndex';
import type { RunRegistry } from './runRegistry';

/** `Cortex: Open run trace…`: a recent run from the index, or any .jsonl trace file, in its panel. */
export async function openRunTrace(index: RunIndex, registry: RunRegistry, panels: PanelManager, logger: Logger): Promise<void> {
  type Item = vscode.QuickPickItem & { traceFile?: string; runId?: string; browse?: boolean };
  const items: Item[] = index.list().map((run) => ({
    label: run.task.replace(/\s+/g, ' ').slice(0, 120),
    description: `${run.status} · ${new Date(run.startedAt).toLocaleString()}`,
    detail: run.workspace ? `${run.runId} · ${run.workspace}` : run.runId,
    traceFile: run.traceFile,
    runId: run.runId,
  }));
  items.push({ label: '$(folder-opened) Open a trace file (.jsonl)…', browse: true, alwaysShow: true });
  const picked = await vscode.window.showQuickPick(items, {
    title: 'Cortex: Open run trace',
    placeHolder: items.length > 1 ? 'Recent runs' : 'No recent runs: open a trace file',
    matchOnDetail: true,
  });
  if (!picked) return;
  let source: RunSource | undefined;
  if (picked.browse) {
    const files = await vscode.window.showOpenDialog({
      canSelectMany: false,
      openLabel: 'Open trace',
      filters: { 'Cortex trace': ['jsonl'], 'All files': ['*'] },
    });
    if (!files?.[0]) return;
    source = await registry.fromTraceFile(files[0].fsPath, basename(files[0].fsPath, '.jsonl'));
  } else if (picked.runId) {
    source = await registry.source(picked.runId);
    if (!source) {
      void vscode.window.showWarningMessage(`The trace of that run is no longer on disk (${picked.traceFile}).`);
      return;
    }
  }
  if (source) {
    logger.info(`Opening run ${source.runId}${source.traceFile ? ` from ${source.traceFile}` : ''}`);
    panels.open(source, { preserveFocus: false });
  }
}
