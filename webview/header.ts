import { runDriftCount } from '../src/core/plan/stepDrift';
import type { RunStatus } from '../src/core/plan/planTypes';
import { button, el, setAttr, setText } from './dom';
import { formatCost, usageText } from '../src/core/usage/formatUsage';
import { formatElapsed, formatTokens, oneLine } from './format';
import { icon, RUN_STATUS_ICON, setIcon } from './icons';
import { runHasChanges } from './changesView';
import { rateLimitCountdown } from './rateLimitWait';
import type { PlanStore } from './store';
import { retryOfText } from './stepRetry';

// The run header: title, run status, elapsed time, tokens (when the provider reported usage),
// Cancel while running, Resume, the run's changes and its trace; while a rate-limited request
// waits for its retry, a countdown under them. The approval bar under it is approvalBar.ts.

export interface HeaderHandlers {
  cancel(source: HTMLButtonElement): void;
  /** Resume an interrupted run (docs/design.md, “Resuming a run”). */
  resume(source: HTMLButtonElement): void;
  openTrace(): void;
  /** The run's changes in a multi-file diff, and the revert of the whole run (docs/design.md, “Checkpoints and revert”). */
  reviewChanges(): void;
  revertRun(): void;
}

const RUN_STATUS_LABEL: Record<RunStatus, string> = { running: 'Running', completed: 'Completed', failed: 'Failed', cancelled: 'Cancelled' };

/** A run that is not live yet never finished was interrupted (its window reloaded, its process died). */
export function runStatusLabel(status: RunStatus, live: boolean): string {
  return !live && status === 'running' ? 'Interrupted' : RUN_STATUS_LABEL[status];
}

export class RunHeader {
  readonly root: HTMLElement;
  private readonly title = el('h1', 'run-title');
  private readonly status = el('span', 'run-status');
  private readonly statusGlyph = icon(RUN_STATUS_ICON.running, 'run-status-glyph');
  private readonly statusText = el('span', 'run-status-text');
  private readonly announcer = el('span', 'sr-only');
  private readonly elapsed = el('span', 'run-elapsed');
  private readonly elapsedText = el('span', 'run-elapsed-text');
  private readonly tokens = el('span', 'run-tokens');
  private readonly steps = el('span', 'run-steps');
  /** Calls and changes outside their step's approved scope (docs/design.md, “Step scopes and plan approval”). */
  private readonly drift = el('span', 'run-drift');
  private readonly driftText = el('span', 'run-drift-text');
  private readonly cancel: HTMLButtonElement;
  private readonly resume: HTMLButtonElement;
  private readonly reviewChanges: HTMLButtonElement;
  private readonly revertRun: HTMLButtonElement;
  private lastStatus = '';
  /** The rate-limit countdown; a timer role, so screen readers are not told every second. */
  private readonly rateLimit = el('div', 'rate-limit-wait');
  private readonly rateLimitText = el('span', 'rate-limit-wait-text');
  /** For a run that retries a step of a finished run: which one (docs/design.md, “Retrying a step”). */
  private readonly retryOf = el('div', 'run-retry-of');

  constructor(private readonly handlers: HeaderHandlers) {
    this.root = el('header', 'run-header');
    const row = el('div', 'run-row');
    this.status.append(this.statusGlyph, this.statusText);
    this.announcer.setAttribute('role', 'status');
    this.elapsed.append(icon('watch', 'run-elapsed-icon', 'Elapsed time'), this.elapsedText);
    this.elapsed.title = 'Elapsed time';
    this.tokens.title = 'Tokens used (prompt + completion)';
    const meta = el('div', 'run-meta');
    this.drift.append(icon('warning', 'run-drift-icon'), this.driftText);
    this.drift.hidden = true;
    meta.append(this.status, this.elapsed, this.steps, this.drift, this.tokens);
    const titleBox = el('div', 'run-title-box');
    titleBox.append(this.title, meta);
    this.cancel = button('Cancel', 'btn btn-secondary', 'Cancel the run', (_ev, self) => this.handlers.cancel(self));
    this.resume = button('Resume', 'btn btn-primary', 'Resume the interrupted run', (_ev, self) => this.handlers.resume(self));
    this.resume.title = 'Continue the run from its trace: completed steps are kept, steps that were running start again';
    this.resume.hidden = true;
    const trace = button('Open trace', 'btn btn-secondary', 'Open the run trace file', () => this.handlers.openTrace());
    this.reviewChanges = button('Review changes', 'btn btn-secondary', 'Review every file the run changed in a diff editor', () =>
      this.handlers.reviewChanges(),
    );
    this.revertRun = button('Revert run', 'btn btn-secondary', 'Revert every change of the run (asks first)', () => this.handlers.revertRun());
    this.reviewChanges.hidden = this.revertRun.hidden = true;
    const actions = el('div', 'run-actions');
    actions.append(this.cancel, this.resume, this.reviewChanges, this.revertRun, trace);
    row.append(titleBox, actions);
    this.rateLimit.setAttribute('role', 'timer');
    this.rateLimit.append(icon('watch', 'rate-limit-wait-icon'), this.rateLimitText);
    this.rateLimit.hidden = true;
    this.retryOf.hidden = true;
    this.root.append(row, this.retryOf, this.rateLimit, this.announcer);
  }

  update(store: PlanStore, now: number): void {
    const s = store.state;
    setText(this.title, s.title || oneLine(s.task, 120) || (store.runId ? 'Planning…' : 'Waiting for a run…'));
    setAttr(this.title, 'title', s.task || undefined);
    const label = store.runId ? runStatusLabel(s.status, store.live) : 'No run';
    setText(this.statusText, label);
    const interrupted = !!store.runId && s.status === 'running' && !store.live;
    setIcon(this.statusGlyph, interrupted ? 'warning' : RUN_STATUS_ICON[s.status], 'run-status-glyph');
    this.status.className = `run-status run-${interrupted ? 'interrupted' : store.runId ? s.status : 'idle'}`;
    if (label !== this.lastStatus) {
      this.lastStatus = label;
      setText(this.announcer, `Run ${label.toLowerCase()}`);
    }
    let done = 0;
    for (const step of s.steps.values()) if (step.status === 'completed') done++;
    // A plan still streaming grows: its count is not the plan's size yet (docs/design.md, “The planner”).
    const growing = s.planPartial && s.status === 'running' && store.live ? ' so far, plan still arriving' : '';
    setText(this.steps, s.steps.size ? `${done}/${s.steps.size} steps${growing}` : '');
    const drift = runDriftCount(s);
    this.drift.hidden = drift === 0;
    setText(this.driftText, drift ? `${drift} drift` : '');
    setAttr(this.drift, 'title', drift ? `${drift} call(s) or change(s) outside their step's approved scope` : undefined);
    const total = s.usage.promptTokens + s.usage.completionTokens;
    // "~" and "estimated": the endpoint reported no usage for some requests (counted by the tokenizer).
    const approx = s.usage.estimated ? '~' : '';
    setText(
      this.tokens,
      total > 0 ? `${approx}${formatTokens(total)} tokens${s.usage.cost !== undefined ? ` · ${approx}${formatCost(s.usage.cost)}` : ''}` : '',
    );
    this.tokens.hidden = total === 0;
    setAttr(this.tokens, 'title', total > 0 ? `Tokens of the run: ${usageText(s.usage)}` : undefined);
    const running = s.status === 'running' && store.live && !!store.runId;
    this.cancel.hidden = !running;
    this.cancel.disabled = store.cancelRequested;
    setText(this.cancel, store.cancelRequested ? 'Cancelling…' : 'Cancel');
    this.resume.hidden = !(interrupted && store.resumable);
    this.resume.disabled = store.resumeRequested;
    setText(this.resume, store.resumeRequested ? 'Resuming…' : 'Resume');
    setText(this.retryOf, s.retryOf ? retryOfText(s.retryOf) : '');
    this.retryOf.hidden = !s.retryOf;
    const changed = runHasChanges(s);
    this.reviewChanges.hidden = !changed.any;
    this.revertRun.hidden = !changed.active || running || interrupted;
    this.tick(store, now);
  }

  /** Elapsed time and the rate-limit countdown only (called every second while running). */
  tick(store: PlanStore, now: number): void {
    const s = store.state;
    const wait = rateLimitCountdown(store.rateLimitWaits, now, s.status === 'running' && store.live);
    if (this.rateLimit.hidden !== !wait) this.rateLimit.hidden = !wait;
    if (wait) setText(this.rateLimitText, wait.text);
    const hide = s.startedAt === undefined;
    if (this.elapsed.hidden !== hide) this.elapsed.hidden = hide;
    if (s.startedAt === undefined) return;
    // A live run ticks with the clock; a finished one, or a trace that stopped mid-run, stops at its last event.
    const end = s.status === 'running' && store.live ? Math.max(now, s.startedAt) : (s.finishedAt ?? store.lastEventTime ?? s.startedAt);
    setText(this.elapsedText, formatElapsed(end - s.startedAt));
  }
}
