import { spawn } from 'node:child_process';
import { join, resolve } from 'node:path';

// The `cortex` command as a user types it (the package's bin, scripts/cortex), run to its end in
// its own process; for tests of what only a real process shows (signals, proxies, start-up). It is
// spawned, never run synchronously: the scripted server answers from the test's own process.

export const CORTEX_COMMAND = join(resolve(__dirname, '..', '..'), 'scripts', 'cortex');

export interface CommandResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `command` (default: the cortex bin) with `args` and `env`; killed after 60 s, which fails the caller on its code. */
export function runCortexCommand(args: string[], env: NodeJS.ProcessEnv, command = CORTEX_COMMAND): Promise<CommandResult> {
  const child = spawn(command, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stderr += d));
  const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
  return new Promise((done) =>
    child.on('exit', (code) => {
      clearTimeout(timer);
      done({ code, stdout, stderr });
    }),
  );
}
