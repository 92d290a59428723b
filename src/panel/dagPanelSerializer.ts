import * as vscode from 'vscode';
import type { Logger } from '../core/ports';
import { DagPanel, type PanelActions, type PanelState } from './dagPanel';
import { isRunId, type RunSource } from './runSource';

/**
 * Restores DAG panels after a window reload from the run id the webview saved with setState: the
 * live run if it is still going in this extension host, otherwise its trace file from storage.
 */
export class DagPanelSerializer implements vscode.WebviewPanelSerializer<PanelState> {
  constructor(
    private readonly extensionUri: vscode.Uri,
    private readonly logger: Logger,
    private readonly actions: PanelActions,
    private readonly resolve: (runId: string) => Promise<RunSource | undefined>,
    private readonly adopt: (panel: DagPanel) => void,
    /** A run id to fall back on when the saved state was lost (see PanelManager). */
    private readonly fallbackRunId: () => string | undefined = () => undefined,
  ) {}

  async deserializeWebviewPanel(panel: vscode.WebviewPanel, state: PanelState | undefined): Promise<void> {
    let runId = state && typeof state === 'object' ? state.runId : undefined;
    if (!isRunId(runId)) {
      runId = this.fallbackRunId();
      if (isRunId(runId)) this.logger.info(`A Cortex panel came back without its saved state; showing run ${runId}, whose panel was open.`);
    }
    if (!isRunId(runId)) {
      this.logger.info(`A Cortex panel without a saved run id was closed after reload (saved state: ${describeState(state)}).`);
      panel.dispose();
      return;
    }
    let source: RunSource | undefined;
    try {
      source = await this.resolve(runId);
    } catch (error) {
      this.logger.warn(`Could not restore the panel of run ${runId}: ${(error as Error).message}`);
    }
    if (!source) {
      panel.dispose();
      void vscode.window.showWarningMessage(`Cortex could not restore the panel of run ${runId}: its trace is no longer available.`);
      return;
    }
    this.adopt(DagPanel.revive(panel, this.extensionUri, source, this.logger, this.actions));
  }
}

function describeState(state: unknown): string {
  if (state === undefined || state === null) return String(state);
  try {
    return JSON.stringify(state).slice(0, 200);
  } catch {
    return typeof state;
  }
}
