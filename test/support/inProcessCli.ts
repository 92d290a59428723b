import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { main } from '../../src/cli/main';

// `cortex` run in this process (the CLI's own main, with its output collected), for integration
// tests against the scripted server that need no separate process: no stdin (not a terminal) and,
// unless given, an empty environment, so nothing of the machine's leaks into the run.

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

function collect() {
  const stream = new PassThrough();
  let text = '';
  stream.on('data', (d) => (text += String(d)));
  return { stream, text: () => text };
}

export async function runCliInProcess(argv: string[], env: NodeJS.ProcessEnv = {}): Promise<CliResult> {
  const stdout = collect();
  const stderr = collect();
  const stdin = Object.assign(new PassThrough(), { isTTY: false });
  const code = await main(argv, { stdout: stdout.stream as never, stderr: stderr.stream as never, stdin: stdin as never, cwd: process.cwd(), env });
  return { code, stdout: stdout.text(), stderr: stderr.text() };
}

/** runCliInProcess with this process's environment; a stack trace in its error output fails the test. */
export async function runCliWithoutStackTrace(argv: string[]): Promise<CliResult> {
  const result = await runCliInProcess(argv, process.env);
  assert.doesNotMatch(result.stderr, /\n\s+at /, `stack trace in:\n${result.stderr}`);
  return result;
}
