import { watchPlanApprovals } from './planApprovalNotice';
import * as vscode from 'vscode';
import { AgentRun, newRunId, type RunResult } from '../core/agent/agentRun';
import type { FlatConfig } from '../core/config/configSchema';
import type { PlanState } from '../core/plan/planTypes';
import type { ApprovalBroker } from '../core/policy/approvalBroker';
import type { RunEvent } from '../core/plan/events';
import { RunSession, type RunSessionOptions } from '../core/agent/runSession';
import { ApprovalMemory, type RememberedPrefixStore } from '../core/policy/approvalMemory';
import { memoryFileIn } from '../core/memory/memoryPath';
import type { Logger } from '../core/ports';
import type { McpServerDefinition } from '../core/config/mcpTypes';
import { openResume, prepareResumedRun, type OpenedResume, type ResumedRunOptions } from '../core/agent/resumeRun';
import { acquireRunLock, type RunLock } from '../core/resume/runLock';
import { openRetryStep, prepareRetryStepRun, type OpenedRetry } from '../core/agent/retryStepRun';
import { defaultCheckpointsDir } from '../core/checkpoints/runReview';
import type { ApiKeyStore } from './apiKeyStore';
import type { ApprovalAttention } from './approvalAttention';
import { brokerApprovals, liveRunSource, type LiveRun } from './liveRun';
import type { McpHostServers } from './mcpRunServers';
import type { PanelManager } from './panelManager';
import type { RunIndex } from './runIndex';
import type { RunRegistry } from './runRegistry';
import { matchingFolder, panelResumability } from './resumableRuns';
import { endpointFailure, lastRetryableRun, retryPlan } from './runRetry';
import { isLocalEndpoint } from './settingsMapping';
import { VscodeLmClient } from './vscodeLmClient';
import type { SettingsReader } from './settingsReader';
import type { TaskBox } from './taskBox';
import { eventTextLevel, formatEvent } from '../core/trace/eventText';
import { clip } from '../core/text/clip';

const PROGRESS_INTERVAL_MS = 250;
const SET_KEY = 'Set API key';
const OPEN_SETTINGS = 'Open endpoint settings';
const RETRY = 'Retry';
const RETRY_STEP = 'Retry step';
const REPORT_BUTTONS = ['Show panel', 'Open trace'];

type Outcome = Pick<RunResult, 'status' | 'answer' | 'error'>;

/** A run about to be driven by this window, new or resumed: its session is built and holds the lock. */
interface DriveRequest {
  runId: string;
  task: string;
  folder: vscode.WorkspaceFolder;
  session: RunSession;
  agent: AgentRun;
  traceFile: string;
  trusted: boolean;
  /** The log channel's line when it starts. */
  startLine: string;
}

/** The model a run uses, for the log channel: VS Code's (docs/design.md, “Models from VS Code”) or the endpoint's. */
function modelInUse(config: FlatConfig): string {
  return config['cortex.llm.provider'] === 'vscode-lm'
    ? `VS Code language model ${config['cortex.llm.vscodeModel'] || '(the first offered)'}`
    : `model ${config['cortex.llm.model']} at ${config['cortex.llm.baseUrl']}`;
}

/** One line for the progress notification and the status bar. */
export function progressText(state: PlanState): string {
  const steps = state.stepOrder.map((id) => state.steps.get(id)!);
  if (steps.length === 0) return 'planning…';
  const done = steps.filter((step) => step.status === 'completed').length;
  const running = steps.filter((step) => step.status === 'in_progress');
  const current = running.length > 0 ? ` — ${running.map((s) => s.description).join(' | ')}` : '';
  return `${done}/${steps.length} steps done${current}`.slice(0, 200);
}

/**
 * `Cortex: Run agent task`: asks for the task, starts an AgentRun with its own event log, trace
 * file, approval broker and panel, shows progress with Cancel, and reports the result.
 */
export class RunController implements vscode.Disposable {
  private readonly statusBar: vscode.StatusBarItem;
  /** The sessions of the runs this window drives. */
  private readonly sessions = new Map<string, RunSession>();
  /** Step retries being set up (run id and step id), so one click starts one run. */
  private readonly retryingSteps = new Set<string>();
  /** Called when runs start, progress, wait for approvals or end (the Cortex view refreshes). */
  onDidChange: () => void = () => {};

  constructor(
    private readonly settings: SettingsReader,
    private readonly keys: ApiKeyStore,
    private readonly registry: RunRegistry,
    private readonly index: RunIndex,
    private readonly panels: PanelManager,
    private readonly attention: ApprovalAttention,
    private readonly logger: Logger,
    private readonly taskBox: TaskBox,
    private readonly mcp?: McpHostServers,
    /** The extension's global storage: workspace memories live under it, outside the repository. */
    private readonly storageDir?: string,
    /** The workspace's "always allow" command prefixes (docs/design.md, “Remembered approvals”). */
    private readonly approvalStore?: RememberedPrefixStore,
  ) {
    this.statusBar = vscode.window.createStatusBarItem('cortex.run', vscode.StatusBarAlignment.Left, 100);
    this.statusBar.name = 'Cortex run';
    this.statusBar.command = 'cortex.showPanel';
  }

  async runTask(presetTask?: string): Promise<void> {
    // The task is asked first, so nothing said about the folder, settings or key can come before
    // the box and take the keyboard from it; a missing key is then set without losing the task.
    if (!(await this.hasFolder())) return;
    const folders = vscode.workspace.workspaceFolders ?? [];
    const task = presetTask?.trim() || (await this.taskBox.ask(folders.length === 1 ? folders[0].name : undefined));
    if (!task) return;
    const folder = await this.pickFolder();
    if (!folder) return;
    const config = await this.settings.readOrReport();
    if (!config) return;
    const key = await this.apiKeyOrReport(config);
    if (!key) return;
    await this.start(task, folder, config, key.key, key.source);
  }

  /** The API key for `baseUrl`, or undefined after saying what to do (none is needed for a local endpoint). */
  private async apiKeyOrReport(config: FlatConfig): Promise<{ key: string | undefined; source: string } | undefined> {
    // VS Code's language models need no key of Cortex's (docs/design.md, “Models from VS Code”).
    if (config['cortex.llm.provider'] === 'vscode-lm') return { key: undefined, source: 'VS Code language models' };
    const baseUrl = config['cortex.llm.baseUrl'];
    const { key, source } = await this.keys.get();
    if (key || isLocalEndpoint(baseUrl)) return { key, source };
    const choice = await vscode.window.showErrorMessage(
      `Cortex has no API key for ${baseUrl}. Set one with "Cortex: Set API key" (stored in VS Code's secret storage) or the OPENAI_API_KEY environment variable, or point cortex.llm.baseUrl at a local endpoint.`,
      'Set API key',
      'Open Settings',
    );
    if (choice === 'Set API key' && (await vscode.commands.executeCommand<boolean>('cortex.setApiKey')) === true) {
      // The run goes on with the task already typed.
      const set = await this.keys.get();
      if (set.key) return { key: set.key, source: set.source };
    }
    if (choice === 'Open Settings') await vscode.commands.executeCommand('workbench.action.openSettings', 'cortex.llm');
    return undefined;
  }

  private async hasFolder(): Promise<boolean> {
    if ((vscode.workspace.workspaceFolders ?? []).length > 0) return true;
    const choice = await vscode.window.showErrorMessage('Cortex works inside a folder: open a folder first.', 'Open Folder');
    if (choice === 'Open Folder') await vscode.commands.executeCommand('workbench.action.files.openFolder');
    return false;
  }

  private async pickFolder(): Promise<vscode.WorkspaceFolder | undefined> {
    const folders = vscode.workspace.workspaceFolders ?? [];
    if (folders.length <= 1) return folders[0];
    return vscode.window.showWorkspaceFolderPick({ placeHolder: 'Folder the agent works in' });
  }

  /**
   * A run for another agent (the language model tool, docs/design.md, “Cortex as a tool of other
   * agents”): no box and no dialog before it starts; what stops it is thrown as a sentence the
   * calling model can act on. The run itself is like any other: its panel, approvals and policy.
   */
  async runForTool(task: string, onStarted: (run: LiveRun) => void): Promise<LiveRun> {
    const folder = (vscode.workspace.workspaceFolders ?? [])[0];
    if (!folder)
      throw new Error('No folder is open in VS Code, and Cortex works inside a folder: ask the user to open the project folder, then call the tool again.');
    const read = this.settings.read();
    if (!read.ok)
      throw new Error(
        `Cortex's settings are invalid (${read.error.issues.join('; ')}): ask the user to fix them in the settings (cortex.*), then call the tool again.`,
      );
    const baseUrl = read.config['cortex.llm.baseUrl'];
    const key = await this.keys.get();
    if (read.config['cortex.llm.provider'] !== 'vscode-lm' && !key.key && !isLocalEndpoint(baseUrl))
      throw new Error(
        `Cortex has no API key for its endpoint ${baseUrl}: ask the user to run the command "Cortex: Set API key" (or set cortex.llm.baseUrl to a local endpoint), then call the tool again.`,
      );
    const run = await this.start(task, folder, read.config, key.key, key.source, onStarted);
    if (!run?.result) throw new Error('Cortex could not start the run (the Cortex output channel says why); do not retry until the user has fixed it.');
    return run;
  }

  private async start(
    task: string,
    folder: vscode.WorkspaceFolder,
    config: FlatConfig,
    apiKey: string | undefined,
    keySource: string,
    onStarted?: (run: LiveRun) => void,
  ): Promise<LiveRun | undefined> {
    const runId = newRunId();
    const traceFile = this.registry.traceFileFor(runId);
    const trusted = vscode.workspace.isTrusted;
    const mcp = await this.mcpServersFor(folder, config, trusted);
    const session = await this.openSession(
      { file: traceFile, append: false },
      () => acquireRunLock(traceFile),
      undefined,
      async (log, approvals) => {
        const agent = new AgentRun({
          ...(await this.runOptions(folder, config, apiKey, approvals, trusted, mcp, traceFile)),
          task,
          workspaceRoot: folder.uri.fsPath,
          log,
          runId,
        });
        return { agent, run: () => agent.start() };
      },
      'Cortex could not start the run',
    );
    if (!session) return;
    this.taskBox.started();
    const startLine = `run ${runId} started in ${folder.uri.fsPath} (${modelInUse(config)}, key from ${keySource}, ${trusted ? 'trusted' : 'restricted: read-only'})`;
    return this.drive({ runId, task, folder, session: session.session, agent: session.agent, traceFile, trusted, startLine }, onStarted);
  }

  /**
   * Opens a run's session and builds its run; on failure says so (after `failure`) and gives
   * everything back (the lock, the trace file).
   */
  private async openSession(
    trace: { file: string; append: boolean },
    lock: () => Promise<RunLock>,
    history: readonly RunEvent[] | undefined,
    build: RunSessionOptions['build'],
    failure: string,
  ): Promise<{ session: RunSession; agent: AgentRun } | undefined> {
    let session: RunSession | undefined;
    try {
      session = new RunSession({
        trace,
        lock: await lock(),
        history,
        logger: this.logger,
        approvalMemory: this.approvalMemory(),
        onListenerError: (error) => this.logger.error(`event listener failed: ${(error as Error).stack ?? String(error)}`),
        build,
      });
      return { session, agent: await session.prepare() };
    } catch (error) {
      await session?.dispose();
      this.logger.error(`${failure}: ${(error as Error).stack ?? String(error)}`);
      void vscode.window.showErrorMessage(`${failure}: ${(error as Error).message}`);
      return undefined;
    }
  }

  /**
   * Resumes an interrupted run from its trace (docs/design.md, “Resuming a run”): in the folder it worked in,
   * which must be open in this window, with the current settings. Its panel follows the run.
   */
  async resume(target: { traceFile: string; workspace: string }): Promise<void> {
    const folders = vscode.workspace.workspaceFolders ?? [];
    const folder = (
      await matchingFolder(
        target.workspace,
        folders.map((f) => ({ path: f.uri.fsPath, f })),
      )
    )?.f;
    if (!folder) {
      void vscode.window.showErrorMessage(
        `Cortex cannot resume this run here: it worked in ${target.workspace}, which is not a folder of this window. Open that folder to resume it.`,
      );
      return;
    }
    const live = this.registry.running().find((run) => run.traceFile === target.traceFile);
    if (live) {
      this.showPanel(live.runId);
      return;
    }
    const config = await this.settings.readOrReport();
    if (!config) return;
    const key = await this.apiKeyOrReport(config);
    if (!key) return;
    let opened: OpenedResume;
    try {
      opened = await openResume({ traceFile: target.traceFile, workspaceRoot: folder.uri.fsPath });
    } catch (error) {
      void vscode.window.showErrorMessage(`Cortex cannot resume this run: ${(error as Error).message}`);
      return;
    }
    const { started } = opened.point;
    const trusted = vscode.workspace.isTrusted;
    const mcp = await this.mcpServersFor(folder, config, trusted);
    // The session's trace writer is subscribed before the resume records anything (its notices, run_resumed).
    const session = await this.openSession(
      { file: opened.traceFile, append: true },
      () => Promise.resolve(opened.lock),
      opened.events,
      async (log, approvals) => prepareResumedRun(opened, log, await this.runOptions(folder, config, key.key, approvals, trusted, mcp, opened.traceFile)),
      `Cortex could not resume run ${started.runId}`,
    );
    if (!session) return;
    const startLine = `run ${started.runId} resumed in ${folder.uri.fsPath} after seq ${opened.point.lastSeq} (${modelInUse(config)}, key from ${key.source}; restarted: ${opened.point.restartStepIds.join(', ') || 'none'})`;
    await this.drive({
      runId: started.runId,
      task: started.task,
      folder,
      session: session.session,
      agent: session.agent,
      traceFile: opened.traceFile,
      trusted,
      startLine,
    });
  }

  /** Remembered answers: in a trusted workspace they apply; in Restricted Mode nothing is remembered or applied. */
  private approvalMemory(): ApprovalMemory | undefined {
    return vscode.workspace.isTrusted ? new ApprovalMemory({ store: this.approvalStore, logger: this.logger }) : undefined;
  }

  /** MCP servers: the user's, and the workspace's once allowed (docs/design.md, “MCP tools”); a failure to start them is a notice, not the run's end. */
  private async mcpServersFor(
    folder: vscode.WorkspaceFolder,
    config: FlatConfig,
    trusted: boolean,
  ): Promise<{ servers: McpServerDefinition[]; notices: string[] }> {
    return (
      (await this.mcp
        ?.forRun(folder.uri.fsPath, config, trusted)
        .catch((error: unknown) => ({ servers: [], notices: [`MCP servers were not started: ${(error as Error).message}`] }))) ?? { servers: [], notices: [] }
    );
  }

  /** What a new and a resumed run of this window are given alike. */
  private async runOptions(
    folder: vscode.WorkspaceFolder,
    config: FlatConfig,
    apiKey: string | undefined,
    broker: ApprovalBroker,
    trusted: boolean,
    mcp: { servers: McpServerDefinition[]; notices: string[] },
    traceFile: string,
  ): Promise<ResumedRunOptions> {
    // Every file change is recorded beside the trace, in the extension's storage (docs/design.md, “Checkpoints and revert”).
    return {
      config,
      apiKey,
      ...(config['cortex.llm.provider'] === 'vscode-lm'
        ? { llm: new VscodeLmClient([config['cortex.llm.vscodeModel'], ...config['cortex.llm.vscodeFallbackModels']]) }
        : {}),
      approvals: broker,
      trusted,
      logger: this.logger,
      holdDeniedGates: true,
      mcpServers: mcp.servers,
      mcpNotices: mcp.notices,
      memoryFile: this.storageDir ? await memoryFileIn(this.storageDir, folder.uri.fsPath) : undefined,
      checkpointsDir: defaultCheckpointsDir(traceFile),
    };
  }

  /** Drives a run to its end: trace, log channel, index, panel, progress with Cancel, and the result. */
  private async drive(request: DriveRequest, onStarted?: (run: LiveRun) => void): Promise<LiveRun> {
    const { runId, task, folder, session, agent, traceFile } = request;
    const { log, approvals: broker } = session;
    this.sessions.set(runId, session);
    log.subscribe((event, state) => {
      const line = formatEvent(event, state, true);
      if (line) this.logger[eventTextLevel(event)](`[${runId}] ${line.trim()}`);
    });
    const run: LiveRun = { runId, task, log, broker, agent, traceFile };
    this.registry.add(run);
    onStarted?.(run);
    await this.index.upsert({ runId, task, startedAt: log.state.startedAt ?? Date.now(), status: 'running', traceFile, workspace: folder.uri.fsPath });
    this.logger.info(request.startLine);
    if (!request.trusted)
      void vscode.window.showInformationMessage('Cortex runs read-only in Restricted Mode: it can read and search files but not write files or run commands.');

    // A resumed run's panel (read from its trace until now) follows the live run.
    const panel = this.panels.get(runId);
    if (panel) panel.showSource(liveRunSource(run));
    else this.panels.open(liveRunSource(run));
    const stopWatching = this.attention.watch(runId, brokerApprovals(broker), broker.plans);
    // A plan approval waits in the panel; a hidden panel gets a notification offering it.
    const stopPlanNotices = watchPlanApprovals(broker.plans, runId, task, {
      isPanelVisible: (id) => this.panels.isVisible(id),
      notify: async (text) => (await vscode.window.showInformationMessage(text, 'Show plan')) === 'Show plan',
      showPanel: (id) => void vscode.commands.executeCommand('cortex.showPanel', id),
    });
    const stopCounting = broker.onDidChange(() => this.onDidChange());
    this.updateRunning();
    this.onDidChange();

    let result: Outcome;
    try {
      // A visible panel shows the progress and has Cancel: a notification would only cover it, so
      // the progress goes to the status bar (whose Cortex entry offers Cancel run in its tooltip).
      const panelShown = this.panels.isVisible(runId);
      result = await vscode.window.withProgress(
        {
          location: panelShown ? vscode.ProgressLocation.Window : vscode.ProgressLocation.Notification,
          title: `Cortex: ${clip(task, 60, { markerWithin: true })}`,
          cancellable: !panelShown,
        },
        async (progress, token) => {
          token.onCancellationRequested(() => agent.cancel('cancelled by the user'));
          let timer: ReturnType<typeof setTimeout> | undefined;
          const report = () => {
            timer = undefined;
            const text = progressText(log.state);
            progress.report({ message: text });
            this.statusBar.tooltip = runTooltip(task, text);
            this.onDidChange();
          };
          const unsubscribe = log.subscribe(() => {
            timer ??= setTimeout(report, PROGRESS_INTERVAL_MS);
          });
          try {
            return await session.run();
          } finally {
            unsubscribe();
            if (timer) clearTimeout(timer);
          }
        },
      );
    } catch (error) {
      // AgentRun reports its failures as a result; reaching here is a bug worth a stack in the log.
      this.logger.error(`run ${runId} crashed: ${(error as Error).stack ?? String(error)}`);
      result = { status: 'failed', error: `the run crashed: ${(error as Error).message} (details in the Cortex output channel)` };
    } finally {
      stopWatching();
      stopPlanNotices();
      stopCounting();
      this.sessions.delete(runId);
      await session.dispose();
    }
    run.result = result;
    const traceError = session.traceError();
    if (traceError) this.logger.error(`run ${runId}: the trace file ${traceFile} could not be written: ${traceError.message}`);
    // An interrupted run stays "running" in the index: it is listed for Resume after the reload.
    if (session.interrupted) return run;
    await this.index.upsert({ runId, task, startedAt: log.state.startedAt ?? Date.now(), status: result.status, traceFile, workspace: folder.uri.fsPath });
    this.updateRunning();
    this.onDidChange();
    this.logger.info(`run ${runId} ${result.status}${result.error ? `: ${result.error}` : ''}`);
    // Not awaited: the command resolves when the run ends, not when the notification is dismissed.
    void this.reportResult(run, result);
    return run;
  }

  private async reportResult(run: LiveRun, result: Outcome): Promise<void> {
    const short = (text: string) => clip(text, 300, { markerWithin: true });
    if (result.status === 'completed') {
      void vscode.commands.executeCommand('setContext', 'cortex.firstRunCompleted', true);
      return this.afterReport(
        run,
        await vscode.window.showInformationMessage(`Cortex finished: ${short(result.answer ?? 'all steps completed.')}`, ...REPORT_BUTTONS),
      );
    }
    if (result.status === 'cancelled')
      return this.afterReport(
        run,
        await vscode.window.showInformationMessage(`Cortex run cancelled${result.error ? `: ${short(result.error)}` : '.'}`, ...REPORT_BUTTONS),
      );
    // A failure the settings, the key or a retry can fix offers those first (docs/design.md, "Retrying a run").
    const endpoint = endpointFailure(run.log.events);
    const buttons = endpoint ? [...(endpoint.keyProblem ? [SET_KEY] : []), OPEN_SETTINGS, RETRY, 'Show panel'] : [...REPORT_BUTTONS, RETRY];
    await this.afterReport(run, await vscode.window.showErrorMessage(`Cortex run failed: ${short(result.error ?? 'see the panel')}`, ...buttons));
  }

  private async afterReport(run: LiveRun, choice: string | undefined): Promise<void> {
    if (choice === 'Show panel') this.showPanel(run.runId);
    if (choice === 'Open trace') await openTraceDocument(run.traceFile);
    if (choice === OPEN_SETTINGS) await vscode.commands.executeCommand('workbench.action.openSettings', 'cortex.llm');
    if (choice === RETRY) await this.retry(run.runId);
    if (choice === SET_KEY && (await vscode.commands.executeCommand<boolean>('cortex.setApiKey')) === true) {
      const again = await vscode.window.showInformationMessage(`Retry “${clip(run.task, 80, { markerWithin: true })}” with the new key?`, RETRY);
      if (again === RETRY) await this.retry(run.runId);
    }
  }

  /**
   * `cortex.retryRun`: the run (default: the newest failed one) runs again. A run stopped without
   * finishing is resumed; a failed or cancelled one starts its task again as a new run, after asking
   * when some of its steps had completed (their changes stay on disk).
   */
  async retry(runId?: string): Promise<void> {
    const isLive = (id: string) => this.registry.running().some((run) => run.runId === id);
    const id = runId ?? lastRetryableRun(this.index.list(), isLive)?.runId;
    if (!id) {
      void vscode.window.showInformationMessage('No failed Cortex run to retry.');
      return;
    }
    const source = await this.registry.source(id);
    if (!source) {
      void vscode.window.showErrorMessage(`Cortex cannot retry run ${id}: its trace is no longer on disk.`);
      return;
    }
    const folders = (vscode.workspace.workspaceFolders ?? []).map((f) => f.uri.fsPath);
    const plan = retryPlan({
      runId: id,
      live: isLive(id),
      events: source.events(),
      traceFile: source.traceFile,
      resumability: await panelResumability(source, folders),
    });
    this.logger.info(`Retry of run ${id}: ${plan.action}${plan.action === 'none' ? ` (${plan.reason})` : ''}`);
    if (plan.action === 'show') return this.showPanel(plan.runId);
    if (plan.action === 'resume') return this.resume({ traceFile: plan.traceFile, workspace: plan.workspace });
    if (plan.action === 'none') {
      void vscode.window.showInformationMessage(`Cortex does not retry this run: ${plan.reason}.`);
      return;
    }
    const folder = (
      await matchingFolder(
        plan.workspace,
        (vscode.workspace.workspaceFolders ?? []).map((f) => ({ path: f.uri.fsPath, f })),
      )
    )?.f;
    if (!folder) {
      void vscode.window.showErrorMessage(`Cortex cannot retry this run here: it worked in ${plan.workspace}, which is not a folder of this window.`);
      return;
    }
    if (plan.completedSteps > 0) {
      const steps = plan.completedSteps === 1 ? '1 step' : `${plan.completedSteps} steps`;
      const failed = plan.failedStep;
      // Retrying only the failed step keeps the completed ones (docs/design.md, “Retrying a step”).
      const go = await vscode.window.showWarningMessage(
        failed
          ? `${steps} of that run completed and their changes are still on disk. Retry only “${clip(failed.description, 80, { markerWithin: true })}” (the completed steps are carried over, not run again), or run the whole task again as a new run?`
          : `${steps} of that run completed and their changes are still on disk. Run the whole task again as a new run?`,
        { modal: true },
        ...(failed ? [RETRY_STEP] : []),
        'Run again',
      );
      if (failed && go === RETRY_STEP) return this.retryStep(id, failed.stepId);
      if (go !== 'Run again') return;
    }
    const config = await this.settings.readOrReport();
    if (!config) return;
    const key = await this.apiKeyOrReport(config);
    if (!key) return;
    await this.start(plan.task, folder, config, key.key, key.source);
  }

  /**
   * Retry step (docs/design.md, “Retrying a step”): a failed or blocked step of a finished run runs
   * again in a new run, with a trace and a panel of its own, which carries the run's completed
   * steps over. The run's folder must be open here; the old trace is only read.
   */
  async retryStep(runId: string, stepId: string): Promise<void> {
    const key = `${runId}\u0000${stepId}`;
    // A second click (or a second panel of the run) while the retry is being set up starts nothing.
    if (this.retryingSteps.has(key)) return;
    this.retryingSteps.add(key);
    try {
      await this.startStepRetry(runId, stepId);
    } finally {
      this.retryingSteps.delete(key);
    }
  }

  private async startStepRetry(runId: string, stepId: string): Promise<void> {
    const source = await this.registry.source(runId);
    if (!source?.traceFile) {
      void vscode.window.showErrorMessage(`Cortex cannot retry step ${stepId}: the trace of run ${runId} is no longer on disk.`);
      return;
    }
    if (source.isLive()) {
      void vscode.window.showInformationMessage(`Cortex retries a step once its run has finished; run ${runId} is still going.`);
      return;
    }
    const started = source.events()[0];
    const workspace = started?.type === 'run_started' ? started.workspace : undefined;
    const folder =
      workspace === undefined
        ? undefined
        : (
            await matchingFolder(
              workspace,
              (vscode.workspace.workspaceFolders ?? []).map((f) => ({ path: f.uri.fsPath, f })),
            )
          )?.f;
    if (!folder) {
      void vscode.window.showErrorMessage(
        `Cortex cannot retry this step here: the run worked in ${workspace ?? 'a folder its trace does not name'}, which is not a folder of this window.`,
      );
      return;
    }
    const config = await this.settings.readOrReport();
    if (!config) return;
    const apiKey = await this.apiKeyOrReport(config);
    if (!apiKey) return;
    let opened: OpenedRetry;
    try {
      opened = await openRetryStep({ traceFile: source.traceFile, stepId, workspaceRoot: folder.uri.fsPath });
    } catch (error) {
      void vscode.window.showErrorMessage(`Cortex cannot retry this step: ${(error as Error).message}`);
      return;
    }
    const newId = newRunId();
    const traceFile = this.registry.traceFileFor(newId);
    const trusted = vscode.workspace.isTrusted;
    const mcp = await this.mcpServersFor(folder, config, trusted);
    const session = await this.openSession(
      { file: traceFile, append: false },
      () => acquireRunLock(traceFile),
      undefined,
      async (log, approvals) =>
        prepareRetryStepRun(opened, log, { ...(await this.runOptions(folder, config, apiKey.key, approvals, trusted, mcp, traceFile)), runId: newId }),
      `Cortex could not retry step ${stepId} of run ${runId}`,
    );
    if (!session) return;
    const { retryOf } = opened.point;
    const startLine = `run ${newId} started in ${folder.uri.fsPath} to retry step ${retryOf.stepId} of run ${retryOf.runId} (${modelInUse(config)}, key from ${apiKey.source}; carried over: ${opened.point.carriedStepIds.join(', ') || 'none'})`;
    await this.drive({
      runId: newId,
      task: opened.point.started.task,
      folder,
      session: session.session,
      agent: session.agent,
      traceFile,
      trusted,
      startLine,
    });
  }

  private updateRunning(): void {
    const running = this.registry.running();
    void vscode.commands.executeCommand('setContext', 'cortex.running', running.length > 0);
    if (running.length === 0) {
      this.statusBar.hide();
      return;
    }
    this.statusBar.text = `$(loading~spin) Cortex${running.length > 1 ? ` (${running.length} runs)` : ''}`;
    this.statusBar.tooltip ??= runTooltip(running[0].task, progressText(running[0].log.state));
    this.statusBar.show();
  }

  /** Shows the panel of `runId`, or of the latest run. */
  showPanel(runId?: string): void {
    const run = runId ? this.registry.get(runId) : this.registry.latest();
    if (!run) {
      void vscode.window.showInformationMessage(
        'No Cortex run in this window yet. Run "Cortex: Run agent task", or "Cortex: Open run trace…" for an earlier run.',
      );
      return;
    }
    this.panels.open(liveRunSource(run), { preserveFocus: false });
  }

  async cancelRun(runId?: string): Promise<void> {
    const given = runId ? this.registry.running().find((run) => run.runId === runId) : undefined;
    if (given) {
      given.agent.cancel('cancelled by the user');
      return;
    }
    const running = this.registry.running();
    if (running.length === 0) {
      void vscode.window.showInformationMessage('No Cortex run is in progress.');
      return;
    }
    const target =
      running.length === 1
        ? running[0]
        : (
            await vscode.window.showQuickPick(
              running.map((run) => ({ label: run.task, description: run.runId, run })),
              { placeHolder: 'Run to cancel' },
            )
          )?.run;
    target?.agent.cancel('cancelled by the user');
  }

  /**
   * The extension stops (a reload, VS Code closing): each running run is interrupted, not
   * cancelled. Its trace stops where it is, without run_finished, and its lock is released, so the
   * next window offers to resume it (docs/design.md, “Resuming a run”); its requests and commands are stopped.
   * Resolves once their traces are written and their locks released.
   */
  dispose(): Promise<void> {
    const interrupted: Promise<void>[] = [];
    for (const run of this.registry.running()) {
      const session = this.sessions.get(run.runId);
      if (session) interrupted.push(session.interrupt('VS Code is closing the extension'));
      else run.agent.cancel('VS Code is closing the extension');
    }
    this.statusBar.dispose();
    return Promise.all(interrupted).then(() => undefined);
  }
}

/** The Cortex status bar entry's tooltip: the task, its progress, and the Show panel and Cancel run links. */
function runTooltip(task: string, progress: string): vscode.MarkdownString {
  const tooltip = new vscode.MarkdownString();
  tooltip.appendText(`Cortex: ${clip(task, 200, { markerWithin: true })}\n${progress}\n\n`);
  tooltip.appendMarkdown('[Show panel](command:cortex.showPanel) · [Cancel run](command:cortex.cancelRun)');
  // Only these two commands may run from the tooltip; the task's own text is escaped above.
  tooltip.isTrusted = { enabledCommands: ['cortex.showPanel', 'cortex.cancelRun'] };
  return tooltip;
}

/** Opens the raw JSONL trace in an editor. */
export async function openTraceDocument(file: string): Promise<void> {
  const document = await vscode.workspace.openTextDocument(vscode.Uri.file(file));
  await vscode.window.showTextDocument(document, { preview: true });
}
