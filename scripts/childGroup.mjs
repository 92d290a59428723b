// Runs one child program of an npm script (a test stage, a benchmark) in a process group of its
// own, and passes the signals that stop the script on to that whole group: `npm test` or
// `npm run bench` stopped with Ctrl-C, `kill` or a CI's cancellation stops everything under it
// (mocha, code-server, Chromium's launcher), instead of leaving it running after the script is gone.
import { spawn } from 'node:child_process';
import { constants } from 'node:os';

const STOP_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'];

/**
 * Spawns `command` with `args` (options as for `spawn`; `detached` is forced, which makes the
 * child the leader of a new process group) and returns the child. Until it exits, a stop signal
 * to this process goes to the child's whole group, and this process then exits as signalled.
 */
export function spawnInGroup(command, args, options = {}) {
  const child = spawn(command, args, { ...options, detached: true });
  let stoppedBy;
  const forward = (signal) => {
    stoppedBy ??= signal;
    try {
      process.kill(-child.pid, signal);
    } catch {
      // The group is already gone.
    }
  };
  for (const signal of STOP_SIGNALS) process.on(signal, forward);
  child.on('exit', () => {
    for (const signal of STOP_SIGNALS) process.off(signal, forward);
    // Stopped from outside: end as that signal would have ended us, once the group has gone.
    if (stoppedBy) process.exit(128 + constants.signals[stoppedBy]);
  });
  return child;
}

/**
 * spawnInGroup, awaited: resolves with the exit code (or the signal's name). With `onStdout` (and
 * stdout piped), the child's output is handed to it as text; likewise `onStderr`.
 */
export function runInGroup(command, args, options = {}) {
  const { onStdout, onStderr, ...spawnOptions } = options;
  return new Promise((resolve) => {
    const child = spawnInGroup(command, args, spawnOptions);
    if (onStdout) child.stdout?.setEncoding('utf8').on('data', onStdout);
    if (onStderr) child.stderr?.setEncoding('utf8').on('data', onStderr);
    child.on('error', (error) => resolve({ code: 1, error }));
    child.on('exit', (code, signal) => {
      const result = { code: code ?? signal };
      const open = [child.stdout, child.stderr].filter((stream) => stream && !stream.readableEnded);
      if (open.length === 0) return resolve(result);
      // The output may still be on its way; a process the child left behind may hold the pipe, so not for long.
      const timer = setTimeout(() => resolve(result), 1_000);
      let left = open.length;
      for (const stream of open)
        stream.once('end', () => {
          if (--left > 0) return;
          clearTimeout(timer);
          resolve(result);
        });
    });
  });
}
