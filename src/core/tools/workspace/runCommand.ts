import { spawn } from 'node:child_process';
import { stat } from 'node:fs/promises';
import { z } from 'zod';
import type { ToolDefinition } from '../toolTypes';
import { ToolError } from '../toolTypes';
import { resolveInWorkspace } from '../workspaceJail';
import { withFsErrors } from './fsErrors';

// run_command: a shell command in the workspace (policy decides whether it may run at all). The
// process gets its own process group so a timeout or cancel kills it and everything it started.

/** Captured output beyond head + tail of this size each is dropped while running (memory bound). */
const CAPTURE_BYTES = 512 * 1024;
/** After the process exits, wait this long for pipes held by stray children before answering. */
const CLOSE_GRACE_MS = 1000;

export const RunCommandArgsSchema = z.strictObject({
  command: z.string().min(1).describe('Shell command line to run (sh -c on Unix, cmd /c on Windows)'),
  cwd: z.string().min(1).optional().describe("Working folder, relative to the workspace root (default '.')"),
  timeout_seconds: z.number().int().min(1).max(3600).optional().describe('Stop the command after this many seconds (capped by the configured tool timeout)'),
});
export type RunCommandArgs = z.infer<typeof RunCommandArgsSchema>;

/** Keeps the first and last `limit` bytes of a stream of chunks. */
export class HeadTailCapture {
  private head: Buffer[] = [];
  private headBytes = 0;
  private tail: Buffer[] = [];
  private tailBytes = 0;
  private dropped = 0;

  constructor(private readonly limit: number) {}

  push(chunk: Buffer): void {
    if (this.headBytes < this.limit) {
      const take = chunk.subarray(0, this.limit - this.headBytes);
      this.head.push(take);
      this.headBytes += take.length;
      chunk = chunk.subarray(take.length);
    }
    if (chunk.length === 0) return;
    this.tail.push(chunk);
    this.tailBytes += chunk.length;
    while (this.tailBytes - this.tail[0].length >= this.limit) {
      this.tailBytes -= this.tail[0].length;
      this.dropped += this.tail.shift()!.length;
    }
  }

  text(): string {
    const middle = this.dropped > 0 ? `\n[... ${this.dropped} bytes of output dropped ...]\n` : '';
    return Buffer.concat(this.head).toString('utf8') + middle + Buffer.concat(this.tail).toString('utf8');
  }
}

function killGroup(pid: number | undefined): void {
  if (pid === undefined) return;
  try {
    if (process.platform === 'win32') spawn('taskkill', ['/pid', String(pid), '/T', '/F'], { stdio: 'ignore' });
    else process.kill(-pid, 'SIGKILL');
  } catch {
    // already gone
  }
}

export interface CommandResult {
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  output: string;
  timedOut: boolean;
  cancelled: boolean;
  durationMs: number;
}

/** Runs `command` through the shell in `cwd`, stdout and stderr interleaved; kills the group on timeout or abort. */
export function runShellCommand(command: string, cwd: string, timeoutMs: number, signal: AbortSignal): Promise<CommandResult> {
  const started = Date.now();
  return new Promise((resolve) => {
    const capture = new HeadTailCapture(CAPTURE_BYTES);
    const isWindows = process.platform === 'win32';
    const child = spawn(isWindows ? 'cmd.exe' : '/bin/sh', isWindows ? ['/d', '/s', '/c', command] : ['-c', command], {
      cwd,
      detached: !isWindows, // own process group, so the whole tree can be killed
      stdio: ['ignore', 'pipe', 'pipe'],
      windowsHide: true,
      env: { ...process.env, NO_COLOR: '1', TERM: 'dumb', PAGER: 'cat', GIT_PAGER: 'cat' },
    });
    let timedOut = false;
    let cancelled = false;
    let exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
    let done = false;
    const finish = (code: number | null, exitSignal: NodeJS.Signals | null) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      clearTimeout(grace);
      signal.removeEventListener('abort', onAbort);
      resolve({ exitCode: code, signal: exitSignal, output: capture.text(), timedOut, cancelled, durationMs: Date.now() - started });
    };
    const onAbort = () => {
      const reason = signal.reason as { name?: string } | undefined;
      if (reason?.name === 'TimeoutError') timedOut = true;
      else cancelled = true;
      killGroup(child.pid);
    };
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup(child.pid);
    }, timeoutMs);
    let grace: NodeJS.Timeout | undefined;
    child.stdout.on('data', (chunk: Buffer) => capture.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => capture.push(chunk));
    child.on('error', (error) => {
      capture.push(Buffer.from(`Could not start the command: ${error.message}\n`));
      finish(null, null);
    });
    child.on('exit', (code, exitSignal) => {
      exit = { code, signal: exitSignal };
      // Children that outlive the shell may hold the pipes open; do not wait on them forever.
      killGroup(child.pid);
      grace = setTimeout(() => finish(code, exitSignal), CLOSE_GRACE_MS);
    });
    child.on('close', (code, exitSignal) => finish(exit?.code ?? code, exit?.signal ?? exitSignal));
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
  });
}

/** run_command: runs a shell command with the workspace (or a folder in it) as working folder. */
export const runCommandTool: ToolDefinition<typeof RunCommandArgsSchema> = {
  name: 'run_command',
  description:
    'Run a shell command in the workspace folder (or cwd inside it) and return its combined stdout and stderr with the exit code. Non-interactive: no input is given. Long-running commands are stopped at the timeout.',
  schema: RunCommandArgsSchema,
  kind: 'command',
  readOnly: false,
  async run(args, context) {
    const shownCwd = args.cwd ?? '.';
    const cwd = await resolveInWorkspace(context.workspaceRoot, shownCwd);
    const stats = await withFsErrors(shownCwd, () => stat(cwd));
    if (!stats.isDirectory()) throw new ToolError(`cwd '${shownCwd}' is not a directory`);
    const timeoutMs = Math.min(context.timeoutMs, (args.timeout_seconds ?? Number.POSITIVE_INFINITY) * 1000);
    const result = await runShellCommand(args.command, cwd, timeoutMs, context.signal);
    const output = result.output === '' ? '(no output)' : result.output.replace(/\s+$/, '');
    if (result.cancelled) throw new ToolError(`Command cancelled.\n${output}`);
    if (result.timedOut) throw new ToolError(`Command timed out after ${Math.round(timeoutMs / 1000)} s and was stopped.\n${output}`);
    const status = result.exitCode !== null ? `exit code ${result.exitCode}` : `killed by ${result.signal}`;
    if (result.exitCode !== 0) throw new ToolError(`Command failed (${status}).\n${output}`);
    return `${output}\n[${status}]`;
  },
};
