import type { PlanState, StepState } from '../src/core/plan/planTypes';
import { parseWebviewMessage, type ApprovalRequestMessage, type WebviewToHost } from '../src/protocol/messages';
import { answerAll, approvalAnswer, cancelRun, endpointFixMessage, planAnswer, resumeRun, retryStep, retryStepInNewRun, type AnswerMessage } from './actions';
import { ApprovalBar } from './approvalBar';
import { PlanApprovalCard } from './planApprovalCard';
import { openChangeMessage, reviewChangesMessage, revertChangesMessage } from './changesView';
import { DetailsPane } from './details';
import { button, el, iconButton, setText } from './dom';
import { createFrameScheduler, type FrameScheduler } from './frameScheduler';
import { GraphView } from './graphView';
import { RunHeader } from './header';
import { layoutPlan, planLayoutInput, warmUpLayout } from './layout';
import { ListView } from './listView';
import { handleHostMessage } from './messageHandler';
import { Notices } from './notices';
import { LIST_DEFAULT_STEPS, NARROW_WIDTH, planRow } from './planList';
import { ResultArea, firstFailedStep } from './resultArea';
import { readSavedState, readyMessage, type PanelSavedState } from './savedState';
import { STATUS_LABEL, stepView, type StepView, type StepViewContext } from './stepView';
import { PlanStore } from './store';
import { ViewportControl } from './viewportControl';

// The panel: builds its whole DOM inside an empty <body>, folds host messages into the store, and
// renders at most once per animation frame: layout only on structural changes, otherwise a restyle
// of the touched nodes.

export interface VsCodeApi {
  postMessage(message: unknown): void;
  getState(): unknown;
  setState(state: unknown): void;
}

/** One timing record (see perfSink). */
interface PerfEntry {
  kind: 'render' | 'message';
  ms: number;
  layoutMs?: number;
  nodes?: number;
  events?: number;
  structure?: boolean;
  lastSeq: number;
  operators?: string;
  domMs?: number;
  fitMs?: number;
}

/**
 * Optional timing sink for the bench harness, which sets `globalThis.cortexPanelPerf = []` before
 * the script loads. In VS Code it is absent and nothing is recorded.
 */
function perfSink(): PerfEntry[] | undefined {
  const sink = (globalThis as { cortexPanelPerf?: unknown }).cortexPanelPerf;
  return Array.isArray(sink) ? (sink as PerfEntry[]) : undefined;
}

export class PanelApp {
  private readonly store = new PlanStore();
  private readonly scheduler: FrameScheduler;
  private readonly header: RunHeader;
  private readonly notices = new Notices();
  /** How many of the run's warnings and errors (plan state) are already shown as notices. */
  private runNoticesShown = 0;
  private readonly result: ResultArea;
  private readonly approvalBar: ApprovalBar;
  private readonly planApproval: PlanApprovalCard;
  private readonly list: ListView;
  private readonly main: HTMLElement;
  private readonly viewButtons: { graph: HTMLButtonElement; list: HTMLButtonElement };
  /** The view the person chose; undefined: the default (see planViewMode). */
  private chosenView: 'graph' | 'list' | undefined;
  private readonly narrowQuery: MediaQueryList | undefined;
  /** The list rows no longer match the plan (rebuilt when the list shows). */
  private listStale = true;
  /** The graph no longer matches the plan's structure (laid out again when the graph shows). */
  private graphStale = true;
  private readonly graph: GraphView;
  private readonly viewport: ViewportControl;
  private readonly details: DetailsPane;
  private readonly emptyGraph: HTMLElement;
  private saved: PanelSavedState;
  private selected: string | undefined;
  private selectionChanged = false;
  private stateDirty = false;
  private autoOpenedFor: string | undefined;
  private restorePending: PanelSavedState | undefined;
  private timer: ReturnType<typeof setInterval> | undefined;

  constructor(
    private readonly doc: Document,
    private readonly vscode: VsCodeApi,
  ) {
    this.saved = readSavedState(vscode.getState());
    this.restorePending = this.saved.runId ? this.saved : undefined;
    this.scheduler = createFrameScheduler(
      () => this.render(),
      (cb) => requestAnimationFrame(cb),
    );
    this.header = new RunHeader({
      cancel: (b) => this.send(cancelRun(this.store), b),
      resume: (b) => this.send(resumeRun(this.store), b),
      openTrace: () => this.send({ type: 'run/openTrace' }),
      reviewChanges: () => this.send(reviewChangesMessage(this.store)),
      revertRun: () => this.send(revertChangesMessage(this.store)),
    });
    this.approvalBar = new ApprovalBar({
      approve: (a, b) => this.answer(a, 'approve', undefined, b),
      approveRemembered: (a, scope, b) => this.sendAnswer(approvalAnswer(this.store, a, 'approve', undefined, scope), b),
      deny: (a, feedback, b) => this.answer(a, 'deny', feedback, b),
      approveAll: (b) => this.sendAll(answerAll(this.store, 'approve'), b),
      denyAll: (b) => this.sendAll(answerAll(this.store, 'deny'), b),
      select: (id) => this.select(id, true),
    });
    this.planApproval = new PlanApprovalCard({
      answer: (request, approved, feedback, b) => {
        const message = planAnswer(this.store, request.requestId, approved, feedback);
        if (!this.send(message, b) && message) this.store.answerNotSent(message.replyTo);
      },
    });
    this.result = new ResultArea({
      openDetails: (id) => this.select(id, true),
      retryStep: (id, b) => this.send(retryStepInNewRun(this.store, id), b),
      // Set API key and the settings may be needed twice (an input closed by mistake); Retry runs once.
      fix: (fix, b) => this.send(endpointFixMessage(this.store, fix), fix === 'retry' ? b : undefined),
    });
    this.list = new ListView({
      select: (id) => this.select(id, false),
      approve: (a, b) => this.answer(a, 'approve', undefined, b),
      deny: (a, b) => this.answer(a, 'deny', undefined, b),
      retry: (id, b) => this.send(retryStep(this.store, id), b),
      retryInNewRun: (id, b) => this.send(retryStepInNewRun(this.store, id), b),
      openDetails: (id) => this.select(id, true),
    });
    this.chosenView = this.saved.planView;
    const app = el('div', 'app');
    const main = el('div', 'main no-selection');
    this.main = main;
    const planPane = el('div', 'plan-pane');
    const graphPane = el('section', 'graph-pane');
    graphPane.setAttribute('aria-label', 'Plan graph');
    const viewportEl = el('div', 'viewport');
    this.graph = new GraphView(viewportEl, {
      select: (id) => this.select(id, false),
      clearSelection: () => this.select(undefined, false),
      approve: (a, b) => this.answer(a, 'approve', undefined, b),
      deny: (a, b) => this.answer(a, 'deny', undefined, b),
      retry: (id, b) => this.send(retryStep(this.store, id), b),
      focused: (id) => this.reveal(id),
    });
    this.viewport = new ViewportControl(
      viewportEl,
      this.graph.world,
      () => {
        this.stateDirty = true;
        this.scheduler.request();
      },
      (low) => this.graph.setDetail(!low),
    );
    if (this.saved.view && this.saved.autoFit === false) this.viewport.autoFit = false;
    this.emptyGraph = el('div', 'graph-empty', 'Waiting for the run…');
    graphPane.append(viewportEl, this.toolbar(), legend(), this.emptyGraph);
    this.viewButtons = {
      graph: button('Graph', 'view-tab', 'Show the plan as a graph', () => this.chooseView('graph')),
      list: button('List', 'view-tab', 'Show the plan as a list', () => this.chooseView('list')),
    };
    const switcher = el('div', 'view-switch');
    switcher.setAttribute('role', 'group');
    switcher.setAttribute('aria-label', 'Plan view');
    switcher.append(this.viewButtons.graph, this.viewButtons.list);
    planPane.append(switcher, graphPane, this.list.root);
    this.details = new DetailsPane({
      approve: (a, b) => this.answer(a, 'approve', undefined, b),
      deny: (a, feedback, b) => this.answer(a, 'deny', feedback, b),
      retry: (id, b) => this.send(retryStep(this.store, id), b),
      retryInNewRun: (id, b) => this.send(retryStepInNewRun(this.store, id), b),
      select: (id) => this.select(id, true),
      close: () => this.select(undefined, true),
      changes: {
        open: (stepId, path) => this.send(openChangeMessage(this.store, stepId, path)),
        review: (stepId) => this.send(reviewChangesMessage(this.store, stepId)),
        revert: (stepId) => this.send(revertChangesMessage(this.store, stepId)),
      },
    });
    this.details.root.addEventListener('keydown', (ev) => {
      if (ev.key === 'Escape' && !(ev.target as HTMLElement).closest('vscode-textarea, textarea')) this.select(undefined, true);
    });
    main.append(planPane, this.details.root);
    app.append(this.header.root, this.planApproval.root, this.approvalBar.root, this.result.root, this.notices.root, main);
    doc.body.replaceChildren(app);
    // Narrow panels stack graph and details (CSS) and default to the list (planViewMode).
    this.narrowQuery = typeof matchMedia === 'function' ? matchMedia(`(max-width: ${NARROW_WIDTH}px)`) : undefined;
    this.narrowQuery?.addEventListener('change', () => {
      this.applyViewMode();
      this.scheduler.request();
    });
    this.applyViewMode();
  }

  /** Listens for host messages and says hello (with the run and seq a reloaded panel already had). */
  start(win: Window): void {
    win.addEventListener('message', (ev: MessageEvent) => this.onMessage(ev.data));
    this.send(readyMessage(this.saved));
    this.scheduler.flush();
    // Compile d3-dag while the host's reset is on its way, so the first real layout runs warm.
    setTimeout(() => warmUpLayout(), 0);
  }

  onMessage(raw: unknown): void {
    const t0 = performance.now();
    const result = handleHostMessage(this.store, raw);
    if (result.error) {
      console.warn(`[cortex panel] dropped an invalid host message: ${result.error}`);
      return;
    }
    for (const message of result.outgoing) this.send(message);
    if (result.notice) this.notices.show(result.notice.level, result.notice.message);
    if (result.reset) this.onReset(result.reset.runId);
    if (result.render) this.scheduler.request();
    perfSink()?.push({ kind: 'message', ms: performance.now() - t0, lastSeq: this.store.lastSeq });
  }

  private onReset(runId: string): void {
    const restore = this.restorePending;
    this.restorePending = undefined;
    if (restore && restore.runId === runId) {
      this.selected = restore.selectedStepId;
      if (restore.view && restore.autoFit === false) this.viewport.set(restore.view, true);
      // A run that had already failed keeps the restored selection instead of jumping to the failure.
      if (this.store.state.status === 'failed') this.autoOpenedFor = runId;
    } else if (this.saved.runId !== runId) {
      this.selected = undefined;
      this.viewport.autoFit = true;
      this.autoOpenedFor = undefined;
    }
    this.selectionChanged = true;
  }

  private viewContext(): StepViewContext {
    return { approvals: this.store.visibleApprovals(), answered: this.store.answered, retryPending: (id) => this.store.retryPending(id) };
  }

  private rebuildList(): void {
    const state = this.store.state;
    const ctx = this.viewContext();
    const rows = [];
    for (const id of state.stepOrder) {
      const step = state.steps.get(id);
      if (!step) continue;
      const view = stepView(state, step, false, ctx);
      rows.push({ row: planRow(state, step, view), view });
    }
    this.list.setRows(rows);
    this.list.setSelected(this.selected);
    this.listStale = false;
  }

  private render(): void {
    const t0 = performance.now();
    const changes = this.store.takeChanges();
    const state = this.store.state;
    const ctx = this.viewContext();
    let layoutMs: number | undefined;
    let operators: string | undefined;
    let domMs: number | undefined;
    let fitMs: number | undefined;
    const structural = changes.reset || changes.structure;
    if (structural) {
      this.listStale = this.graphStale = true;
      // The step count may change the default view.
      this.applyViewMode();
    }
    // Each view is built only while it shows: a 200-step plan in the list pays nothing for the graph.
    if (this.graphStale && this.main.dataset.view !== 'list') {
      this.graphStale = false;
      const l0 = performance.now();
      const layout = layoutPlan(planLayoutInput(state));
      layoutMs = performance.now() - l0;
      operators = layout.operators;
      const views: StepView[] = [];
      for (const step of state.replacedSteps.values()) views.push(stepView(state, step, true, ctx));
      for (const id of state.stepOrder) {
        const step = state.steps.get(id);
        if (step) views.push(stepView(state, step, false, ctx));
      }
      // Fit first: the zoom decides whether new nodes get their detail parts (see nodeView.ts).
      const f0 = performance.now();
      // Room under the last layer for a node's approval bar, which hangs below the node.
      this.viewport.setContent({ width: layout.width, height: layout.height + 44 });
      fitMs = performance.now() - f0;
      const d0 = performance.now();
      this.graph.setLayout(layout, views);
      domMs = performance.now() - d0;
      this.updateEmptyText();
    } else if (!structural) {
      for (const id of changes.steps) {
        const found = findStep(state, id);
        if (!found) continue;
        const view = stepView(state, found.step, found.replaced, ctx);
        if (!this.graphStale) this.graph.updateNode(view);
        if (!found.replaced && !this.listStale) this.list.updateRow(planRow(state, found.step, view), view);
      }
    }
    if (this.listStale && !this.list.root.hidden) this.rebuildList();
    if (changes.reset || changes.run || changes.approvals) this.updateEmptyText();
    if (changes.reset || changes.run || changes.approvals || changes.structure || changes.steps.size > 0) this.header.update(this.store, Date.now());
    if (changes.reset || changes.run || changes.approvals || changes.structure) {
      this.approvalBar.update(this.store);
      this.planApproval.update(this.store);
    }
    if (changes.reset || changes.run) this.result.update(state);
    this.showRunNotices(changes.reset);
    if (changes.reset || changes.run) this.autoOpenFailure(state);
    if (this.selectionChanged) {
      this.graph.setSelected(this.selected);
      this.list.setSelected(this.selected);
      // Stacked (narrow) layout: the details row exists only while a step is selected.
      this.main.classList.toggle('no-selection', this.selected === undefined);
    }
    const detailsStale =
      changes.reset ||
      changes.structure ||
      changes.approvals ||
      changes.run ||
      this.selectionChanged ||
      (this.selected !== undefined && changes.steps.has(this.selected));
    if (detailsStale) this.details.render(this.store, this.selected);
    this.selectionChanged = false;
    // A run left interrupted shows where it stopped: its steps' spinners stand still.
    this.main.classList.toggle('run-stopped', !this.store.live && state.status === 'running' && this.store.runId !== undefined);
    this.updateTimer(state);
    if (changes.events > 0 || detailsStale || this.stateDirty) this.saveState();
    perfSink()?.push({
      kind: 'render',
      ms: performance.now() - t0,
      layoutMs,
      nodes: this.graph.nodeCount,
      events: changes.events,
      structure: changes.structure || changes.reset,
      lastSeq: state.lastSeq,
      operators,
      domMs,
      fitMs,
    });
  }

  /** The run's warnings and errors (failover, sandbox, MCP servers…), each shown once per load. */
  private showRunNotices(reset: boolean): void {
    const notices = this.store.state.notices ?? [];
    if (reset) this.runNoticesShown = 0;
    for (; this.runNoticesShown < notices.length; this.runNoticesShown++) {
      const notice = notices[this.runNoticesShown];
      // A warning about one step lives on that step (its row and its details), not at the top.
      if (notice.stepId && findStep(this.store.state, notice.stepId)) continue;
      this.notices.show(notice.level === 'warn' ? 'warning' : 'error', notice.message);
    }
  }

  /** When the run fails, open the failed step (once per run). */
  private autoOpenFailure(state: PlanState): void {
    if (state.status !== 'failed' || this.autoOpenedFor === this.store.runId) return;
    this.autoOpenedFor = this.store.runId;
    const target = firstFailedStep(state);
    if (target) {
      this.selected = target.id;
      this.selectionChanged = true;
    }
  }

  private select(stepId: string | undefined, focusNode: boolean): void {
    const previous = this.selected;
    this.selected = stepId;
    this.selectionChanged = true;
    this.stateDirty = true;
    this.scheduler.request();
    // A click selects what is already on screen; keyboard and links may select something off screen.
    if (stepId !== undefined && focusNode) this.reveal(stepId);
    const back = stepId ?? previous;
    if (focusNode && back !== undefined && this.graph.hasNode(back)) this.graph.focusNode(back);
  }

  private reveal(stepId: string): void {
    const pos = this.graph.layout?.nodes.get(stepId);
    if (pos) this.viewport.reveal({ x: pos.x, y: pos.y, width: pos.width, height: pos.height + 40 });
  }

  /** Sends one answer; the host's reply (host/approvalAnswer) settles its buttons. */
  private answer(approval: ApprovalRequestMessage, decision: 'approve' | 'deny', feedback: string | undefined, source: HTMLButtonElement): void {
    this.sendAnswer(approvalAnswer(this.store, approval, decision, feedback), source);
  }

  private sendAll(messages: AnswerMessage[], source: HTMLButtonElement): void {
    source.disabled = true;
    for (const message of messages) this.sendAnswer(message);
    this.scheduler.request();
  }

  private sendAnswer(message: AnswerMessage | undefined, source?: HTMLButtonElement): void {
    if (!this.send(message, source) && message) this.store.answerNotSent(message.replyTo);
  }

  /** Validates and posts a message; disables the button that sent it. Returns whether it was posted. */
  private send(message: WebviewToHost | undefined, source?: HTMLButtonElement): boolean {
    if (source) source.disabled = true;
    if (!message) return false;
    const checked = parseWebviewMessage(message);
    if (!checked.ok) {
      console.warn(`[cortex panel] not sending an invalid message: ${checked.error}`);
      this.notices.show('error', `Could not send ${message.type}: ${checked.error}`);
      this.scheduler.request();
      return false;
    }
    this.vscode.postMessage(checked.message);
    this.scheduler.request();
    return true;
  }

  private saveState(): void {
    // Until the host's reset arrives there is nothing newer than what a reload restored.
    if (!this.store.runId) return;
    this.stateDirty = false;
    const t = this.viewport.transform;
    this.saved = {
      runId: this.store.runId,
      selectedStepId: this.selected,
      view: { k: t.k, x: t.x, y: t.y },
      autoFit: this.viewport.autoFit,
      ...(this.chosenView ? { planView: this.chosenView } : {}),
    };
    this.vscode.setState(this.saved);
  }

  private updateTimer(state: PlanState): void {
    const running = state.status === 'running' && state.startedAt !== undefined && this.store.live;
    if (running && !this.timer) this.timer = setInterval(() => this.header.tick(this.store, Date.now()), 1000);
    else if (!running && this.timer) {
      clearInterval(this.timer);
      this.timer = undefined;
    }
  }

  /** The view shown: the person's choice, else the list when the panel is narrow or the plan is big. */
  private planViewMode(): 'graph' | 'list' {
    if (this.chosenView) return this.chosenView;
    return this.narrowQuery?.matches || this.store.state.stepOrder.length > LIST_DEFAULT_STEPS ? 'list' : 'graph';
  }

  private chooseView(mode: 'graph' | 'list'): void {
    this.chosenView = mode;
    this.stateDirty = true;
    this.applyViewMode();
    // The graph, if it was not built while the list showed, is laid out in this frame.
    this.scheduler.request();
  }

  private applyViewMode(): void {
    const mode = this.planViewMode();
    // Before the plan exists the graph area says what the run is doing, with no controls.
    const empty = this.store.state.stepOrder.length === 0;
    this.main.dataset.view = empty ? 'graph' : mode;
    this.main.classList.toggle('plan-empty', empty);
    this.list.root.hidden = empty || mode !== 'list';
    if (!this.list.root.hidden && this.listStale) this.rebuildList();
    for (const [name, b] of Object.entries(this.viewButtons)) b.setAttribute('aria-pressed', String(name === mode));
  }

  /** What the graph area says before it has nodes: it follows the run (never "Planning…" after a failure). */
  private updateEmptyText(): void {
    const state = this.store.state;
    this.emptyGraph.hidden = this.graph.nodeCount > 0;
    const text = !this.store.runId
      ? 'Waiting for the run…'
      : state.status === 'running'
        ? this.store.live
          ? this.store.pendingPlanApproval()
            ? 'Waiting for the plan to be approved (above)…'
            : 'Planning…'
          : 'The run stopped before it had a plan.'
        : state.status === 'failed'
          ? 'The run failed before it had a plan.'
          : state.status === 'cancelled'
            ? 'The run was cancelled before it had a plan.'
            : 'The run has no steps.';
    setText(this.emptyGraph, text);
  }

  private toolbar(): HTMLElement {
    const bar = el('div', 'toolbar');
    bar.setAttribute('role', 'toolbar');
    bar.setAttribute('aria-label', 'Zoom');
    bar.append(
      iconButton('zoom-out', 'btn-icon', 'Zoom out', () => this.viewport.zoomBy(1 / 1.2)),
      iconButton('zoom-in', 'btn-icon', 'Zoom in', () => this.viewport.zoomBy(1.2)),
      button('Fit', 'btn-icon btn-text', 'Fit the graph to the view', () => this.viewport.fit()),
    );
    return bar;
  }
}

function findStep(state: PlanState, id: string): { step: StepState; replaced: boolean } | undefined {
  const live = state.steps.get(id);
  if (live) return { step: live, replaced: false };
  const old = state.replacedSteps.get(id);
  return old ? { step: old, replaced: true } : undefined;
}

/** The status colours of the graph, in words. */
function legend(): HTMLElement {
  const box = el('ul', 'legend');
  box.setAttribute('aria-label', 'Step statuses');
  for (const status of ['not_started', 'in_progress', 'completed', 'failed', 'blocked'] as const) {
    const item = el('li', `legend-item status-${status}`);
    item.append(el('span', 'legend-swatch'), el('span', '', STATUS_LABEL[status]));
    box.append(item);
  }
  const waiting = el('li', 'legend-item legend-awaiting');
  waiting.append(el('span', 'legend-swatch'), el('span', '', 'Needs approval'));
  box.append(waiting);
  return box;
}
