import { EventLog } from '../plan/eventLog';
import type { RunEvent } from '../plan/events';
import { ApprovalBroker } from '../policy/approvalBroker';
import type { ApprovalMemory } from '../policy/approvalMemory';
import type { Logger } from '../ports';
import type { RunLock } from '../resume/runLock';
import { createTraceWriter, type TraceWriter } from '../trace/traceWriter';
import type { AgentRun, RunResult } from './agentRun';

// One run driven by this process, new or resumed, for the extension host and the CLI alike
// (docs/design.md, “The core's inner layers”): its event log (holding a resumed run's recorded
// events), its approvals, its trace file and its lock, and what can happen to it: start, cancel,
// interrupt, dispose. The host and the CLI add only their UI (panel, progress, notifications;
// terminal lines, signals, exit codes).

/** A run built on the session's log and approvals, ready to go. */
export interface PreparedRun {
  agent: AgentRun;
  run(): Promise<RunResult>;
}

export interface RunSessionOptions {
  /** The trace file the session writes: a resumed run appends to its own. */
  trace?: { file: string; append: boolean };
  /** The run's lock, held by this process; the session releases it when it ends. */
  lock?: RunLock;
  /** Events a resumed run already recorded. */
  history?: readonly RunEvent[];
  /** For the approval broker's diagnostics. */
  logger?: Logger;
  /** Answers that approve more than one call ("for this run", "in this workspace"); none: every call is asked. */
  approvalMemory?: ApprovalMemory;
  /** A listener of the log threw (the UI's output failed): reported, the run goes on. */
  onListenerError?: (error: unknown) => void;
  /** Builds the run on the session's log and approvals (called once, by `prepare`). */
  build: (log: EventLog, approvals: ApprovalBroker) => Promise<PreparedRun>;
}

export class RunSession {
  readonly log: EventLog;
  readonly approvals: ApprovalBroker;
  private readonly writer?: TraceWriter;
  private stopTrace: () => void;
  private preparing?: Promise<PreparedRun>;
  private prepared?: PreparedRun;
  /** A cancel that came while the run was still being built. */
  private cancelReason?: string;
  private interruptedBy?: string;
  /** Set once the trace is being closed and the lock given back (dispose or interrupt). */
  private released?: Promise<void>;

  /** Starts the trace file (a file that cannot be written is reported by `traceError()`). */
  constructor(private readonly options: RunSessionOptions) {
    this.writer = options.trace ? createTraceWriter(options.trace.file, { append: options.trace.append }) : undefined;
    this.log = new EventLog({ history: options.history, onListenerError: options.onListenerError });
    // The trace listens first, so it has every event before the UI's listeners run.
    this.stopTrace = this.writer ? this.log.subscribe(this.writer.listener) : () => undefined;
    this.approvals = new ApprovalBroker({ logger: options.logger, ...(options.approvalMemory ? { memory: options.approvalMemory } : {}) });
  }

  /** The run, once built. */
  get agent(): AgentRun | undefined {
    return this.prepared?.agent;
  }

  /** Set when the run was interrupted (its trace stopped without run_finished: it stays resumable). */
  get interrupted(): string | undefined {
    return this.interruptedBy;
  }

  /** Builds the run (once); a failure is the caller's to report, after `dispose`. */
  async prepare(): Promise<AgentRun> {
    this.preparing ??= this.options.build(this.log, this.approvals).then((prepared) => {
      this.prepared = prepared;
      if (this.cancelReason) prepared.agent.cancel(this.cancelReason);
      return prepared;
    });
    return (await this.preparing).agent;
  }

  /** Builds the run if needed and drives it to its end. */
  async run(): Promise<RunResult> {
    await this.prepare();
    return this.prepared!.run();
  }

  cancel(reason: string): void {
    this.cancelReason ??= reason;
    this.prepared?.agent.cancel(reason);
  }

  /**
   * Interrupted, not cancelled (SIGTERM, the terminal closed, VS Code closing the extension):
   * nothing more goes to the trace, so it ends without run_finished and can be resumed; the lock
   * is released for the next driver as soon as the lines already recorded are written (resolved
   * then), so the next driver never reads a trace that is still growing.
   */
  interrupt(reason: string): Promise<void> {
    if (!this.interruptedBy) {
      this.interruptedBy = reason;
      this.stopTrace();
      this.cancel(reason);
      this.released ??= this.closeTraceAndLock();
    }
    return this.released!;
  }

  /** Why the trace could not be written, if it could not. */
  traceError(): Error | undefined {
    return this.writer?.error();
  }

  /** Ends the session: resolves once the trace is written and closed and the lock released. Safe to call twice. */
  dispose(): Promise<void> {
    this.stopTrace();
    this.released ??= this.closeTraceAndLock();
    return this.released;
  }

  private async closeTraceAndLock(): Promise<void> {
    try {
      await this.writer?.close();
    } finally {
      await this.options.lock?.release();
    }
  }
}
