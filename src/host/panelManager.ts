import * as vscode from 'vscode';
import type { Logger } from '../core/ports';
import { DagPanel, type PanelActions } from '../panel/dagPanel';
import type { RunSource } from '../panel/runSource';

const OPEN_PANELS_KEY = 'cortex.openPanels';

/**
 * One panel per run: opening a run that already has a panel reveals it. The run ids of open panels
 * are also kept in workspaceState: VS Code web may restore a panel without the state its webview
 * saved just before a reload, and this list lets the serializer still find the run.
 */
export class PanelManager implements vscode.Disposable {
  private readonly panels = new Map<string, DagPanel>();
  private shuttingDown = false;

  constructor(
    private readonly extensionUri: vscode.Uri,
    private readonly logger: Logger,
    readonly actions: PanelActions,
    private readonly workspaceState?: vscode.Memento,
  ) {}

  /** Run ids whose panels were open when the window last saved its state, oldest first. */
  rememberedRunIds(): string[] {
    const value = this.workspaceState?.get<unknown>(OPEN_PANELS_KEY);
    return Array.isArray(value) ? value.filter((id): id is string => typeof id === 'string') : [];
  }

  /** A remembered run id without a panel yet (for a restored panel that lost its saved state). */
  unclaimedRunId(): string | undefined {
    return [...this.rememberedRunIds()].reverse().find((id) => !this.panels.has(id));
  }

  private persist(): void {
    if (this.shuttingDown || !this.workspaceState) return;
    const ids = [...this.rememberedRunIds().filter((id) => this.panels.has(id)), ...this.panels.keys()];
    void this.workspaceState.update(OPEN_PANELS_KEY, [...new Set(ids)].slice(-20));
  }

  open(source: RunSource, options: { preserveFocus?: boolean } = {}): DagPanel {
    const existing = this.panels.get(source.runId);
    if (existing) {
      existing.reveal(options.preserveFocus ?? false);
      return existing;
    }
    const panel = DagPanel.create(this.extensionUri, source, this.logger, this.actions, vscode.ViewColumn.Beside, options.preserveFocus ?? true);
    this.adopt(panel);
    return panel;
  }

  adopt(panel: DagPanel): void {
    this.panels.get(panel.runId)?.dispose();
    this.panels.set(panel.runId, panel);
    this.persist();
    panel.onDidDispose(() => {
      if (this.panels.get(panel.runId) !== panel) return;
      this.panels.delete(panel.runId);
      this.persist();
    });
  }

  /** True while the run's panel is the visible tab of its editor group. */
  isVisible(runId: string): boolean {
    return this.panels.get(runId)?.panel.visible ?? false;
  }

  get(runId: string): DagPanel | undefined {
    return this.panels.get(runId);
  }

  dispose(): void {
    // The extension is shutting down: the panels stay open in the window, so keep the list.
    this.shuttingDown = true;
    for (const panel of [...this.panels.values()]) panel.dispose();
    this.panels.clear();
  }
}
