import { parseArgs } from 'node:util';

export const USAGE = `Usage: cortex run [--workspace DIR] [--config FILE] [--base-url URL] [--model NAME]
                  [--fallback-model NAME]... [--trace FILE] [--memory FILE] [--approve all|none|plan]
                  [--mcp-config FILE] [--checkpoints DIR] [--header 'NAME: VALUE']...
                  [--query NAME=VALUE]... [--require-verified] [--no-plan-stream] "TASK"
       cortex run --plan FILE [--approve plan] [options of cortex run]
       cortex plan --out FILE [options of cortex run] "TASK"
       cortex resume --trace FILE [--workspace DIR] [--config FILE] [--approve all|none|plan] ...
       cortex retry-step --trace FILE --step ID [--new-trace FILE] [--workspace DIR] ...
       cortex diff --trace FILE [--step ID] [--checkpoints DIR] [--workspace DIR]
       cortex revert --trace FILE [--step ID]... [--force] [--undo] [--allow-protected PATH]...
                     [--checkpoints DIR] [--workspace DIR]

Runs the Cortex planning agent headless.
cortex resume continues an interrupted run from its trace, with the current settings
(--config and flags); "cortex resume --help" says more. While a run is driven, FILE.lock
(next to --trace FILE) names its process, and a second process is refused.
cortex retry-step runs a failed or blocked step of a finished run again in a new run (a new
trace), which carries the run's completed steps over without running them again.
Every file change of a run is recorded in --checkpoints DIR (by default FILE.checkpoints next to
--trace FILE), outside the workspace. cortex diff prints the run's changes, or one step's, as a
unified diff; cortex revert puts back what the run (or each --step ID and the steps after it)
changed, leaves files changed since alone and lists them (exit 1) unless --force, and --undo
undoes the last revert.
--header 'NAME: VALUE' (repeatable) adds a header to every request to the LLM endpoint, and
--query NAME=VALUE (repeatable) a query parameter (e.g. api-version), over cortex.llm.headers
and cortex.llm.query of --config; values may be \${env:NAME}. They are never printed or traced.
--approve plan asks for the plan once instead of every call (cortex.approval.mode "plan"): the
flag approves the plan, a call inside its step's scope runs without asking, and a call outside it
is drift: asked in a terminal, denied without one. cortex plan --out FILE writes the planner's plan
(steps, dependencies, scopes, checks) and runs nothing; cortex run --plan FILE runs exactly that
plan without calling the planner (review the file, then run it, e.g. in CI).
--require-verified fails a step that ends unverified (no checks declared, nothing claimed to
check) with reason no_evidence, as the setting cortex.verify.requireVerified does.
--no-plan-stream asks for the plan (and a redesign) whole before any of its steps starts
(cortex.planning.stream false), for an endpoint that cannot stream in JSON mode.
--mcp-config FILE adds the MCP servers of FILE (VS Code's mcp.json "servers" or "mcpServers");
a workspace's own .vscode/mcp.json is never read by the CLI.
--memory FILE is the workspace's memory (memory_store/search/forget); by default
$XDG_CACHE_HOME/cortex/memory/<sha256 of the workspace path>.json (~/.cache when unset).
Exit codes:
  0  every step completed
  1  the run finished with failed or blocked steps, or was cancelled
  2  usage or configuration error (bad flag, missing file, invalid setting)
  3  the LLM endpoint could not be used before any step ran: unreachable, API key
     rejected (401/403), account out of quota, or model not found with no fallback
     that works
The API key comes from OPENAI_API_KEY (none is needed for a local endpoint).
Text from the model and from tools is printed with terminal control characters shown as
escapes (\\x1b, \\r, \\u202e), so it cannot rewrite the screen.`;

/** A mistake on the command line or in the configuration: exit code 2, one line. */
export class UsageError extends Error {
  /** @param pointToHelp whether `cortex --help` would help (true for command-line mistakes). */
  constructor(
    message: string,
    readonly pointToHelp = true,
  ) {
    super(message);
    this.name = 'UsageError';
  }
}

export interface CliArgs {
  task: string;
  workspace: string;
  configFile?: string;
  baseUrl?: string;
  model?: string;
  fallbackModels: string[];
  /** `--header 'Name: value'`, in order (later wins). */
  headers?: string[];
  /** `--query name=value`, in order (later wins). */
  query?: string[];
  trace?: string;
  /** An MCP configuration file (`--mcp-config`). */
  mcpConfig?: string;
  /** The workspace memory file; undefined = the default under the user's cache folder. */
  memory?: string;
  approve?: 'all' | 'none' | 'plan';
  /** `cortex plan`: write the plan to `out` and run nothing; `run` (with `planFile`: that plan, without the planner). */
  command: 'run' | 'plan';
  /** `cortex run --plan FILE`: the plan file to run. */
  planFile?: string;
  /** `cortex plan --out FILE`. */
  out?: string;
  /** The run's checkpoint folder (`--checkpoints`); undefined = next to the trace. */
  checkpoints?: string;
  /** `--require-verified`: an unverified step fails (cortex.verify.requireVerified). */
  requireVerified?: boolean;
  /** `--no-plan-stream`: the plan is read whole before any step starts (cortex.planning.stream false). */
  noPlanStream?: boolean;
  help: boolean;
}

/** The options every command that drives a run takes (cortex run, cortex resume, cortex retry-step). */
export const RUN_OPTIONS = {
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
  'require-verified': { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

const OPTIONS = {
  ...RUN_OPTIONS,
  plan: { type: 'string' },
  out: { type: 'string' },
  'no-plan-stream': { type: 'boolean' },
} as const;

type Values = {
  [K in keyof typeof OPTIONS]?: (typeof OPTIONS)[K] extends { multiple: true } ? string[] : (typeof OPTIONS)[K] extends { type: 'string' } ? string : boolean;
};

/** Parses `cortex run …`; every mistake is a UsageError with one clear line in Cortex's words. */
export function parseCliArgs(argv: string[], cwd: string): CliArgs {
  // Lenient parsing, then our own checks on the tokens: Node's strict-mode messages talk about
  // its API ("place it at the end of the command after '--'"), not about cortex.
  const { values, positionals, tokens } = parseArgs({ args: argv, allowPositionals: true, strict: false, tokens: true, options: OPTIONS });
  checkOptionTokens(tokens, OPTIONS);
  const v = values as Values;
  if (v.help) return { command: 'run', task: '', workspace: cwd, fallbackModels: [], help: true };
  const [command, ...rest] = positionals;
  if (command !== 'run' && command !== 'plan')
    throw new UsageError(
      command ? `unknown command "${command}" (expected "run", "plan", "resume", "retry-step", "diff" or "revert")` : 'missing command: cortex run "TASK"',
    );
  if (command === 'plan' && v.plan !== undefined) throw new UsageError('--plan is an option of cortex run (cortex plan writes a plan with --out FILE)');
  if (command === 'plan' && v.out === undefined) throw new UsageError('missing --out FILE: where cortex plan writes the plan');
  if (command === 'run' && v.out !== undefined) throw new UsageError('--out is an option of cortex plan');
  if (command === 'run' && v.plan !== undefined) {
    if (rest.length > 0) throw new UsageError('cortex run --plan FILE takes no task: the plan file holds it');
  } else if (rest.length !== 1 || !rest[0].trim())
    throw new UsageError(
      rest.length > 1 ? 'give the task as one quoted argument' : `missing task: cortex ${command}${command === 'plan' ? ' --out FILE' : ''} "TASK"`,
    );
  if (v.approve !== undefined && v.approve !== 'all' && v.approve !== 'none' && v.approve !== 'plan')
    throw new UsageError(`--approve must be "all", "none" or "plan", not "${v.approve}"`);
  if (command === 'plan' && v.approve !== undefined) throw new UsageError('cortex plan runs nothing, so it takes no --approve');
  return {
    command,
    ...(v.plan !== undefined ? { planFile: v.plan } : {}),
    ...(v.out !== undefined ? { out: v.out } : {}),
    task: rest[0]?.trim() ?? '',
    workspace: v.workspace ?? cwd,
    configFile: v.config,
    baseUrl: v['base-url'],
    model: v.model,
    fallbackModels: v['fallback-model'] ?? [],
    ...(v.header ? { headers: v.header } : {}),
    ...(v.query ? { query: v.query } : {}),
    trace: v.trace,
    ...(v['mcp-config'] !== undefined ? { mcpConfig: v['mcp-config'] } : {}),
    ...(v.memory !== undefined ? { memory: v.memory } : {}),
    ...(v.checkpoints !== undefined ? { checkpoints: v.checkpoints } : {}),
    approve: v.approve,
    ...(v['require-verified'] ? { requireVerified: true } : {}),
    ...(v['no-plan-stream'] ? { noPlanStream: true } : {}),
    help: false,
  };
}

type OptionTokens = ReturnType<typeof parseArgs>['tokens'];

/** Our own checks on leniently parsed tokens, with messages in Cortex's words. */
export function checkOptionTokens(tokens: OptionTokens, options: Record<string, { type: 'string' | 'boolean' }>, command?: string): void {
  for (const token of tokens ?? []) {
    if (token.kind !== 'option') continue;
    const spec = options[token.name];
    if (!spec) throw new UsageError(`unknown option ${token.rawName}${command ? ` for cortex ${command}` : ''}`);
    if (spec.type === 'boolean' && token.value !== undefined) throw new UsageError(`${token.rawName} takes no value`);
    if (spec.type === 'string') {
      if (token.value === undefined || token.value === '') throw new UsageError(`${token.rawName} needs a value`);
      if (!token.inlineValue && token.value.startsWith('-'))
        throw new UsageError(`${token.rawName} needs a value, not the option ${token.value} (write ${token.rawName}=${token.value} if you mean it)`);
    }
  }
}

/** `cortex diff` and `cortex revert`: reviewing a recorded run (docs/design.md, “Checkpoints and revert”). */
export type ReviewCommand = 'diff' | 'revert';

export interface ReviewArgs {
  command: ReviewCommand;
  trace: string;
  /** Steps to show (diff: at most one) or to revert (each with the steps after it). */
  steps: string[];
  checkpoints?: string;
  workspace?: string;
  force: boolean;
  undo: boolean;
  /** Protected paths the person allows a revert to write (--allow-protected, repeatable). */
  allowProtected: string[];
  help: boolean;
}

const REVIEW_OPTIONS = {
  'allow-protected': { type: 'string', multiple: true },
  trace: { type: 'string' },
  step: { type: 'string', multiple: true },
  checkpoints: { type: 'string' },
  workspace: { type: 'string' },
  force: { type: 'boolean' },
  undo: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

/** `diff` or `revert` when that is the command (the first word that is not an option). */
export function reviewCommandOf(argv: readonly string[]): ReviewCommand | undefined {
  const { positionals } = parseArgs({ args: [...argv], allowPositionals: true, strict: false, options: REVIEW_OPTIONS });
  return positionals[0] === 'diff' || positionals[0] === 'revert' ? positionals[0] : undefined;
}

/** Parses `cortex diff …` or `cortex revert …` (the command word included); mistakes are UsageErrors. */
export function parseReviewArgs(argv: readonly string[]): ReviewArgs {
  const { values, positionals, tokens } = parseArgs({ args: [...argv], allowPositionals: true, strict: false, tokens: true, options: REVIEW_OPTIONS });
  const command = positionals[0];
  if (command !== 'diff' && command !== 'revert') throw new UsageError('expected the command "diff" or "revert"');
  checkOptionTokens(tokens, REVIEW_OPTIONS, command);
  const v = values as {
    trace?: string;
    step?: string[];
    checkpoints?: string;
    workspace?: string;
    force?: boolean;
    undo?: boolean;
    help?: boolean;
    'allow-protected'?: string[];
  };
  const args: ReviewArgs = {
    command,
    trace: v.trace ?? '',
    steps: v.step ?? [],
    force: v.force === true,
    undo: v.undo === true,
    allowProtected: v['allow-protected'] ?? [],
    help: v.help === true,
  };
  if (v.checkpoints !== undefined) args.checkpoints = v.checkpoints;
  if (v.workspace !== undefined) args.workspace = v.workspace;
  if (args.help) return args;
  if (positionals.length > 1) throw new UsageError(`cortex ${command} takes no other words ("${positionals[1]}")`);
  if (!v.trace) throw new UsageError(`missing --trace FILE: the trace of the run to ${command === 'diff' ? 'show' : 'revert'}`);
  if (command === 'diff' && (args.force || args.undo || args.allowProtected.length > 0))
    throw new UsageError(`${args.force ? '--force' : args.undo ? '--undo' : '--allow-protected'} is an option of cortex revert, not of cortex diff`);
  if (command === 'diff' && args.steps.length > 1) throw new UsageError('cortex diff shows one step at a time: give --step once');
  if (args.undo && args.steps.length > 0) throw new UsageError('--undo undoes the last revert as a whole: give no --step with it');
  return args;
}
