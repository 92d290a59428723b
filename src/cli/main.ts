import { enableCompileCache, flushCompileCache } from 'node:module';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { userCacheDir } from '../core/memory/memoryPath';
import { terminalSafe } from '../core/text/terminalSafe';
import { parseCliArgs, USAGE } from './cliArgs';
import type { CommandIo } from './cliCommands';
import { loadWarmSync, type WarmModule } from './warmCodeCache';

// The `cortex` entry point (dist/cli.js). It stays small: it answers `cortex --help` itself, and
// loads the commands and the agent (dist/cliCommands.js) only to run one. Node's compile cache
// keeps this entry compiled, and a code cache written after a run (warmCodeCache.ts) keeps the
// agent's code compiled, so a start does not parse and compile it again each time.

const COMMAND_WORDS = new Set(['resume', 'retry-step', 'diff', 'revert']);
const REVIEW_WORDS = new Set(['diff', 'revert']);

/** `cortex run …`, `cortex resume …`, `cortex diff …` and `cortex revert …`: the headless agent for CI. Returns the process exit code (see USAGE). */
export async function main(
  argv: string[],
  io: CommandIo = {
    stdout: process.stdout,
    stderr: process.stderr,
    // Made when first read (only approvals and MCP prompts read it): creating it costs the start 2 ms.
    get stdin() {
      return process.stdin;
    },
    cwd: process.cwd(),
    env: process.env,
  },
): Promise<number> {
  if (isPlainHelp(argv, io.cwd)) {
    io.stdout.write(`${USAGE}\n`);
    return 0;
  }
  const commands = loadCommandsSync();
  // Written now rather than at exit, so a run that is killed still leaves the next start its cache.
  flushCompileCache();
  const code = await commands.exports.runCommand(argv, io);
  // A run that went through has compiled what the next one needs (a review of changes has not).
  if (code === 0 && !argv.some((word) => REVIEW_WORDS.has(word))) commands.saveSync();
  return code;
}

/** dist/cliCommands.js with its warm code cache (warmCodeCache.ts); from source, a plain require. */
function loadCommandsSync(): WarmModule<typeof import('./cliCommands')> {
  const bundle = join(__dirname, 'cliCommands.js');
  if (existsSync(bundle)) {
    try {
      return loadWarmSync(bundle, join(userCacheDir(), 'cortex', 'code-cache'));
    } catch {
      // An unreadable bundle is reported by require below, in Node's words.
    }
  }
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded on demand (a separate bundle, see scripts/build.mjs)
  return { exports: require('./cliCommands') as typeof import('./cliCommands'), fromCache: false, saveSync: () => undefined };
}

/**
 * `cortex --help` (or `-h`, with `run` or nothing): the usage of `cortex run`. Any other command
 * word, and any mistake on the line, is left to the commands, which say the same as ever.
 */
function isPlainHelp(argv: readonly string[], cwd: string): boolean {
  if (argv.some((word) => COMMAND_WORDS.has(word))) return false;
  try {
    return parseCliArgs([...argv], cwd).help;
  } catch {
    return false;
  }
}

/** Compiled code of the CLI kept under the user's cache folder; without it the CLI only starts slower. */
function useCompileCache(): void {
  try {
    enableCompileCache(join(userCacheDir(), 'cortex', 'compile-cache'));
  } catch {
    // An unwritable cache folder is not worth a warning.
  }
}

if (require.main === module) {
  useCompileCache();
  main(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (error) => {
      process.stderr.write(`${terminalSafe(`cortex: unexpected error: ${(error as Error).message}`)}\n`);
      process.exit(1);
    },
  );
}
