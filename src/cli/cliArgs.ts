import { parseArgs } from 'node:util';

export const USAGE = `Usage: cortex run [--workspace DIR] [--config FILE] [--base-url URL] [--model NAME]
                  [--fallback-model NAME]... [--trace FILE] [--memory FILE] [--approve all|none]
                  [--mcp-config FILE] "TASK"
       cortex resume --trace FILE [--workspace DIR] [--config FILE] [--approve all|none] ...

Runs the Cortex planning agent headless.
cortex resume continues an interrupted run from its trace, with the current settings
(--config and flags); "cortex resume --help" says more. While a run is driven, FILE.lock
(next to --trace FILE) names its process, and a second process is refused.
--mcp-config FILE adds the MCP servers of FILE (VS Code's mcp.json "servers" or "mcpServers");
a workspace's own .vscode/mcp.json is never read by the CLI.
--memory FILE is the workspace's memory (memory_store/search/forget); by default
$XDG_CACHE_HOME/cortex/memory/<sha256 of the workspace path>.json (~/.cache when unset).
Exit codes:
  0  every step completed
  1  the run finished with failed or blocked steps, or was cancelled
  2  usage or configuration error (bad flag, missing file, invalid setting)
  3  the LLM endpoint could not be used before any step ran: unreachable, API key
     rejected (401/403), or model not found with no fallback that works
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
  trace?: string;
  /** An MCP configuration file (`--mcp-config`). */
  mcpConfig?: string;
  /** The workspace memory file; undefined = the default under the user's cache folder. */
  memory?: string;
  approve?: 'all' | 'none';
  help: boolean;
}

const OPTIONS = {
  workspace: { type: 'string' },
  config: { type: 'string' },
  'base-url': { type: 'string' },
  model: { type: 'string' },
  'fallback-model': { type: 'string', multiple: true },
  trace: { type: 'string' },
  'mcp-config': { type: 'string' },
  memory: { type: 'string' },
  approve: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

type Values = { [K in keyof typeof OPTIONS]?: (typeof OPTIONS)[K] extends { multiple: true } ? string[] : (typeof OPTIONS)[K] extends { type: 'string' } ? string : boolean };

/** Parses `cortex run …`; every mistake is a UsageError with one clear line in Cortex's words. */
export function parseCliArgs(argv: string[], cwd: string): CliArgs {
  // Lenient parsing, then our own checks on the tokens: Node's strict-mode messages talk about
  // its API ("place it at the end of the command after '--'"), not about cortex.
  const { values, positionals, tokens } = parseArgs({ args: argv, allowPositionals: true, strict: false, tokens: true, options: OPTIONS });
  for (const token of tokens) {
    if (token.kind !== 'option') continue;
    const spec = (OPTIONS as Record<string, { type: 'string' | 'boolean' }>)[token.name];
    if (!spec) throw new UsageError(`unknown option ${token.rawName}`);
    if (spec.type === 'boolean' && token.value !== undefined) throw new UsageError(`${token.rawName} takes no value`);
    if (spec.type === 'string') {
      if (token.value === undefined || token.value === '') throw new UsageError(`${token.rawName} needs a value`);
      if (!token.inlineValue && token.value.startsWith('-')) throw new UsageError(`${token.rawName} needs a value, not the option ${token.value} (write ${token.rawName}=${token.value} if you mean it)`);
    }
  }
  const v = values as Values;
  if (v.help) return { task: '', workspace: cwd, fallbackModels: [], help: true };
  const [command, ...rest] = positionals;
  if (command !== 'run') throw new UsageError(command ? `unknown command "${command}" (expected "run")` : 'missing command: cortex run "TASK"');
  if (rest.length !== 1 || !rest[0].trim()) throw new UsageError(rest.length > 1 ? 'give the task as one quoted argument' : 'missing task: cortex run "TASK"');
  if (v.approve !== undefined && v.approve !== 'all' && v.approve !== 'none') throw new UsageError(`--approve must be "all" or "none", not "${v.approve}"`);
  return {
    task: rest[0].trim(),
    workspace: v.workspace ?? cwd,
    configFile: v.config,
    baseUrl: v['base-url'],
    model: v.model,
    fallbackModels: v['fallback-model'] ?? [],
    trace: v.trace,
    ...(v['mcp-config'] !== undefined ? { mcpConfig: v['mcp-config'] } : {}),
    ...(v.memory !== undefined ? { memory: v.memory } : {}),
    approve: v.approve,
    help: false,
  };
}
