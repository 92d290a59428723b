import type { AgentRun, RunResult } from '../core/agent/agentRun';
import { EventLog } from '../core/plan/eventLog';
import type { RunEvent } from '../core/plan/events';
import { ApprovalBroker } from '../core/policy/approvalBroker';
import type { RunLock } from '../core/resume/runLock';
import { terminalSafe } from '../core/text/terminalSafe';
import { formatEvent } from '../core/trace/eventText';
import { createTraceWriter } from '../core/trace/traceWriter';
import { attachCliApprovals } from './cliApprovals';
import { attachCliPlanApprovals } from './cliPlanApprovals';
import { EXIT, exitCodeFor } from './exitCode';
import { describeFsError } from './fsErrorText';
import { batchWritesPerTurn } from './turnBatchedOutput';
import { proofSummaryLine } from './proofSummary';
import { usageSummaryLine } from './usageSummary';

// Driving one run in the terminal, for `cortex run` and `cortex resume` alike: the trace file,
// progress on stderr, approvals, the answer on stdout, the exit code, and the run's lock.
// Ctrl-C (SIGINT) cancels the run. SIGTERM and SIGHUP (the terminal closed) interrupt it: the
// trace stops where it is, without run_finished, so `cortex resume` can continue it
// (docs/design.md, “Resuming a run”).

export interface CliIo {
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
  stdin: NodeJS.ReadableStream & { isTTY?: boolean };
}

/** One line on a terminal: model, tool and endpoint text in it cannot act on the terminal. */
export function printLine(stream: NodeJS.WritableStream, text: string): void {
  stream.write(`${terminalSafe(text)}\n`);
}

export interface CliSession {
  io: CliIo;
  approve?: 'all' | 'none' | 'plan';
  trace?: { file: string; append: boolean };
  /** The run's lock, held by this process; released when the session ends. */
  lock?: RunLock;
  /** Events a resumed run already recorded. */
  history?: readonly RunEvent[];
  /** Builds the run on the session's log and approvals. */
  makeRun(log: EventLog, approvals: ApprovalBroker): Promise<{ agent: AgentRun; run(): Promise<RunResult> }>;
}

/** Runs the session to its end and returns the process exit code. */
export async function driveCliRun(session: CliSession): Promise<number> {
  const { io, lock } = session;
  // A process that exits any other way still gives its lock back.
  const releaseOnExit = () => lock?.release();
  process.once('exit', releaseOnExit);
  let trace: ReturnType<typeof createTraceWriter> | undefined;
  try {
    trace = session.trace ? createTraceWriter(session.trace.file, { append: session.trace.append }) : undefined;
  } catch (error) {
    printLine(io.stderr, `cortex: ${describeFsError(error, 'trace file', session.trace!.file)}`);
    lock?.release();
    process.off('exit', releaseOnExit);
    return EXIT.usage;
  }
  // The run's progress goes out one burst at a time (released before the session returns).
  const stderrBatch = batchWritesPerTurn(io.stderr);
  const log = new EventLog({
    history: session.history,
    onListenerError: (error) => printLine(io.stderr, `cortex: output failed: ${(error as Error).message}`),
  });
  const stopTrace = trace ? log.subscribe(trace.listener) : () => undefined;
  log.subscribe((event, state) => {
    const line = formatEvent(event, state);
    if (!line) return;
    stderrBatch.hold();
    printLine(io.stderr, line);
  });
  const approvals = new ApprovalBroker();
  const detach = attachCliApprovals(approvals, session.approve, {
    // Read when a request needs it: a run that asks nothing never creates stdin.
    get input() {
      return io.stdin;
    },
    output: io.stderr,
  });
  // The plan approval mode (docs/design.md, “Step scopes and plan approval”).
  const detachPlans = attachCliPlanApprovals(approvals.plans, session.approve, {
    get input() {
      return io.stdin;
    },
    output: io.stderr,
  });
  let interrupted = false;
  let agent: AgentRun | undefined;
  /** A signal that came while the run was still being built. */
  let cancelReason: string | undefined;
  const cancel = (reason: string) => {
    cancelReason ??= reason;
    agent?.cancel(reason);
  };
  const onSigint = () => cancel('interrupted (SIGINT)');
  let interruptedBy: NodeJS.Signals = 'SIGTERM';
  const onInterrupt = (signal: NodeJS.Signals) => {
    // Interrupted, not cancelled: nothing more goes to the trace, so it stays resumable.
    if (interrupted) return;
    interrupted = true;
    interruptedBy = signal;
    stopTrace();
    cancel(`interrupted (${signal})`);
  };
  process.once('SIGINT', onSigint);
  // Once each: a second signal ends the process at once, as it would without Cortex.
  process.once('SIGTERM', onInterrupt);
  process.once('SIGHUP', onInterrupt);
  try {
    const prepared = await session.makeRun(log, approvals);
    agent = prepared.agent;
    if (cancelReason) agent.cancel(cancelReason);
    const result = await prepared.run();
    if (interrupted) {
      printLine(io.stderr, `cortex: interrupted (${interruptedBy})${session.trace ? `; continue with: cortex resume --trace ${session.trace.file}` : ''}`);
      return EXIT.incomplete;
    }
    printLine(io.stderr, proofSummaryLine(result.snapshot));
    printLine(io.stderr, usageSummaryLine(result.snapshot));
    if (result.answer) printLine(io.stdout, result.answer);
    return exitCodeFor(result, log.events);
  } finally {
    stderrBatch.release();
    process.off('SIGINT', onSigint);
    process.off('SIGTERM', onInterrupt);
    process.off('SIGHUP', onInterrupt);
    detach();
    detachPlans();
    await trace?.close();
    if (trace?.error()) printLine(io.stderr, `cortex: ${describeFsError(trace.error(), 'trace file', session.trace!.file)}`);
    lock?.release();
    process.off('exit', releaseOnExit);
  }
}
