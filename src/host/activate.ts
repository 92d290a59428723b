import { basename } from 'node:path';
import * as vscode from 'vscode';
import type { Logger } from '../core/ports';
import { DagPanelSerializer } from '../panel/dagPanelSerializer';
import type { RunSource } from '../panel/runSource';
import { ApiKeyStore } from './apiKeyStore';
import { createOutputLogger } from './outputLogger';
import { PanelManager } from './panelManager';
import { openTraceDocument, RunController } from './runController';
import { RunIndex } from './runIndex';
import { RunRegistry } from './runRegistry';
import { SettingsReader } from './settingsReader';

/**
 * Extension entry: wires the adapters (settings, secrets, log channel, panels, run controller) and
 * registers every command, listener and the panel serializer as disposables.
 */
export function activate(context: vscode.ExtensionContext): void {
  const channel = vscode.window.createOutputChannel('Cortex', { log: true });
  context.subscriptions.push(channel);
  const logger = createOutputLogger(channel);
  const runsDir = vscode.Uri.joinPath(context.globalStorageUri, 'runs').fsPath;
  const index = new RunIndex(context.globalState);
  const registry = new RunRegistry(index, runsDir, logger);
  const keys = new ApiKeyStore(context.secrets);
  const settings = new SettingsReader(logger);
  const panels = new PanelManager(context.extensionUri, logger, { openTrace: (source) => openTraceOf(source) }, context.workspaceState);
  const controller = new RunController(settings, keys, registry, index, panels, logger);
  context.subscriptions.push(settings, panels, controller);

  const openTraceOf = async (source: RunSource) => {
    if (!source.traceFile) throw new Error('this run has no trace file');
    await openTraceDocument(source.traceFile);
  };

  const register = (id: string, handler: (...args: any[]) => unknown) =>
    context.subscriptions.push(
      vscode.commands.registerCommand(id, async (...args: any[]) => {
        try {
          return await handler(...args);
        } catch (error) {
          logger.error(`${id} failed: ${(error as Error).stack ?? String(error)}`);
          void vscode.window.showErrorMessage(`Cortex: ${(error as Error).message}`);
        }
      }),
    );

  register('cortex.runTask', (task?: unknown) => controller.runTask(typeof task === 'string' ? task : undefined));
  register('cortex.showPanel', () => controller.showPanel());
  register('cortex.cancelRun', () => controller.cancelRun());
  register('cortex.setApiKey', () => setApiKey(keys));
  register('cortex.clearApiKey', async () => {
    await keys.clear();
    void vscode.window.showInformationMessage('Cortex API key removed from secret storage.');
  });
  register('cortex.openTrace', () => openRunTrace(index, registry, panels, logger));

  context.subscriptions.push(
    vscode.window.registerWebviewPanelSerializer(
      'cortex.dag',
      new DagPanelSerializer(context.extensionUri, logger, panels.actions, (runId) => registry.source(runId), (panel) => panels.adopt(panel), () => panels.unclaimedRunId()),
    ),
  );

  // Validate once at start-up so a broken setting is reported before the first run.
  const initial = settings.read();
  if (!initial.ok) logger.warn(initial.error.message);
  logger.info(`Cortex activated (VS Code ${vscode.version}, Node ${process.versions.node}, ${vscode.workspace.isTrusted ? 'trusted' : 'restricted'} workspace).`);
}

export function deactivate(): void {
  // Everything is in context.subscriptions.
}

async function setApiKey(keys: ApiKeyStore): Promise<void> {
  const key = await vscode.window.showInputBox({
    title: 'Cortex: Set API key',
    prompt: 'API key for the OpenAI-compatible endpoint (stored in VS Code secret storage, never in settings)',
    password: true,
    ignoreFocusOut: true,
    validateInput: (value) => (value.trim() === '' ? 'Enter a key, or press Escape to cancel.' : /\s/.test(value.trim()) ? 'An API key has no spaces.' : undefined),
  });
  if (key === undefined) return;
  await keys.set(key);
  void vscode.window.showInformationMessage('Cortex API key saved in secret storage.');
}

async function openRunTrace(index: RunIndex, registry: RunRegistry, panels: PanelManager, logger: Logger): Promise<void> {
  type Item = vscode.QuickPickItem & { traceFile?: string; runId?: string; browse?: boolean };
  const items: Item[] = index.list().map((run) => ({
    label: run.task.replace(/\s+/g, ' ').slice(0, 120),
    description: `${run.status} · ${new Date(run.startedAt).toLocaleString()}`,
    detail: run.workspace ? `${run.runId} · ${run.workspace}` : run.runId,
    traceFile: run.traceFile,
    runId: run.runId,
  }));
  items.push({ label: '$(folder-opened) Open a trace file (.jsonl)…', browse: true, alwaysShow: true });
  const picked = await vscode.window.showQuickPick(items, { title: 'Cortex: Open run trace', placeHolder: items.length > 1 ? 'Recent runs' : 'No recent runs: open a trace file', matchOnDetail: true });
  if (!picked) return;
  let source: RunSource | undefined;
  if (picked.browse) {
    const files = await vscode.window.showOpenDialog({ canSelectMany: false, openLabel: 'Open trace', filters: { 'Cortex trace': ['jsonl'], 'All files': ['*'] } });
    if (!files?.[0]) return;
    source = registry.fromTraceFile(files[0].fsPath, basename(files[0].fsPath, '.jsonl'));
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
