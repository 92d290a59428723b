import * as vscode from 'vscode';
import type { Logger } from '../core/ports';
import { DagPanelSerializer } from '../panel/dagPanelSerializer';
import type { PanelState } from '../panel/dagPanel';
import type { RunSource } from '../panel/runSource';
import { ApprovalAttention } from './approvalAttention';
import type { ApiKeyStore } from './apiKeyStore';
import { showApprovalNotification, statusBarApprovalView, summarizeCall } from './approvalNotifier';
import { HomeView } from './homeView';
import { interruptedRuns, matchingFolder } from './resumableRuns';
import { McpHostServers } from './mcpRunServers';
import { showMcpServers } from './mcpServersCommand';
import { manageApprovals } from './manageApprovalsCommand';
import { workspacePrefixStore } from './rememberedApprovalStore';
import { openRunTrace } from './openRunTrace';
import { panelResumeActions, resumeRunCommand, type Resumer } from './resumeCommand';
import { PanelManager } from './panelManager';
import { CheckpointActions } from './checkpointActions';
import { CHECKPOINT_SCHEME, CheckpointContentProvider } from './checkpointContent';
import type { PanelChangeActions } from '../panel/dagPanel';
import { openTraceDocument, progressText, RunController } from './runController';
import { RunIndex } from './runIndex';
import { RunRegistry } from './runRegistry';
import { SettingsReader } from './settingsReader';
import { DEFAULT_PROTECTED_PATHS } from '../core/files/protectedPaths';
import type { TaskBox } from './taskBox';
import { runReportText } from '../core/report/runReport';
import { foldEvents } from '../core/plan/reducer';
import type { CheckRunInput } from './checkRunInput';
import { taskWithScope, type RunPlanInput } from './runPlanInput';

// The agent side of the extension, bundled on its own as dist/agentHost.js: the agent core, the
// LLM client, zod and the panels. Activation (dist/extension.js) loads it on first use (a run, a
// trace, a restored panel) so that starting VS Code never pays for compiling it.

/** What activation hands over: its context and the few objects it already made. */
export interface AgentHostDeps {
  context: vscode.ExtensionContext;
  logger: Logger;
  keys: ApiKeyStore;
  /** The approvals entry of the status bar (hidden until an approval waits). */
  approvalsItem: vscode.StatusBarItem;
  /** The "Run agent task" box, shared with activation (which opens it before the core loads). */
  taskBox: TaskBox;
  /** Tells the Cortex view (registered at activation) that what it lists changed. */
  homeChanged: () => void;
}

/** The commands and the panel restore that need the agent core. */
export interface AgentHost extends vscode.Disposable {
  /** Interrupts running runs; resolves once their traces are written and their locks released. */
  dispose(): Promise<void>;
  runTask(task?: string): Promise<void>;
  showPanel(runId?: string): void;
  cancelRun(runId?: string): Promise<void>;
  openTrace(): Promise<void>;
  restorePanel(panel: vscode.WebviewPanel, state: PanelState | undefined): Promise<void>;
  /** "Cortex: MCP servers": the configured servers with their state and tools. */
  showMcpServers(): Promise<void>;
  /** `cortex.manageApprovals`: the workspace's always-allowed command prefixes, removable. */
  manageApprovals(): Promise<void>;
  /** "Cortex: Resume run…": an interrupted run of this workspace, continued from its trace. */
  resumeRun(runId?: string): Promise<void>;
  /** A recent run's panel, live or replayed from its trace (the Cortex view's run items). */
  openRun(runId: string): Promise<void>;
  /** The Cortex view's tree. */
  readonly home: HomeView;
  /** `cortex.retryRun`: resumes or restarts a run (default: the newest failed one). */
  retryRun(runId?: string): Promise<void>;
  /** The cortex_runVerifiedPlan tool: runs the task in its panel and answers with the run's report. */
  runPlanForTool(input: RunPlanInput, token: vscode.CancellationToken): Promise<string>;
  /** `cortex_checkRun`: the report of a recorded run of this workspace, read from its trace. */
  checkRunForTool(input: CheckRunInput): Promise<string>;
}

export function createAgentHost({ context, logger, keys, approvalsItem, taskBox, homeChanged }: AgentHostDeps): AgentHost {
  const runsDir = vscode.Uri.joinPath(context.globalStorageUri, 'runs').fsPath;
  const index = new RunIndex(context.globalState);
  const registry = new RunRegistry(index, runsDir, logger);
  const settings = new SettingsReader(logger);
  const openTraceOf = async (source: RunSource) => {
    if (!source.traceFile) throw new Error('this run has no trace file');
    await openTraceDocument(source.traceFile);
  };
  const resumer: Resumer = { resume: (target) => controller.resume(target) };
  const changes: PanelChangeActions = {
    open: (...args) => checkpoints.open(...args),
    review: (...args) => checkpoints.review(...args),
    revert: (...args) => checkpoints.revert(...args),
  };
  const panels = new PanelManager(
    context.extensionUri,
    logger,
    {
      openTrace: openTraceOf,
      ...panelResumeActions(resumer, logger),
      changes,
      retryStep: (source, stepId): Promise<void> => controller.retryStep(source.runId, stepId),
    },
    context.workspaceState,
  );
  // The saved contents of runs' changes, for the diff editor (docs/design.md, “Checkpoints and revert”).
  const checkpoints = new CheckpointActions(registry, panels, logger, () => {
    const read = settings.read();
    return read.ok ? read.config['cortex.policy.protectedPaths'] : DEFAULT_PROTECTED_PATHS;
  });
  const contentProvider = vscode.workspace.registerTextDocumentContentProvider(CHECKPOINT_SCHEME, new CheckpointContentProvider(runsDir));
  const attention = new ApprovalAttention(
    {
      isPanelVisible: (runId) => panels.isVisible(runId),
      notify: (_runId, request) => showApprovalNotification(request),
      showPanel: (runId) => controller.showPanel(runId),
      warn: (message) => void vscode.window.showWarningMessage(message),
    },
    statusBarApprovalView(approvalsItem),
    logger,
  );
  const mcp = new McpHostServers(context, logger);
  const controller = new RunController(
    settings,
    keys,
    registry,
    index,
    panels,
    attention,
    logger,
    taskBox,
    mcp,
    context.globalStorageUri.fsPath,
    workspacePrefixStore(context.workspaceState),
  );
  controller.onDidChange = homeChanged;
  const isLive = (runId: string) => registry.running().some((run) => run.runId === runId);
  const home = new HomeView(async () => ({
    live: registry.running().map((run) => ({ runId: run.runId, task: run.task, progress: progressText(run.log.state) })),
    approvals: registry
      .running()
      .flatMap((run) =>
        run.broker.pending().map((request) => ({ runId: run.runId, requestId: request.requestId, summary: summarizeCall(request), reason: request.reason })),
      ),
    model: modelFacts(),
    recent: index.list(),
    resumable: new Set(
      (
        await interruptedRuns(
          index.list(),
          (vscode.workspace.workspaceFolders ?? []).map((folder) => folder.uri.fsPath),
          isLive,
        )
      ).map((run) => run.runId),
    ),
    runTaskKey: process.platform === 'darwin' ? '⌥⌘J' : 'Ctrl+Alt+J',
  }));
  const configWatch = vscode.workspace.onDidChangeConfiguration((event) => {
    if (event.affectsConfiguration('cortex.llm')) homeChanged();
  });
  const serializer = new DagPanelSerializer(
    context.extensionUri,
    logger,
    panels.actions,
    (runId) => registry.source(runId),
    (panel) => panels.adopt(panel),
    () => panels.unclaimedRunId(),
  );

  return {
    runTask: (task) => controller.runTask(task),
    showPanel: (runId) => controller.showPanel(runId),
    cancelRun: (runId) => controller.cancelRun(runId),
    openTrace: () => openRunTrace(index, registry, panels, logger),
    resumeRun: (runId) => resumeRunCommand(index, isLive, resumer, logger, runId),
    openRun: async (runId) => {
      const source = await registry.source(runId);
      if (!source) {
        void vscode.window.showWarningMessage(`The trace of run ${runId} is no longer on disk.`);
        return;
      }
      panels.open(source, { preserveFocus: false });
    },
    home,
    retryRun: (runId) => controller.retry(runId),
    runPlanForTool: async (input, token) => {
      if (token.isCancellationRequested) throw new vscode.CancellationError();
      const listeners: vscode.Disposable[] = [];
      const run = await controller
        .runForTool(taskWithScope(input), (live) => {
          // The calling agent's cancel (its chat request stopped) cancels the run like the panel's Cancel.
          listeners.push(token.onCancellationRequested(() => live.agent.cancel('cancelled by the agent that called Cortex')));
        })
        .finally(() => {
          for (const listener of listeners) listener.dispose();
        });
      return runReportText({
        state: run.log.state,
        status: run.result?.status ?? 'running',
        answer: run.result?.answer,
        error: run.result?.error,
        traceFile: run.traceFile,
        openHint: 'its panel is open in VS Code; the user can replay it with the command "Cortex: Open run trace…"',
      });
    },
    checkRunForTool: (input) => checkRunReport(input, index, registry),
    restorePanel: (panel, state) => serializer.deserializeWebviewPanel(panel, state),
    showMcpServers: async () => {
      const folders = vscode.workspace.workspaceFolders ?? [];
      const folder = folders.length > 1 ? await vscode.window.showWorkspaceFolderPick({ placeHolder: 'Folder whose MCP servers to show' }) : folders[0];
      if (!folder) {
        if (folders.length === 0) void vscode.window.showInformationMessage('Cortex: open a folder to see its MCP servers.');
        return;
      }
      const config = await settings.readOrReport();
      if (config) await showMcpServers(mcp, folder, config, logger);
    },
    manageApprovals: () => manageApprovals(context.workspaceState, logger),
    dispose: () => {
      const interrupted = controller.dispose();
      panels.dispose();
      settings.dispose();
      contentProvider.dispose();
      configWatch.dispose();
      return interrupted;
    },
  };
}

/** The model in use as settings say it (shown as typed; a run validates it when it starts). */
function modelFacts(): { model: string; baseUrl: string; fallbackModels: string[] } {
  const llm = vscode.workspace.getConfiguration('cortex.llm');
  const fallbacks = llm.get<unknown>('fallbackModels');
  return {
    model: String(llm.get('model') ?? ''),
    baseUrl: String(llm.get('baseUrl') ?? ''),
    fallbackModels: Array.isArray(fallbacks) ? fallbacks.filter((name): name is string => typeof name === 'string') : [],
  };
}

/**
 * The report `cortex_checkRun` returns: the given run, else the newest run recorded for a folder of
 * this window. Its trace is read like any trace (untrusted: validated, capped). Errors are sentences
 * the calling model can act on.
 */
async function checkRunReport(input: CheckRunInput, index: RunIndex, registry: RunRegistry): Promise<string> {
  const folders = (vscode.workspace.workspaceFolders ?? []).map((folder) => ({ path: folder.uri.fsPath }));
  const recent = index.list();
  const matches = await Promise.all(recent.map(async (run) => (run.workspace === undefined ? undefined : matchingFolder(run.workspace, folders))));
  const ofThisWorkspace = recent.filter((_, at) => matches[at] !== undefined);
  const runId = input.runId ?? ofThisWorkspace[0]?.runId;
  if (!runId)
    throw new Error('No Cortex run of this workspace is recorded on this machine: start one with cortex_runVerifiedPlan, or pass the runId of an earlier run.');
  let source;
  try {
    source = await registry.source(runId);
  } catch (error) {
    throw new Error(`The trace of run ${runId} cannot be read (${(error as Error).message}); ask the user to open it with "Cortex: Open run trace…".`, {
      cause: error,
    });
  }
  if (!source)
    throw new Error(
      `Cortex has no trace of run ${runId} on this machine${
        ofThisWorkspace.length
          ? `; runs of this workspace: ${ofThisWorkspace
              .slice(0, 5)
              .map((run) => run.runId)
              .join(', ')}`
          : ''
      }.`,
    );
  const events = source.events();
  const finished = events.find((event) => event.type === 'run_finished');
  const status = source.isLive() ? 'running' : finished?.type === 'run_finished' ? finished.status : 'interrupted';
  return runReportText({
    state: foldEvents(events),
    status,
    answer: finished?.type === 'run_finished' ? finished.answer : undefined,
    error: finished?.type === 'run_finished' ? finished.error : undefined,
    traceFile: source.traceFile,
    openHint: 'the user can replay it with the command "Cortex: Open run trace…"',
  });
}
