import * as vscode from 'vscode';
import type { RunEvent } from '../core/plan/events';
import type { Logger } from '../core/ports';
import { parseWebviewMessage, type HostToWebview, type WebviewToHost } from '../protocol/messages';
import { EventBatcher } from './eventBatcher';
import { createNonce, renderPanelHtml } from './panelHtml';
import type { RunSource } from './runSource';
import { clip } from '../core/text/clip';
import { DisposableStore } from './disposableStore';

/** What the panel asks of the rest of the extension. */
export interface PanelActions {
  openTrace(source: RunSource): Promise<void>;
  /** Whether the run, read from its trace, can be resumed in this window (docs/design.md, “Resuming a run”). */
  canResume?(source: RunSource): Promise<boolean>;
  /** Resumes the run; its panel then follows the live run (see `showSource`). */
  resume?(source: RunSource): Promise<void>;
  /** Runs a failed or blocked step of the finished run again, in a new run with its own panel (docs/design.md, “Retrying a step”). */
  retryStep?(source: RunSource, stepId: string): Promise<void>;
  /** Reviewing and reverting the run's file changes (docs/design.md, “Checkpoints and revert”). */
  changes?: PanelChangeActions;
}

/** The panel's change buttons: a file's diff, the multi-file review, a revert (asks first). */
export interface PanelChangeActions {
  open(source: RunSource, stepId: string | undefined, path: string): Promise<void>;
  review(source: RunSource, stepId?: string): Promise<void>;
  revert(source: RunSource, stepId?: string): Promise<void>;
}

/** The state the webview persists with `vscode.setState` (read back by the serializer). */
export interface PanelState {
  runId?: string;
}

const TITLE_MAX = 40;

/**
 * The live DAG webview of one run. It speaks only the typed protocol: waits for `webview/ready`,
 * sends `host/reset` (every event so far), then `host/events` batches per frame; approvals are
 * events like the rest, and each approval answer gets one `host/approvalAnswer` reply. Messages
 * from the webview are validated and invalid ones are logged and dropped; nothing the webview
 * sends can throw here.
 */
export class DagPanel implements vscode.Disposable {
  static readonly viewType = 'cortex.dag';

  /** Everything closing the panel undoes, in order: the batcher, the run's events, the panel, its listeners, then onDidDispose's. */
  private readonly store = new DisposableStore();
  private readonly batcher: EventBatcher;
  private unsubscribeEvents: () => void = () => undefined;
  /** Events with seq below this went out in a reset or batch already. */
  private nextSeq = 0;
  private ready = false;

  /** Opens a new panel for `source`. */
  static create(
    extensionUri: vscode.Uri,
    source: RunSource,
    logger: Logger,
    actions: PanelActions,
    column = vscode.ViewColumn.Beside,
    preserveFocus = true,
  ): DagPanel {
    const panel = vscode.window.createWebviewPanel(
      DagPanel.viewType,
      DagPanel.titleFor(source),
      { viewColumn: column, preserveFocus },
      DagPanel.webviewOptions(extensionUri),
    );
    return new DagPanel(panel, extensionUri, source, logger, actions);
  }

  /** Adopts a panel VS Code restored after a reload (see DagPanelSerializer). */
  static revive(panel: vscode.WebviewPanel, extensionUri: vscode.Uri, source: RunSource, logger: Logger, actions: PanelActions): DagPanel {
    panel.webview.options = DagPanel.webviewOptions(extensionUri);
    panel.title = DagPanel.titleFor(source);
    return new DagPanel(panel, extensionUri, source, logger, actions);
  }

  static webviewOptions(extensionUri: vscode.Uri): vscode.WebviewOptions & vscode.WebviewPanelOptions {
    return {
      enableScripts: true,
      enableCommandUris: false,
      localResourceRoots: [vscode.Uri.joinPath(extensionUri, 'dist'), vscode.Uri.joinPath(extensionUri, 'media')],
    };
  }

  private static titleFor(source: RunSource): string {
    const title = source.title.replace(/\s+/g, ' ').trim();
    return `Cortex: ${clip(title, TITLE_MAX, { markerWithin: true }) || source.runId}`;
  }

  private constructor(
    readonly panel: vscode.WebviewPanel,
    private readonly extensionUri: vscode.Uri,
    private source: RunSource,
    private readonly logger: Logger,
    private readonly actions: PanelActions,
  ) {
    const iconFile = vscode.Uri.joinPath(extensionUri, 'media', 'icon.png');
    panel.iconPath = iconFile;
    this.batcher = new EventBatcher((fromSeq, events) => this.post({ type: 'host/events', runId: source.runId, fromSeq, events }));
    this.unsubscribeEvents = source.subscribe((event) => this.onEvent(event));
    this.store.add(
      this.batcher,
      () => this.unsubscribeEvents(),
      panel,
      panel.onDidDispose(() => this.dispose()),
      panel.webview.onDidReceiveMessage((raw) => this.onMessage(raw)),
    );
    panel.webview.html = this.html();
  }

  get runId(): string {
    return this.source.runId;
  }

  reveal(preserveFocus = false): void {
    this.panel.reveal(undefined, preserveFocus);
  }

  onDidDispose(listener: () => void): void {
    this.store.add(listener);
  }

  /** Shows the same run from another source (a run read from its trace that was resumed): the webview gets a reset. */
  showSource(source: RunSource): void {
    if (source.runId !== this.source.runId) throw new Error(`panel of run ${this.source.runId} cannot show run ${source.runId}`);
    this.unsubscribeEvents();
    this.source = source;
    this.unsubscribeEvents = source.subscribe((event) => this.onEvent(event));
    if (this.ready) this.sendReset();
    this.reveal(true);
  }

  private html(): string {
    const webview = this.panel.webview;
    const asset = (...parts: string[]) => webview.asWebviewUri(vscode.Uri.joinPath(this.extensionUri, ...parts)).toString();
    return renderPanelHtml({
      cspSource: webview.cspSource,
      nonce: createNonce(),
      scriptUri: asset('dist', 'webview.js'),
      // VS Code's icon font first (the panel's icons), then the panel's own rules, which size them.
      styleUris: [asset('dist', 'codicons', 'codicon.css'), asset('media', 'panel.css')],
      title: DagPanel.titleFor(this.source),
    });
  }

  private onEvent(event: RunEvent): void {
    // Before the handshake the reset will carry it; after, only events past the last sent seq.
    if (!this.ready || event.seq < this.nextSeq) return;
    this.nextSeq = event.seq + 1;
    this.batcher.push(event);
  }

  private sendReset(): void {
    // A run read from its trace may offer Resume; finding out reads the disk, so it is asked first.
    // (Such a run gets no new events meanwhile.)
    if (this.source.isLive() || !this.actions.canResume) return this.postReset(false);
    const source = this.source;
    this.actions.canResume(source).then(
      (resumable) => {
        if (this.source === source) this.postReset(resumable);
      },
      () => {
        if (this.source === source) this.postReset(false);
      },
    );
  }

  private postReset(resumable: boolean): void {
    this.batcher.clear();
    const events = [...this.source.events()];
    this.nextSeq = events.length === 0 ? 0 : events[events.length - 1].seq + 1;
    this.ready = true;
    this.post({ type: 'host/reset', runId: this.source.runId, live: this.source.isLive(), events, ...(resumable ? { resumable } : {}) });
  }

  private notice(level: 'info' | 'warning' | 'error', message: string): void {
    this.post({ type: 'host/notice', level, message });
  }

  /** Replies once to an answer the panel sent; the events the answer caused go out first, so the reply never overtakes them. */
  private replyToAnswer(
    replyTo: string,
    result: { accepted: true } | { accepted: false; reason: NonNullable<Extract<HostToWebview, { type: 'host/approvalAnswer' }>['reason']>; message: string },
  ): void {
    this.batcher.flush();
    this.post(
      result.accepted
        ? { type: 'host/approvalAnswer', runId: this.source.runId, replyTo, outcome: 'accepted' }
        : { type: 'host/approvalAnswer', runId: this.source.runId, replyTo, outcome: 'refused', reason: result.reason, message: result.message },
    );
  }

  private post(message: HostToWebview): void {
    if (this.store.isDisposed) return;
    this.panel.webview.postMessage(message).then(
      (delivered) => {
        if (!delivered && !this.store.isDisposed) this.logger.debug(`panel ${this.runId}: ${message.type} not delivered (webview hidden or reloading)`);
      },
      (error: unknown) => this.logger.warn(`panel ${this.runId}: posting ${message.type} failed: ${String(error)}`),
    );
  }

  private onMessage(raw: unknown): void {
    const parsed = parseWebviewMessage(raw);
    if (!parsed.ok) {
      this.logger.warn(`panel ${this.runId}: dropped an invalid message from the webview: ${parsed.error}`);
      return;
    }
    try {
      this.dispatch(parsed.message);
    } catch (error) {
      // A bug in a handler must not take down the extension host's message loop.
      this.logger.error(`panel ${this.runId}: handling ${parsed.message.type} failed: ${(error as Error).stack ?? String(error)}`);
      this.notice('error', `Cortex could not handle that: ${(error as Error).message}`);
    }
  }

  private dispatch(message: WebviewToHost): void {
    if ('runId' in message && message.runId !== undefined && message.runId !== this.source.runId && message.type !== 'webview/ready') {
      this.logger.warn(`panel ${this.runId}: dropped ${message.type} for another run (${message.runId})`);
      return;
    }
    switch (message.type) {
      case 'webview/ready':
        this.sendReset();
        return;
      case 'webview/resync': {
        this.batcher.flush();
        const missing = this.source.events().filter((event) => event.seq >= message.fromSeq && event.seq < this.nextSeq);
        if (missing.length > 0 && missing[0].seq === message.fromSeq)
          this.post({ type: 'host/events', runId: this.source.runId, fromSeq: message.fromSeq, events: missing });
        else this.sendReset();
        return;
      }
      case 'approval/answer': {
        const result = this.source.answer({
          requestId: message.requestId,
          callId: message.callId,
          argsHash: message.argsHash,
          decision: message.decision,
          feedback: message.feedback,
          ...(message.scope ? { scope: message.scope } : {}),
        });
        if (result.accepted)
          this.logger.info(
            `panel ${this.runId}: ${message.decision}${message.scope ? ` (${message.scope})` : ''} ${message.callId} (request ${message.requestId})`,
          );
        this.replyToAnswer(message.replyTo, result);
        return;
      }
      case 'plan/answer': {
        const result = this.source.answerPlan?.({ requestId: message.requestId, approved: message.approved, feedback: message.feedback }) ?? {
          accepted: false as const,
          reason: 'run_over' as const,
          message: 'this run is not running in this window',
        };
        if (result.accepted) this.logger.info(`panel ${this.runId}: plan ${message.approved ? 'approved' : 'denied'} (request ${message.requestId})`);
        this.replyToAnswer(message.replyTo, result);
        return;
      }
      case 'run/cancel': {
        const result = this.source.cancel('cancelled from the panel');
        if (!result.ok) this.notice('info', `Nothing to cancel: ${result.reason ?? 'the run is not running'}`);
        return;
      }
      case 'step/retry': {
        const result = this.source.retryStep(message.stepId);
        if (!result.accepted) this.notice('warning', `Retry of ${message.stepId} was not accepted: ${result.reason ?? 'unknown reason'}`);
        return;
      }
      case 'run/retryStep': {
        if (!this.actions.retryStep) {
          this.notice('info', 'Retrying a step is not available here.');
          return;
        }
        void this.actions
          .retryStep(this.source, message.stepId)
          .catch((error: unknown) => this.notice('error', `Could not retry the step: ${(error as Error).message}`));
        return;
      }
      case 'run/resume': {
        if (!this.actions.resume || this.source.isLive()) {
          this.notice('info', 'Nothing to resume: the run is not interrupted.');
          return;
        }
        const before = this.source;
        void this.actions
          .resume(before)
          .catch((error: unknown) => this.notice('error', `Could not resume the run: ${(error as Error).message}`))
          // Not resumed after all (refused, or the person stopped): the button comes back, or goes.
          .finally(() => {
            if (this.source === before) this.sendReset();
          });
        return;
      }
      case 'run/openTrace':
        void this.actions.openTrace(this.source).catch((error: unknown) => this.notice('error', `Could not open the trace: ${(error as Error).message}`));
        return;
      case 'endpoint/setApiKey':
        this.runCommand('cortex.setApiKey');
        return;
      case 'endpoint/openSettings':
        this.runCommand('workbench.action.openSettings', 'cortex.llm');
        return;
      case 'run/retry':
        // cortex.retryRun starts the run's task again (registered by the extension's activation).
        this.runCommand('cortex.retryRun', { runId: message.runId });
        return;
      case 'changes/open':
      case 'changes/review':
      case 'changes/revert':
        this.onChangeAction(message);
        return;
    }
  }

  /** Runs a VS Code command for a panel button; a failure becomes a notice in the panel. */
  private runCommand(command: string, ...args: unknown[]): void {
    void Promise.resolve(vscode.commands.executeCommand(command, ...args)).catch((error: unknown) =>
      this.notice('error', `Cortex could not do that (${command}): ${(error as Error).message}`),
    );
  }

  /** A change button (docs/design.md, “Checkpoints and revert”): the host opens the diff, the review, or asks before reverting. */
  private onChangeAction(message: Extract<WebviewToHost, { type: 'changes/open' | 'changes/review' | 'changes/revert' }>): void {
    const changes = this.actions.changes;
    if (!changes) {
      this.notice('info', 'Reviewing changes is not available here.');
      return;
    }
    const action =
      message.type === 'changes/open'
        ? changes.open(this.source, message.stepId, message.path)
        : message.type === 'changes/review'
          ? changes.review(this.source, message.stepId)
          : changes.revert(this.source, message.stepId);
    void action.catch((error: unknown) => this.notice('error', `Cortex could not do that: ${(error as Error).message}`));
  }

  dispose(): void {
    this.store.dispose();
  }
}
