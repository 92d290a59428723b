import type { EventLog } from '../core/plan/eventLog';
import type { RunEvent } from '../core/plan/events';
import type { ApprovalBroker } from '../core/policy/approvalBroker';
import { RunSession, type PreparedRun } from '../core/agent/runSession';
import type { RunLock } from '../core/resume/runLock';
import { terminalSafe } from '../core/text/terminalSafe';
import { formatEvent } from '../core/trace/eventText';
import { attachCliApprovals } from './cliApprovals';
import { ApprovalMemory } from '../core/policy/approvalMemory';
import { attachCliPlanApprovals } from './cliPlanApprovals';
import { terminalQuestions } from './terminalQuestions';
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
  makeRun(log: EventLog, approvals: ApprovalBroker): Promise<PreparedRun>;
}

/** Runs the session to its end and returns the process exit code. */
export async function driveCliRun(session: CliSession): Promise<number> {
  const { io, lock } = session;
  // A process that exits any other way still gives its lock back.
  const releaseOnExit = () => lock?.releaseSync();
  process.once('exit', releaseOnExit);
  let run: RunSession;
  try {
    run = new RunSession({
      trace: session.trace,
      lock,
      history: session.history,
      // Only a terminal can answer "for this run"; the CLI remembers nothing beyond the run.
      ...(session.approve === undefined ? { approvalMemory: new ApprovalMemory() } : {}),
      onListenerError: (error) => printLine(io.stderr, `cortex: output failed: ${(error as Error).message}`),
      build: (log, approvals) => session.makeRun(log, approvals),
    });
  } catch (error) {
    printLine(io.stderr, `cortex: ${describeFsError(error, 'trace file', session.trace!.file)}`);
    await lock?.release();
    process.off('exit', releaseOnExit);
    return EXIT.usage;
  }
  // The run's progress goes out one burst at a time (released before the session returns).
  const stderrBatch = batchWritesPerTurn(io.stderr);
  run.log.subscribe((event, state) => {
    const line = formatEvent(event, state);
    if (!line) return;
    stderrBatch.hold();
    printLine(io.stderr, line);
  });
  const terminal = {
    // Read when a request needs it: a run that asks nothing never creates stdin.
    get input() {
      return io.stdin;
    },
    output: io.stderr,
  };
  // One question at a time, whoever asks it.
  const questions = terminalQuestions(terminal);
  const detach = attachCliApprovals(run.approvals, session.approve, terminal, questions);
  // The plan approval mode (docs/design.md, “Step scopes and plan approval”).
  const detachPlans = attachCliPlanApprovals(run.approvals.plans, session.approve, terminal, questions);
  const onSigint = () => run.cancel('interrupted (SIGINT)');
  const onInterrupt = (signal: NodeJS.Signals) => void run.interrupt(`interrupted (${signal})`);
  process.once('SIGINT', onSigint);
  // Once each: a second signal ends the process at once, as it would without Cortex.
  process.once('SIGTERM', onInterrupt);
  process.once('SIGHUP', onInterrupt);
  try {
    const result = await run.run();
    if (run.interrupted) {
      printLine(io.stderr, `cortex: ${run.interrupted}${session.trace ? `; continue with: cortex resume --trace ${session.trace.file}` : ''}`);
      return EXIT.incomplete;
    }
    printLine(io.stderr, proofSummaryLine(result.snapshot));
    printLine(io.stderr, usageSummaryLine(result.snapshot));
    if (result.answer) printLine(io.stdout, result.answer);
    return exitCodeFor(result, run.log.events);
  } finally {
    stderrBatch.release();
    process.off('SIGINT', onSigint);
    process.off('SIGTERM', onInterrupt);
    process.off('SIGHUP', onInterrupt);
    detach();
    detachPlans();
    await run.dispose();
    if (run.traceError()) printLine(io.stderr, `cortex: ${describeFsError(run.traceError(), 'trace file', session.trace!.file)}`);
    process.off('exit', releaseOnExit);
  }
}
