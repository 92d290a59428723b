import { PassThrough } from 'node:stream';

/** A terminal for the CLI's prompts: a TTY input the test types into, and what the output showed so far. */
export function fakeTerminal(): { input: PassThrough & { isTTY: true }; output: PassThrough; shown(): string } {
  const input = Object.assign(new PassThrough(), { isTTY: true as const });
  const output = new PassThrough();
  let shown = '';
  output.on('data', (d) => (shown += d));
  return { input, output, shown: () => shown };
}
