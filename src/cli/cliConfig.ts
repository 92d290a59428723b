import { readFileSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { parseConfig, type FlatConfig } from '../core/config/configSchema';
import { defaultCheckpointsDir } from '../core/checkpoints/runReview';
import { makeFoldersSync } from '../core/files/makeFolders';
import { UsageError, type CliArgs } from './cliArgs';
import { describeFsError } from './fsErrorText';
import { requestExtrasFromSettings } from '../core/llm/requestExtras';
import { isRecord } from '../core/text/isRecord';

/**
 * Settings for a CLI run: the --config JSON file (same keys as VS Code), then flags on top. Also
 * checks the workspace and the trace file's directory, and that every `${env:NAME}` of the request
 * headers and query is set in `env`, so a typo is a clear line before any request.
 */
export function loadCliConfigSync(
  args: CliArgs,
  cwd: string,
  env: NodeJS.ProcessEnv = {},
): { config: FlatConfig; workspace: string; trace?: string; memory?: string; checkpoints?: string } {
  let fileValues: Record<string, unknown> = {};
  if (args.configFile) {
    const file = resolve(cwd, args.configFile);
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch (error) {
      throw new UsageError(describeFsError(error, 'config file', file), false);
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(text) as unknown;
    } catch (error) {
      throw new UsageError(`config file ${file} is not valid JSON: ${withoutFinalPeriod((error as Error).message)}`, false);
    }
    if (!isRecord(parsed)) throw new UsageError(`config file ${file} must hold a JSON object of "cortex.*" settings`, false);
    fileValues = parsed;
  }
  const overrides: Record<string, unknown> = {};
  if (args.baseUrl) overrides['cortex.llm.baseUrl'] = args.baseUrl;
  if (args.model) overrides['cortex.llm.model'] = args.model;
  if (args.fallbackModels.length) overrides['cortex.llm.fallbackModels'] = args.fallbackModels;
  if (args.headers?.length) overrides['cortex.llm.headers'] = withFlagHeaders(fileValues['cortex.llm.headers'], args.headers);
  if (args.query?.length) overrides['cortex.llm.query'] = withFlagQuery(fileValues['cortex.llm.query'], args.query);
  if (args.requireVerified) overrides['cortex.verify.requireVerified'] = true;
  if (args.noPlanStream) overrides['cortex.planning.stream'] = false;
  // --approve plan: the plan is approved once and scopes decide what asks (docs/design.md, “Step scopes and plan approval”).
  if (args.approve === 'plan') overrides['cortex.approval.mode'] = 'plan';
  let config: FlatConfig;
  try {
    config = parseConfig({ ...fileValues, ...overrides });
    requestExtrasFromSettings(config, env);
  } catch (error) {
    throw new UsageError(withoutFinalPeriod((error as Error).message), false);
  }
  // VS Code's language models exist only inside VS Code (docs/design.md, “Models from VS Code”).
  if (config['cortex.llm.provider'] === 'vscode-lm')
    throw new UsageError(
      'cortex.llm.provider "vscode-lm" uses the language models of VS Code, which the cortex command has no access to; use "openai-compatible" with cortex.llm.baseUrl',
      false,
    );
  const workspace = resolve(cwd, args.workspace);
  let isDir: boolean;
  try {
    isDir = statSync(workspace).isDirectory();
  } catch (error) {
    throw new UsageError(describeFsError(error, 'workspace', workspace), false);
  }
  if (!isDir) throw new UsageError(`workspace ${workspace} is not a directory`, false);
  const trace = args.trace ? resolve(cwd, args.trace) : undefined;
  if (trace) checkTraceDirectorySync(trace);
  const memory = args.memory ? resolve(cwd, args.memory) : undefined;
  if (memory) checkMemoryFileSync(memory);
  // A run's changes are recorded next to its trace unless --checkpoints says where (docs/design.md, “Checkpoints and revert”).
  const checkpoints = args.checkpoints ? resolve(cwd, args.checkpoints) : trace ? defaultCheckpointsDir(trace) : undefined;
  if (checkpoints) checkCheckpointsDirSync(checkpoints);
  return { config, workspace, trace, memory, checkpoints };
}

/** The --config file's headers with each `--header 'Name: value'` on top (a name given again, in any case, is replaced). */
function withFlagHeaders(fromFile: unknown, flags: string[]): unknown {
  if (fromFile !== undefined && !isRecord(fromFile)) return fromFile; // parseConfig names the mistake
  const headers: Record<string, unknown> = { ...(fromFile ?? {}) };
  for (const flag of flags) {
    const colon = flag.indexOf(':');
    // The flag is not echoed: its value may be a secret.
    if (colon <= 0) throw new UsageError('--header needs "NAME: VALUE" (a header name, a colon, then its value)');
    const name = flag.slice(0, colon).trim();
    for (const existing of Object.keys(headers)) if (existing.toLowerCase() === name.toLowerCase()) delete headers[existing];
    headers[name] = flag.slice(colon + 1).trim();
  }
  return headers;
}

/** The --config file's query parameters with each `--query name=value` on top. */
function withFlagQuery(fromFile: unknown, flags: string[]): unknown {
  if (fromFile !== undefined && !isRecord(fromFile)) return fromFile;
  const query: Record<string, unknown> = { ...(fromFile ?? {}) };
  for (const flag of flags) {
    const equals = flag.indexOf('=');
    if (equals <= 0) throw new UsageError('--query needs "NAME=VALUE" (a parameter name, =, then its value)');
    query[flag.slice(0, equals)] = flag.slice(equals + 1);
  }
  return query;
}

/** The checkpoint folder must be a folder (or not exist yet) in a folder that can exist. */
function checkCheckpointsDirSync(dir: string): void {
  try {
    if (!statSync(dir).isDirectory()) throw new UsageError(`checkpoint folder ${dir} is a file, not a directory`, false);
    return;
  } catch (error) {
    if (error instanceof UsageError) throw error;
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw new UsageError(describeFsError(error, 'checkpoint folder', dir), false);
  }
  try {
    checkTraceDirectorySync(dir);
  } catch (error) {
    throw new UsageError((error as Error).message.replace(/^trace file/, 'checkpoint folder').replace('trace directory', 'checkpoint directory'), false);
  }
}

/**
 * The trace's directory is created when missing (here, so a folder that cannot be made is a clear
 * line before any request), but a path through a file can never work.
 */
function checkTraceDirectorySync(trace: string, create = true): void {
  let dir = dirname(trace);
  for (;;) {
    try {
      if (!statSync(dir).isDirectory()) throw new UsageError(`trace file ${trace} cannot be written: ${dir} is a file, not a directory`, false);
      break;
    } catch (error) {
      if (error instanceof UsageError) throw error;
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT' || dirname(dir) === dir)
        throw new UsageError(describeFsError(error, 'trace directory', dir), false);
      dir = dirname(dir);
    }
  }
  if (!create) return;
  try {
    makeFoldersSync(dirname(trace));
  } catch (error) {
    const reason = (error as Error).message.replace(/^[A-Z]+: /, '').replace(/, \w+ '.*'$/, '');
    throw new UsageError(`trace file ${trace} cannot be written: the folder ${dirname(trace)} cannot be created (${reason})`, false);
  }
}

/** A memory file given on the command line must be a file (or not exist yet), in a folder that can exist. */
function checkMemoryFileSync(memory: string): void {
  try {
    if (statSync(memory).isDirectory()) throw new UsageError(`memory file ${memory} is a directory`, false);
    return;
  } catch (error) {
    if (error instanceof UsageError) throw error;
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw new UsageError(describeFsError(error, 'memory file', memory), false);
  }
  try {
    // Its folder is made when a memory is first stored.
    checkTraceDirectorySync(memory, false);
  } catch (error) {
    throw new UsageError((error as Error).message.replace(/^trace file/, 'memory file').replace('trace directory', 'memory directory'), false);
  }
}

/** Messages end up inside our own sentences, which bring their own punctuation. */
function withoutFinalPeriod(message: string): string {
  return message.trim().replace(/\.+$/, '');
}
