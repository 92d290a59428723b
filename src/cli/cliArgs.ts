import { parseArgs } from 'node:util';

export const USAGE = `Usage: cortex run [--workspace DIR] [--config FILE] [--base-url URL] [--model NAME]
                  [--fallback-model NAME]... [--trace FILE] [--approve all|none] "TASK"

Runs the Cortex planning agent headless. Exit codes: 0 every step completed; 1 the run finished
with failed or blocked steps, or was cancelled; 2 usage or configuration error.
The API key comes from OPENAI_API_KEY (none is needed for a local endpoint).`;

export class UsageError extends Error {
  constructor(message: string) {
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
  approve?: 'all' | 'none';
  help: boolean;
}

/** Parses `cortex run …`; every mistake is a UsageError with one clear line. */
export function parseCliArgs(argv: string[], cwd: string): CliArgs {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      strict: true,
      options: {
        workspace: { type: 'string' },
        config: { type: 'string' },
        'base-url': { type: 'string' },
        model: { type: 'string' },
        'fallback-model': { type: 'string', multiple: true },
        trace: { type: 'string' },
        approve: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (error) {
    throw new UsageError((error as Error).message.split('\n')[0]);
  }
  const { values, positionals } = parsed;
  if (values.help) return { task: '', workspace: cwd, fallbackModels: [], help: true };
  const [command, ...rest] = positionals;
  if (command !== 'run') throw new UsageError(command ? `unknown command "${command}" (expected "run")` : 'missing command: cortex run "TASK"');
  if (rest.length !== 1 || !rest[0].trim()) throw new UsageError(rest.length > 1 ? 'give the task as one quoted argument' : 'missing task: cortex run "TASK"');
  if (values.approve !== undefined && values.approve !== 'all' && values.approve !== 'none') throw new UsageError(`--approve must be "all" or "none", not "${values.approve}"`);
  return {
    task: rest[0].trim(),
    workspace: values.workspace ?? cwd,
    configFile: values.config,
    baseUrl: values['base-url'],
    model: values.model,
    fallbackModels: values['fallback-model'] ?? [],
    trace: values.trace,
    approve: values.approve as CliArgs['approve'],
    help: false,
  };
}
