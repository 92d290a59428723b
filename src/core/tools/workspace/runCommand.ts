import { realpath, stat } from 'node:fs/promises';
import { z } from 'zod';
import { judgeDefaultSafe } from '../../policy/defaultCommandRules';
import { formatWords, parseLiteralCommand } from '../../policy/literalCommand';
import { diskProblem } from '../../policy/diskChecks';
import { compileProtectedPaths, DEFAULT_PROTECTED_PATHS, type ProtectedPathMatcher } from '../../files/protectedPaths';
import { bubblewrapArgs, existingInside } from '../../sandbox/bubblewrap';
import { commandEnvironment } from '../../sandbox/commandEnvironment';
import { existingHiddenPaths, homeFolders } from '../../sandbox/hiddenPaths';
import { DEFAULT_EXECUTION_SETTINGS, type CommandExecutionSettings } from '../../sandbox/executionSettings';
import { CONFIG_LISTING_ARGS, guardedGitArgs, guardedGitEnv, inertConfigProblem } from '../../sandbox/gitGuard';
import { runProcess, type CommandResult } from '../../sandbox/processRunner';
import { findProgram } from '../../sandbox/programLookup';
import { chooseSandbox, type SandboxChoice } from '../../sandbox/sandboxChoice';
import type { ToolContext, ToolDefinition } from '../toolTypes';
import { CommandExitError, ToolError } from '../toolTypes';
import { resolveInWorkspace } from '../../files/workspaceJail';
import { withFsErrors } from '../../files/fsErrors';

// run_command. A command made of literal words (see policy/literalCommand.ts) runs from those
// words without any shell, so what runs is exactly what the policy judged; anything else runs
// through `/bin/sh -c` (the policy only lets that happen after a person approved the text). Every
// command gets a scrubbed environment and, where the platform has one, an OS sandbox. A command
// the default rules would auto-approve is checked again right before it runs, against the disk:
// its arguments must really stay inside the workspace (symbolic links followed) and not name a
// protected file, a recursive search must not cross one, its program must come from outside the
// workspace, and git runs guarded (sandbox/gitGuard.ts).

export { HeadTailCapture } from '../../sandbox/processRunner';

/** How long the git configuration check may take. */
const GIT_CONFIG_CHECK_MS = 10_000;

/** Shell builtins and keywords: they have no program of their own, so they cannot run without a shell. */
const SHELL_ONLY = new Set([
  'cd',
  'export',
  'unset',
  'set',
  'source',
  '.',
  'alias',
  'unalias',
  'exit',
  'return',
  'shift',
  'ulimit',
  'umask',
  'readonly',
  'declare',
  'local',
  'typeset',
  'eval',
  'exec',
  'trap',
  'wait',
  'jobs',
  'fg',
  'bg',
  'builtin',
  'hash',
  'let',
  'shopt',
  'pushd',
  'popd',
  'dirs',
  'history',
  'read',
  'type',
  'times',
  'getopts',
  '[[',
  'function',
  'if',
  'for',
  'while',
  'until',
  'case',
  'select',
  'coproc',
  '{',
  '}',
]);

export const RunCommandArgsSchema = z.strictObject({
  command: z
    .string()
    .min(1)
    .describe(
      "Command line. Plain words (quotes allowed, no $VARS, globs, pipes, ;, && or redirections) run directly without a shell; anything else runs with /bin/sh -c and needs the user's approval",
    ),
  cwd: z.string().min(1).optional().describe("Working folder, relative to the workspace root (default '.'); use this instead of cd"),
  timeout_seconds: z.number().int().min(1).max(3600).optional().describe('Stop the command after this many seconds (capped by the configured tool timeout)'),
});

export type { CommandResult } from '../../sandbox/processRunner';

/** What a host adds to the tool context for commands (defaults when it adds nothing). */
export interface CommandToolContext extends ToolContext {
  commandExecution?: CommandExecutionSettings;
  /** cortex.policy.protectedPaths, compiled: auto-approved commands may not name protected files. */
  protectedPaths?: ProtectedPathMatcher;
  /**
   * A person approved this exact command: the on-disk checks of auto-approvable commands (paths,
   * protected files) are skipped. Unset: treated as auto-approved, the stricter reading.
   */
  approvedByPerson?: boolean;
  /** The run's own trace, lock and checkpoint folder: read-only inside the sandbox when they lie in the workspace. */
  runFiles?: readonly string[];
}

let defaultProtectedPaths: ProtectedPathMatcher | undefined;

interface Launch {
  file: string;
  args: string[];
  env: Record<string, string>;
}

interface Place {
  realRoot: string;
  approvedByPerson: boolean;
  protectedPaths: ProtectedPathMatcher;
  cwd: string;
  sandbox: SandboxChoice;
  settings: CommandExecutionSettings;
  runFiles: readonly string[];
}

/** Wraps `launch` in the sandbox, if there is one. */
async function sandboxed(launch: Launch, place: Place): Promise<Launch> {
  if (place.sandbox.kind !== 'bubblewrap') return launch;
  const [hidden, readOnly] = await Promise.all([
    existingHiddenPaths(homeFolders(), place.settings.hiddenPaths),
    existingInside(place.realRoot, place.runFiles),
  ]);
  const layout = { workspace: place.realRoot, cwd: place.cwd, hidden, readOnly, network: place.settings.network };
  return { file: place.sandbox.bwrap, args: [...bubblewrapArgs(layout), launch.file, ...launch.args], env: launch.env };
}

async function start(launch: Launch, place: Place, timeoutMs: number, signal: AbortSignal, stdoutOnly = false): Promise<CommandResult> {
  const wrapped = await sandboxed(launch, place);
  return runProcess({ ...wrapped, cwd: place.cwd, timeoutMs, signal, stdoutOnly });
}

/** The program and arguments for literal `words`, checked against the disk when the default rules would auto-approve them. */
async function literalLaunch(words: string[], env: Record<string, string>, place: Place, signal: AbortSignal): Promise<Launch> {
  const [program, ...args] = words as [string, ...string[]];
  const safe = judgeDefaultSafe(words);
  const autoApprovable = safe.safe;
  if (safe.safe && safe.checksPaths && !place.approvedByPerson) {
    const problem = await diskProblem(words, { cwd: place.cwd, realRoot: place.realRoot, protectedPaths: place.protectedPaths });
    if (problem) throw new ToolError(`${problem}, so this read-only command does not run without approval. It did not run.`);
  }
  const file = await findProgram(program, { pathValue: env.PATH, cwd: place.cwd, realRoot: place.realRoot, outsideWorkspaceOnly: autoApprovable });
  if (!file) {
    if (SHELL_ONLY.has(program)) {
      throw new ToolError(
        `"${program}" is a shell builtin, and a command of plain words runs without a shell. ${program === 'cd' ? 'Use the cwd argument to choose the working folder.' : 'Write it as a shell command line if you need the shell (that needs approval).'}`,
      );
    }
    throw new ToolError(`Program "${program}" was not found${autoApprovable ? ' outside the workspace' : ''} on PATH.`);
  }
  if (program !== 'git' || !autoApprovable) return { file, args, env };
  const gitEnv = guardedGitEnv(env);
  // `git --version` reads no repository, so there is no configuration to check.
  if (args.length === 1 && (args[0] === '--version' || args[0] === 'version')) return { file, args: guardedGitArgs(args), env: gitEnv };
  // Only stdout is parsed: a message on stderr must not shift the NUL-separated fields.
  const listing = await start({ file, args: [...CONFIG_LISTING_ARGS], env: gitEnv }, place, GIT_CONFIG_CHECK_MS, signal, true);
  if (listing.exitCode !== 0) {
    throw new ToolError(
      `Could not check the git configuration before running git (git config --list: ${listing.exitCode === null ? `killed by ${listing.signal}` : `exit ${listing.exitCode}`}; run "git config --list" to see why). It did not run.`,
    );
  }
  const problem = inertConfigProblem(listing.output);
  if (problem) throw new ToolError(`Refused to run ${formatWords(words)} without approval: ${problem}. It did not run.`);
  return { file, args: guardedGitArgs(args), env: gitEnv };
}

/** run_command: runs a command with the workspace (or a folder in it) as working folder. */
export const runCommandTool: ToolDefinition<typeof RunCommandArgsSchema> = {
  name: 'run_command',
  description:
    "Run a command in the workspace folder (or cwd inside it) and return its combined stdout and stderr with the exit code. A command of plain words (e.g. git status, ls -la src, grep -rn TODO src) runs directly, without a shell; shell syntax (pipes, redirections, ;, &&, $VARS, globs) runs with /bin/sh -c and needs the user's approval. Non-interactive: no input is given. Long-running commands are stopped at the timeout.",
  schema: RunCommandArgsSchema,
  kind: 'command',
  readOnly: false,
  origin: { kind: 'builtin' },
  idempotent: false,
  changes: 'workspace',
  async run(args, context: CommandToolContext) {
    const settings = context.commandExecution ?? DEFAULT_EXECUTION_SETTINGS;
    const shownCwd = args.cwd ?? '.';
    const cwd = await resolveInWorkspace(context.workspaceRoot, shownCwd);
    const stats = await withFsErrors(shownCwd, () => stat(cwd));
    if (!stats.isDirectory()) throw new ToolError(`cwd '${shownCwd}' is not a directory`);
    const sandbox = await chooseSandbox(settings);
    if (sandbox.kind === 'refused') throw new ToolError(sandbox.message);
    defaultProtectedPaths ??= compileProtectedPaths(DEFAULT_PROTECTED_PATHS);
    const protectedPaths = context.protectedPaths ?? defaultProtectedPaths;
    const place: Place = {
      realRoot: await realpath(context.workspaceRoot),
      approvedByPerson: context.approvedByPerson === true,
      protectedPaths,
      cwd,
      sandbox,
      settings,
      runFiles: context.runFiles ?? [],
    };
    const env = commandEnvironment(process.env, { passthrough: settings.envPassthrough, sandboxed: sandbox.kind === 'bubblewrap' });
    const timeoutMs = Math.min(context.timeoutMs, (args.timeout_seconds ?? Number.POSITIVE_INFINITY) * 1000);

    const literal = parseLiteralCommand(args.command);
    let launch: Launch;
    if (literal.ok) launch = await literalLaunch(literal.words, env, place, context.signal);
    else if (process.platform === 'win32') launch = { file: 'cmd.exe', args: ['/d', '/s', '/c', args.command], env };
    else launch = { file: '/bin/sh', args: ['-c', args.command], env };

    const result = await start(launch, place, timeoutMs, context.signal);
    const output = result.output === '' ? '(no output)' : result.output.replace(/\s+$/, '');
    if (result.cancelled) throw new ToolError(`Command cancelled.\n${output}`);
    if (result.timedOut) throw new ToolError(`Command timed out after ${Math.round(timeoutMs / 1000)} s and was stopped.\n${output}`);
    const status = result.exitCode !== null ? `exit code ${result.exitCode}` : `killed by ${result.signal}`;
    if (result.exitCode !== 0) throw new CommandExitError(`Command failed (${status}).\n${output}`, result.exitCode);
    return `${output}\n[${status}]`;
  },
};
