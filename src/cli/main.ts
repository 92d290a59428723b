import { EventLog } from '../core/plan/eventLog';
import { AgentRun } from '../core/agent/agentRun';
import { ApprovalBroker } from '../core/policy/approvalBroker';
import { formatEvent } from '../core/trace/eventText';
import { createTraceWriter } from '../core/trace/traceWriter';
import { parseCliArgs, USAGE, UsageError } from './cliArgs';
import { attachCliApprovals } from './cliApprovals';
import { loadCliConfig } from './cliConfig';

/** `cortex run …`: the headless agent for CI. Returns the process exit code (0, 1 or 2). */
export async function main(argv: string[], io = { stdout: process.stdout, stderr: process.stderr, stdin: process.stdin, cwd: process.cwd(), env: process.env }): Promise<number> {
  let args;
  let loaded;
  try {
    args = parseCliArgs(argv, io.cwd);
    if (args.help) {
      io.stdout.write(`${USAGE}\n`);
      return 0;
    }
    loaded = loadCliConfig(args, io.cwd);
  } catch (error) {
    io.stderr.write(`cortex: ${(error as Error).message}\n${error instanceof UsageError ? 'Run "cortex --help" for usage.\n' : ''}`);
    return 2;
  }
  const log = new EventLog({ onListenerError: (error) => io.stderr.write(`cortex: output failed: ${(error as Error).message}\n`) });
  const trace = args.trace ? createTraceWriter(args.trace) : undefined;
  if (trace) log.subscribe(trace.listener);
  log.subscribe((event, state) => {
    const line = formatEvent(event, state);
    if (line) io.stderr.write(`${line}\n`);
  });
  const approvals = new ApprovalBroker();
  const detach = attachCliApprovals(approvals, args.approve, { input: io.stdin, output: io.stderr });
  const run = new AgentRun({ task: args.task, workspaceRoot: loaded.workspace, config: loaded.config, apiKey: io.env.OPENAI_API_KEY || undefined, log, approvals, trusted: true, holdDeniedGates: false });
  const onSignal = () => run.cancel('interrupted (SIGINT)');
  process.once('SIGINT', onSignal);
  try {
    const result = await run.start();
    if (result.answer) io.stdout.write(`${result.answer}\n`);
    return result.status === 'completed' ? 0 : 1;
  } finally {
    process.off('SIGINT', onSignal);
    detach();
    await trace?.close();
    if (trace?.error()) io.stderr.write(`cortex: could not write the trace ${args.trace}: ${trace.error()!.message}\n`);
  }
}

if (require.main === module) {
  main(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (error) => {
      process.stderr.write(`cortex: unexpected error: ${(error as Error).message}\n`);
      process.exit(1);
    },
  );
}
