import { spawn, type ChildProcess } from 'node:child_process';
import { join, resolve } from 'node:path';

// The real CLI as its own process (the same entry `cortex` runs), for the resume tests: they kill
// it with SIGKILL or SIGTERM at a chosen moment and read what it left behind.

const REPO = resolve(__dirname, '..', '..');
const CLI = join(REPO, 'src', 'cli', 'main.ts');

export interface CliProcess {
  child: ChildProcess;
  pid: number;
  /** Resolves with the exit code (null when killed by a signal) and the signal. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  stdout(): string;
  stderr(): string;
}

export function spawnCli(args: string[], env: Record<string, string> = {}): CliProcess {
  const child = spawn(process.execPath, ['--import', 'tsx', CLI, ...args], {
    cwd: REPO,
    env: { ...process.env, OPENAI_API_KEY: 'sk-test', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stderr += d));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((done) => child.on('exit', (code, signal) => done({ code, signal })));
  return { child, pid: child.pid!, exited, stdout: () => stdout, stderr: () => stderr };
}

/** Runs the CLI to its end (killed after `timeoutMs`, which fails the caller's assertions on the code). */
export async function runCli(args: string[], timeoutMs = 60_000): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const process = spawnCli(args);
  const timer = setTimeout(() => process.child.kill('SIGKILL'), timeoutMs);
  const { code } = await process.exited;
  clearTimeout(timer);
  return { code, stdout: process.stdout(), stderr: process.stderr() };
}

/** Polls until `check()` is true; fails with `what` and the process's stderr after `timeoutMs`. */
export async function waitUntil(check: () => boolean, what: string, cli?: CliProcess, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}${cli ? `; the CLI said:\n${cli.stderr()}` : ''}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}
