import * as vscode from 'vscode';
import type { PanelState } from '../panel/dagPanel';
import { ApiKeyStore } from './apiKeyStore';
import { LazyAgentHost, loadAgentHostModule } from './lazyAgentHost';
import { createOutputLogger } from './outputLogger';
import { runIdArgument } from './commandArguments';
import type { HomeNode } from './homeItems';
import { pickModel, useVscodeModels } from './modelPicker';
import { registerRunPlanTool } from './runPlanTool';
import { registerCheckRunTool } from './checkRunTool';
import { TaskBox } from './taskBox';
import { GREETED_KEY, greetOnFirstStart } from './welcome';

/** When VS Code has registered the walkthrough's steps (it waits up to 5 s), with a margin. */
const WALKTHROUGH_REGISTERED_MS = 6_000;

/** The DAG panel's webview type (DagPanel.viewType, repeated here so activation does not load the panel code). */
const DAG_VIEW_TYPE = 'cortex.dag';

/**
 * Extension entry, kept cheap because it runs at every start-up (onStartupFinished): it registers
 * the commands, the approvals status bar entry and the panel serializer, greets a new profile with
 * the walkthrough, and nothing more. The agent core (dist/agentHost.js) is loaded by the first
 * command or restored panel that needs it.
 */
/** The agent host of this activation, stopped by `deactivate`. */
let agentHost: LazyAgentHost | undefined;

export function activate(context: vscode.ExtensionContext): void {
  const channel = vscode.window.createOutputChannel('Cortex', { log: true });
  context.subscriptions.push(channel);
  const logger = createOutputLogger(channel);
  const keys = new ApiKeyStore(context.secrets);
  const taskBox = new TaskBox();
  const homeChanged = new vscode.EventEmitter<void>();
  context.subscriptions.push(homeChanged);
  const approvalsItem = vscode.window.createStatusBarItem('cortex.approvals', vscode.StatusBarAlignment.Left, 99);
  approvalsItem.name = 'Cortex approvals';
  approvalsItem.backgroundColor = new vscode.ThemeColor('statusBarItem.warningBackground');
  const host = (agentHost = new LazyAgentHost(
    () => loadAgentHostModule().createAgentHost({ context, logger, keys, approvalsItem, taskBox, homeChanged: () => homeChanged.fire() }),
    logger,
  ));
  context.subscriptions.push(approvalsItem, host);

  const register = (id: string, handler: (...args: unknown[]) => unknown) =>
    context.subscriptions.push(
      vscode.commands.registerCommand(id, async (...args: unknown[]) => {
        try {
          return await handler(...args);
        } catch (error) {
          logger.error(`${id} failed: ${(error as Error).stack ?? String(error)}`);
          void vscode.window.showErrorMessage(`Cortex: ${(error as Error).message}`);
        }
      }),
    );

  register('cortex.runTask', async (task?: unknown) => {
    const folders = vscode.workspace.workspaceFolders ?? [];
    // The box opens before the agent core loads (see TaskBox); without a folder the host says what to do.
    const typed = typeof task === 'string' ? task : folders.length > 0 ? await taskBox.ask(folders.length === 1 ? folders[0].name : undefined) : undefined;
    if (folders.length > 0 && !typed) return;
    await host.get().runTask(typed);
  });
  // The approvals status bar entry passes the run id of the waiting approval.
  register('cortex.showPanel', (runId?: unknown) => host.get().showPanel(typeof runId === 'string' ? runId : undefined));
  register('cortex.cancelRun', (arg?: unknown) => host.get().cancelRun(runIdArgument(arg)));
  // Resolves true when a key was saved (a run waiting for the key then goes on).
  register('cortex.setApiKey', () => setApiKey(keys));
  register('cortex.clearApiKey', async () => {
    await keys.clear();
    void vscode.window.showInformationMessage('Cortex API key removed from secret storage.');
  });
  register('cortex.openTrace', () => host.get().openTrace());
  register('cortex.resumeRun', (arg?: unknown) => host.get().resumeRun(runIdArgument(arg)));
  register('cortex.openRun', async (arg?: unknown) => {
    const runId = runIdArgument(arg);
    if (runId) await host.get().openRun(runId);
  });
  register('cortex.pickModel', () => pickModel());
  register('cortex.useVscodeModels', () => useVscodeModels());
  // From the failure notification, the panel's Retry button ({ runId }), the Cortex view (a run item) or the palette (the last failed run).
  register('cortex.retryRun', (arg?: unknown) => host.get().retryRun(runIdArgument(arg)));
  register('cortex.mcpServers', () => host.get().showMcpServers());
  register('cortex.manageApprovals', () => host.get().manageApprovals());
  // Cortex as a tool of Copilot's agent mode and other extensions (docs/design.md, “Cortex as a tool of other agents”).
  context.subscriptions.push(registerRunPlanTool((input, token) => host.get().runPlanForTool(input, token)));
  context.subscriptions.push(registerCheckRunTool((input) => host.get().checkRunForTool(input)));

  // The Cortex view: its items come from the agent host, loaded when the view is first shown.
  context.subscriptions.push(
    vscode.window.registerTreeDataProvider<HomeNode>('cortex.home', {
      onDidChangeTreeData: homeChanged.event,
      getChildren: (node) => host.get().home.getChildren(node),
      getTreeItem: (node) => host.get().home.getTreeItem(node),
    }),
  );

  context.subscriptions.push(
    vscode.window.registerWebviewPanelSerializer(DAG_VIEW_TYPE, {
      deserializeWebviewPanel: async (panel, state: PanelState | undefined) => {
        try {
          await host.get().restorePanel(panel, state);
        } catch (error) {
          logger.error(`Could not restore a Cortex panel: ${(error as Error).stack ?? String(error)}`);
          panel.dispose();
        }
      },
    }),
  );

  // The walkthrough's "Set the endpoint" ticks on this key: an endpoint set before the first start
  // counts too. It is first set a while after start-up: VS Code registers an extension's walkthrough
  // steps only after waiting up to 5 s for its experiments service, and a key already true when a
  // step registers never ticks it (seen in VS Code 1.139).
  let endpointKeyLive = false;
  const updateEndpointSet = () => {
    const inspected = vscode.workspace.getConfiguration('cortex.llm').inspect<string>('baseUrl');
    // Models from VS Code need no endpoint: choosing them is setting where the model is.
    const set =
      [inspected?.globalValue, inspected?.workspaceValue, inspected?.workspaceFolderValue].some((value) => typeof value === 'string' && value !== '') ||
      vscode.workspace.getConfiguration('cortex.llm').get<string>('provider') === 'vscode-lm';
    void vscode.commands.executeCommand('setContext', 'cortex.endpointSet', set);
  };
  const endpointTimer = setTimeout(() => {
    endpointKeyLive = true;
    updateEndpointSet();
  }, WALKTHROUGH_REGISTERED_MS);
  context.subscriptions.push(
    { dispose: () => clearTimeout(endpointTimer) },
    vscode.workspace.onDidChangeConfiguration((event) => {
      if (endpointKeyLive && (event.affectsConfiguration('cortex.llm.baseUrl') || event.affectsConfiguration('cortex.llm.provider'))) updateEndpointSet();
    }),
  );
  // The walkthrough offers the key-less path only when some extension provides a language model.
  const updateModelsAvailable = () =>
    vscode.lm.selectChatModels().then(
      (models) => vscode.commands.executeCommand('setContext', 'cortex.vscodeModelsAvailable', models.length > 0),
      () => undefined,
    );
  void updateModelsAvailable();
  context.subscriptions.push(vscode.lm.onDidChangeChatModels(() => void updateModelsAvailable()));

  context.globalState.setKeysForSync([GREETED_KEY]);
  // The task box waits for the walkthrough to be open, so the walkthrough never takes its focus.
  const greeting = greetOnFirstStart(context.extension.id, {
    state: context.globalState,
    walkthroughsOpenOnInstall: () => vscode.workspace.getConfiguration('workbench.welcomePage').get<boolean>('walkthroughs.openOnInstall', true),
    openWalkthrough: (id) => vscode.commands.executeCommand('workbench.action.openWalkthrough', id, false),
    logger,
  });
  taskBox.openAfter(greeting);
  logger.info(
    `Cortex activated (VS Code ${vscode.version}, Node ${process.versions.node}, ${vscode.workspace.isTrusted ? 'trusted' : 'restricted'} workspace).`,
  );
}

/**
 * Everything else is in context.subscriptions, which VS Code disposes without waiting. The agent
 * host is stopped here so VS Code waits while running runs write the rest of their traces.
 */
export function deactivate(): Promise<void> | undefined {
  return agentHost?.dispose();
}

async function setApiKey(keys: ApiKeyStore): Promise<boolean> {
  const key = await vscode.window.showInputBox({
    title: 'Cortex: Set API key',
    prompt: 'API key for the OpenAI-compatible endpoint (stored in VS Code secret storage, never in settings)',
    password: true,
    ignoreFocusOut: true,
    validateInput: (value) =>
      value.trim() === '' ? 'Enter a key, or press Escape to cancel.' : /\s/.test(value.trim()) ? 'An API key has no spaces.' : undefined,
  });
  if (key === undefined) return false;
  await keys.set(key);
  void vscode.window.showInformationMessage('Cortex API key saved in secret storage.');
  return true;
}
