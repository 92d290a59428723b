import type { Logger } from '../core/ports';
import type { AnswerResult } from '../core/policy/approvalBroker';
import type { ApprovalRequestMessage } from '../protocol/messages';

/** The button pressed on an approval notification; undefined when it was dismissed. */
export type ApprovalChoice = 'approve' | 'deny' | 'showPanel' | undefined;

/** One run's approvals (its ApprovalBroker over the run's plan state). */
export interface RunApprovals {
  /** Requests still waiting, oldest first. */
  pending(): ApprovalRequestMessage[];
  /** Called after every change of the queue; returns the unsubscribe function. */
  onDidChange(listener: () => void): () => void;
  answer(request: ApprovalRequestMessage, decision: 'approve' | 'deny'): AnswerResult;
}

/** One run's plan approval (its PlanApprovalBroker): at most one waits at a time. */
export interface RunPlanApprovals {
  /** The request waiting, if any. */
  pending(): unknown;
  onDidChange(listener: () => void): () => void;
}

/** What this needs from the window: the run's panel, notifications and warnings. */
export interface ApprovalSurface {
  /** True while the run's panel is the visible tab of its editor group. */
  isPanelVisible(runId: string): boolean;
  /** Shows a notification for one request; resolves with the button pressed. */
  notify(runId: string, request: ApprovalRequestMessage): PromiseLike<ApprovalChoice>;
  /** Reveals and focuses the run's panel. */
  showPanel(runId: string): void;
  warn(message: string): void;
}

/** The status bar entry: shown while approvals wait; a click shows the panel of `runId`. */
export interface ApprovalStatusView {
  show(status: { text: string; tooltip: string; runId: string }): void;
  hide(): void;
}

/** "$(bell) 2 approvals waiting" (the codicon is rendered by the status bar). */
export function approvalStatusText(count: number): string {
  return `$(bell) ${count} approval${count === 1 ? '' : 's'} waiting`;
}

interface WatchedRun {
  approvals: RunApprovals;
  plans?: RunPlanApprovals;
  /** Request ids already considered for a notification (shown or not). */
  seen: Set<string>;
}

/**
 * Draws attention to approvals waiting in any run of this window. The panel is where they are
 * answered; a notification is shown for a new request only while its run's panel is not visible
 * (so nothing lingers next to a panel that already shows the buttons), and the status bar counts
 * every waiting request until it is answered, whichever channel answers it.
 */
export class ApprovalAttention {
  private readonly runs = new Map<string, WatchedRun>();

  constructor(
    private readonly surface: ApprovalSurface,
    private readonly status: ApprovalStatusView,
    private readonly logger: Logger,
  ) {}

  /**
   * Follows one run's queue, and its plan approvals when given (counted in the status bar; their
   * notification is watchPlanApprovals'), until the returned function is called (when the run ends).
   */
  watch(runId: string, approvals: RunApprovals, plans?: RunPlanApprovals): () => void {
    if (this.runs.has(runId)) throw new Error(`approvals of run ${runId} are already watched`);
    const run: WatchedRun = { approvals, seen: new Set(), ...(plans ? { plans } : {}) };
    this.runs.set(runId, run);
    const unsubscribe = approvals.onDidChange(() => this.refresh(runId, run));
    const unsubscribePlans = plans?.onDidChange(() => this.updateStatus());
    this.refresh(runId, run);
    return () => {
      unsubscribe();
      unsubscribePlans?.();
      if (this.runs.get(runId) === run) this.runs.delete(runId);
      this.updateStatus();
    };
  }

  private refresh(runId: string, run: WatchedRun): void {
    const pending = run.approvals.pending();
    const ids = new Set(pending.map((request) => request.requestId));
    for (const id of run.seen) if (!ids.has(id)) run.seen.delete(id);
    for (const request of pending) {
      if (run.seen.has(request.requestId)) continue;
      run.seen.add(request.requestId);
      // Decided once, when the request arrives: a panel shown later offers its own buttons.
      if (!this.surface.isPanelVisible(runId)) this.notify(runId, run, request);
    }
    this.updateStatus();
  }

  private notify(runId: string, run: WatchedRun, request: ApprovalRequestMessage): void {
    void Promise.resolve(this.surface.notify(runId, request)).then(
      (choice) => {
        if (choice === 'showPanel') return this.surface.showPanel(runId);
        if (choice !== 'approve' && choice !== 'deny') return;
        const result = run.approvals.answer(request, choice);
        if (result.accepted) return;
        // A notification cannot be closed: one clicked after the panel answered (or the run ended) is expected, not an error.
        if (result.reason === 'already_answered' || result.reason === 'withdrawn' || result.reason === 'run_over') {
          this.logger.info(
            `run ${runId}: notification answer for ${request.callId} ignored (${result.reason === 'already_answered' ? 'already answered' : result.message})`,
          );
          return;
        }
        this.surface.warn(`That approval was not applied: ${result.message}`);
      },
      (error: unknown) => this.logger.warn(`run ${runId}: the approval notification failed: ${String(error)}`),
    );
  }

  /** Counts from each run's plan state: what waits is never kept here. */
  private updateStatus(): void {
    const counts = [...this.runs.entries()].map(([runId, run]) => ({
      runId,
      calls: run.approvals.pending().length,
      plans: run.plans?.pending() ? 1 : 0,
    }));
    const calls = counts.reduce((total, run) => total + run.calls, 0);
    const plans = counts.reduce((total, run) => total + run.plans, 0);
    const first = counts.find((run) => run.calls + run.plans > 0)?.runId;
    if (calls + plans === 0 || first === undefined) {
      this.status.hide();
      return;
    }
    this.status.show({
      text: approvalStatusText(calls + plans),
      tooltip: `Cortex: ${waitingWords(plans, calls)} for your approval. Click to show the panel.`,
      runId: first,
    });
  }
}

/** "A tool call waits", "2 plans and a tool call wait"… */
function waitingWords(plans: number, calls: number): string {
  const parts = [
    ...(plans > 0 ? [plans === 1 ? 'a plan' : `${plans} plans`] : []),
    ...(calls > 0 ? [calls === 1 ? 'a tool call' : `${calls} tool calls`] : []),
  ];
  const words = parts.join(' and ');
  return `${words[0].toUpperCase()}${words.slice(1)} ${plans + calls === 1 ? 'waits' : 'wait'}`;
}
