import { cliRunDependencies } from './cliRunDependencies';
import { usageFailure } from './usageFailure';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { openResume, prepareResumedRun, type OpenedResume } from '../core/agent/resumeRun';
import { UsageError, type CliArgs } from './cliArgs';
import { loadCliConfig } from './cliConfig';
import { cliMcpIo, loadCliMcpServers } from './cliMcp';
import { driveCliRun, type CliIo } from './cliSession';
import { warnIfTraceInsideWorkspace } from './traceInsideWorkspace';
import { EXIT } from './exitCode';

// `cortex resume --trace FILE`: continues an interrupted run from its trace (docs/design.md, “Resuming a run”),
// with the settings of now (--config and flags), appending to the same trace.

export const RESUME_USAGE = `Usage: cortex resume --trace FILE [--workspace DIR] [--config FILE] [--base-url URL]
                     [--model NAME] [--fallback-model NAME]... [--memory FILE] [--mcp-config FILE]
                     [--approve all|none] [--checkpoints DIR] [--allow-protected PATH]...
                     [--require-verified]

Continues an interrupted run (one whose trace has no run_finished line) from its trace:
completed steps are kept and not run again, steps that were running start again from the
beginning, and the trace continues in the same file. The settings used are the current ones
(--config and the flags), not those the run started with. The run continues in --workspace DIR
(default: the current folder), which must be the folder the run worked in: a trace recorded for
another folder is refused. A run that finished cannot be resumed. Only one process drives a
run: FILE.lock names the process that does. What the steps that start again had changed is
put back first from the run's checkpoints (--checkpoints DIR, by default FILE.checkpoints, as for
cortex run); a protected path (cortex.policy.protectedPaths) is put back only when named with
--allow-protected PATH, and nothing inside .git nor the trace, its lock or its checkpoint folder
ever is. Exit codes are those of cortex run.`;

interface ResumeArgs {
  trace?: string;
  workspace?: string;
  configFile?: string;
  baseUrl?: string;
  model?: string;
  fallbackModels: string[];
  headers?: string[];
  query?: string[];
  mcpConfig?: string;
  memory?: string;
  checkpoints?: string;
  approve?: 'all' | 'none';
  allowProtected: string[];
  requireVerified?: boolean;
  help: boolean;
}

const OPTIONS = {
  trace: { type: 'string' },
  workspace: { type: 'string' },
  config: { type: 'string' },
  'base-url': { type: 'string' },
  model: { type: 'string' },
  'fallback-model': { type: 'string', multiple: true },
  header: { type: 'string', multiple: true },
  query: { type: 'string', multiple: true },
  'mcp-config': { type: 'string' },
  memory: { type: 'string' },
  checkpoints: { type: 'string' },
  approve: { type: 'string' },
  'allow-protected': { type: 'string', multiple: true },
  'require-verified': { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

/** True when the command (the first word that is not an option) is `resume`. */
export function isResumeCommand(argv: readonly string[]): boolean {
  const { positionals } = parseArgs({ args: [...argv], allowPositionals: true, strict: false, options: OPTIONS });
  return positionals[0] === 'resume';
}

/** Parses `cortex resume …` (the command word included); every mistake is a UsageError in Cortex's words. */
export function parseResumeArgs(argv: readonly string[]): ResumeArgs {
  const { values, positionals, tokens } = parseArgs({ args: [...argv], allowPositionals: true, strict: false, tokens: true, options: OPTIONS });
  for (const token of tokens) {
    if (token.kind !== 'option') continue;
    const spec = (OPTIONS as Record<string, { type: 'string' | 'boolean' }>)[token.name];
    if (!spec) throw new UsageError(`unknown option ${token.rawName} for cortex resume`);
    if (spec.type === 'boolean' && token.value !== undefined) throw new UsageError(`${token.rawName} takes no value`);
    if (spec.type === 'string') {
      if (token.value === undefined || token.value === '') throw new UsageError(`${token.rawName} needs a value`);
      if (!token.inlineValue && token.value.startsWith('-'))
        throw new UsageError(`${token.rawName} needs a value, not the option ${token.value} (write ${token.rawName}=${token.value} if you mean it)`);
    }
  }
  const v = values as Record<string, string | string[] | boolean | undefined>;
  if (v.help) return { fallbackModels: [], allowProtected: [], help: true };
  if (positionals[0] !== 'resume') throw new UsageError('expected the command "resume"');
  if (positionals.length > 1) throw new UsageError(`cortex resume takes no task ("${positionals[1]}"): the task is the run's own`);
  if (v.trace === undefined) throw new UsageError('missing --trace FILE: the trace of the run to resume');
  if (v.approve !== undefined && v.approve !== 'all' && v.approve !== 'none')
    throw new UsageError(`--approve must be "all" or "none", not "${String(v.approve)}"`);
  return {
    trace: v.trace as string,
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
    allowProtected: ((v['allow-protected'] as string[] | undefined) ?? []).map((path) => path.replace(/^(\.\/)+/, '')),
    ...(v['require-verified'] ? { requireVerified: true } : {}),
    help: false,
  };
}

/** `cortex resume …`: returns the process exit code (those of `cortex run`). */
export async function resumeMain(argv: string[], io: CliIo & { cwd: string; env: NodeJS.ProcessEnv }): Promise<number> {
  let args: ResumeArgs;
  let opened: OpenedResume;
  let loaded;
  let mcpServers;
  try {
    args = parseResumeArgs(argv);
    if (args.help) {
      io.stdout.write(`${RESUME_USAGE}\n`);
      return EXIT.completed;
    }
    const trace = resolve(io.cwd, args.trace!);
    // The folder the person gives (else the current one), never the one the trace names.
    const workspace = args.workspace ?? '.';
    const cliArgs: CliArgs = { ...args, command: 'run', task: '', workspace, trace };
    loaded = loadCliConfig(cliArgs, io.cwd, io.env);
    mcpServers = await loadCliMcpServers(args.mcpConfig, loaded.config, loaded.workspace, io.cwd, cliMcpIo(io));
    opened = openResume({ traceFile: trace, workspaceRoot: loaded.workspace });
  } catch (error) {
    return usageFailure(io.stderr, error, 'cortex resume');
  }
  warnIfTraceInsideWorkspace(io.stderr, loaded.workspace, opened.traceFile, loaded.checkpoints);
  const shared = cliRunDependencies(loaded, io.env, mcpServers);
  return driveCliRun({
    io,
    approve: args.approve,
    trace: { file: opened.traceFile, append: true },
    lock: opened.lock,
    history: opened.events,
    // The resumed part's changes go to the same checkpoint folder as the run's (docs/design.md, “Checkpoints and revert”).
    makeRun: (log, approvals) =>
      prepareResumedRun(opened, log, {
        ...shared,
        approvals,
        checkpointsDir: loaded.checkpoints,
        checkpointsExclude: [opened.traceFile, `${opened.traceFile}.lock`],
        confirmedRestores: args.allowProtected,
      }),
  });
}
