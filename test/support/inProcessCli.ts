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
