import { AgentRun } from '../core/agent/agentRun';
import { clientOptionsFromSettings } from '../core/llm/clientSettings';
import { createOpenAiClient } from '../core/llm/openAiClient';
import { defaultCliMemoryFile } from '../core/memory/memoryPath';
import { EventLog } from '../core/plan/eventLog';
import { ApprovalBroker } from '../core/policy/approvalBroker';
import { terminalSafe } from '../core/text/terminalSafe';
import { formatEvent } from '../core/trace/eventText';
import { createTraceWriter } from '../core/trace/traceWriter';
import { parseCliArgs, USAGE, UsageError } from './cliArgs';
import { attachCliApprovals } from './cliApprovals';
import { loadCliConfig } from './cliConfig';
import { loadCliMcpServers } from './cliMcp';
import { CLI_LLM_HINTS } from './cliHints';
import { EXIT, exitCodeFor } from './exitCode';
import { describeFsError } from './fsErrorText';
import { usageSummaryLine } from './usageSummary';

/** One line on a terminal: model, tool and endpoint text in it cannot act on the terminal. */
function printLine(stream: NodeJS.WritableStream, text: string): void {
  stream.write(`${terminalSafe(text)}\n`);
}

/** `cortex run …`: the headless agent for CI. Returns the process exit code (see USAGE). */
export async function main(argv: string[], io = { stdout: process.stdout, stderr: process.stderr, stdin: process.stdin, cwd: process.cwd(), env: process.env }): Promise<number> {
  let args;
  let loaded;
  let mcpServers;
  try {
    args = parseCliArgs(argv, io.cwd);
    if (args.help) {
      io.stdout.write(`${USAGE}\n`);
      return EXIT.completed;
    }
    loaded = loadCliConfig(args, io.cwd);
    mcpServers = await loadCliMcpServers(args.mcpConfig, loaded.config, loaded.workspace, io.cwd, { input: io.stdin, output: io.stderr, env: io.env });
  } catch (error) {
    const help = error instanceof UsageError && error.pointToHelp ? '; run "cortex --help"' : '';
    printLine(io.stderr, `cortex: ${(error as Error).message}${help}`);
    return EXIT.usage;
  }
  let trace: ReturnType<typeof createTraceWriter> | undefined;
  try {
    trace = loaded.trace ? createTraceWriter(loaded.trace) : undefined;
  } catch (error) {
    printLine(io.stderr, `cortex: ${describeFsError(error, 'trace file', loaded.trace!)}`);
    return EXIT.usage;
  }
  const log = new EventLog({ onListenerError: (error) => printLine(io.stderr, `cortex: output failed: ${(error as Error).message}`) });
  if (trace) log.subscribe(trace.listener);
  log.subscribe((event, state) => {
    const line = formatEvent(event, state);
    if (line) printLine(io.stderr, line);
  });
  const approvals = new ApprovalBroker();
  const detach = attachCliApprovals(approvals, args.approve, { input: io.stdin, output: io.stderr });
  // The CLI builds the client itself so LLM errors name shell remedies (OPENAI_API_KEY, flags).
  const llm = createOpenAiClient({ ...clientOptionsFromSettings(loaded.config), apiKey: io.env.OPENAI_API_KEY || undefined, hints: CLI_LLM_HINTS });
  const memoryFile = loaded.memory ?? defaultCliMemoryFile(loaded.workspace, io.env);
  const run = new AgentRun({ task: args.task, workspaceRoot: loaded.workspace, config: loaded.config, llm, log, approvals, trusted: true, holdDeniedGates: false, memoryFile, mcpServers, processEnv: io.env });
  const onSignal = () => run.cancel('interrupted (SIGINT)');
  process.once('SIGINT', onSignal);
  try {
    const result = await run.start();
    printLine(io.stderr, usageSummaryLine(result.snapshot));
    if (result.answer) printLine(io.stdout, result.answer);
    return exitCodeFor(result, log.events);
  } finally {
    process.off('SIGINT', onSignal);
    detach();
    await trace?.close();
    if (trace?.error()) printLine(io.stderr, `cortex: ${describeFsError(trace.error(), 'trace file', loaded.trace!)}`);
  }
}

if (require.main === module) {
  main(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (error) => {
      printLine(process.stderr, `cortex: unexpected error: ${(error as Error).message}`);
      process.exit(1);
    },
  );
}
