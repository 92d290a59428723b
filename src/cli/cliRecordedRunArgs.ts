import { parseArgs } from 'node:util';
import { checkOptionTokens, RUN_OPTIONS, UsageError, type CliArgs } from './cliArgs';

// `cortex resume` and `cortex retry-step` both start from a recorded run's trace and take the same
// run options as `cortex run` (settings, endpoint, MCP, memory, approvals, checkpoints); each adds
// a few of its own. One parser, so the two commands cannot drift apart.

type OptionSpec = { type: 'string' | 'boolean'; multiple?: boolean; short?: string };

/** The run options as `cortex run` has them; the trace and the folder may be left to the command. */
export interface RecordedRunArgs extends Pick<
  CliArgs,
  | 'trace'
  | 'configFile'
  | 'baseUrl'
  | 'model'
  | 'fallbackModels'
  | 'headers'
  | 'query'
  | 'mcpConfig'
  | 'memory'
  | 'checkpoints'
  | 'approve'
  | 'requireVerified'
  | 'help'
> {
  workspace?: string;
}

type Values = Record<string, string | string[] | boolean | undefined>;

/** True when the command (the first word that is not an option) is `command`. */
export function isRecordedRunCommand(argv: readonly string[], command: string, extra: Record<string, OptionSpec>): boolean {
  const { positionals } = parseArgs({ args: [...argv], allowPositionals: true, strict: false, options: { ...RUN_OPTIONS, ...extra } });
  return positionals[0] === command;
}

/**
 * Parses `cortex <command> …` (the command word included) with the shared options and `extra`;
 * every mistake is a UsageError in Cortex's words. Returns the shared fields and the raw values of
 * the command's own options, or `help` alone.
 */
export function parseRecordedRunArgs(argv: readonly string[], command: string, extra: Record<string, OptionSpec>): { args: RecordedRunArgs; values: Values } {
  const options = { ...RUN_OPTIONS, ...extra };
  const { values, positionals, tokens } = parseArgs({ args: [...argv], allowPositionals: true, strict: false, tokens: true, options });
  checkOptionTokens(tokens, options, command);
  const v = values as Values;
  if (v.help) return { args: { fallbackModels: [], help: true }, values: v };
  if (positionals[0] !== command) throw new UsageError(`expected the command "${command}"`);
  if (positionals.length > 1) throw new UsageError(`cortex ${command} takes no task ("${positionals[1]}"): the task is the run's own`);
  if (v.approve !== undefined && v.approve !== 'all' && v.approve !== 'none' && v.approve !== 'plan')
    throw new UsageError(`--approve must be "all", "none" or "plan", not "${String(v.approve)}"`);
  const args: RecordedRunArgs = {
    trace: v.trace as string | undefined,
    workspace: v.workspace as string | undefined,
    configFile: v.config as string | undefined,
    baseUrl: v['base-url'] as string | undefined,
    model: v.model as string | undefined,
    fallbackModels: (v['fallback-model'] as string[] | undefined) ?? [],
    ...(v.header ? { headers: v.header as string[] } : {}),
    ...(v.query ? { query: v.query as string[] } : {}),
    mcpConfig: v['mcp-config'] as string | undefined,
    memory: v.memory as string | undefined,
    checkpoints: v.checkpoints as string | undefined,
    approve: v.approve,
    ...(v['require-verified'] ? { requireVerified: true } : {}),
    help: false,
  };
  return { args, values: v };
}
