import { UsageError } from './cliArgs';
import { printLine } from './cliSession';
import { EXIT } from './exitCode';

/**
 * Says why a command could not start, pointing to `<command> --help` when that would help
 * (a command-line mistake), and returns the usage exit code.
 */
export function usageFailure(stderr: NodeJS.WritableStream, error: unknown, command: string): number {
  const help = error instanceof UsageError && error.pointToHelp ? `; run "${command} --help"` : '';
  printLine(stderr, `cortex: ${(error as Error).message}${help}`);
  return EXIT.usage;
}
