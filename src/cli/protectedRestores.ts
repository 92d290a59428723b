import { createInterface } from 'node:readline';
import type { RevertConflict } from '../core/plan/changeSchema';
import { terminalSafe } from '../core/text/terminalSafe';
import type { CliIo } from './cliSession';
import { printLine } from './cliSession';

// The CLI's confirmation of protected paths a restore would write (docs/design.md, “Checkpoints and
// revert”): a trace names the paths, and a trace can be forged, so each protected path is either
// named by the person on the command line (--allow-protected PATH) or confirmed on a terminal, one
// question per path. Without a terminal, what was not named is left alone.

/** The paths of `conflicts` that need confirmation and were not confirmed yet. */
export function unconfirmedProtected(conflicts: readonly RevertConflict[]): RevertConflict[] {
  return conflicts.filter((conflict) => conflict.reason === 'protected');
}

/**
 * Asks about each path on a terminal and returns those confirmed. Without a terminal, says once
 * how to name them and returns none.
 */
export async function confirmProtected(io: CliIo, pending: readonly RevertConflict[], command: string): Promise<string[]> {
  if (pending.length === 0) return [];
  if (!io.stdin.isTTY) {
    printLine(
      io.stderr,
      `cortex: ${pending.length} protected path${pending.length === 1 ? '' : 's'} left alone (no terminal to ask): ${pending.map((c) => c.path).join(', ')}; ` +
        `give --allow-protected PATH for each one you mean ${command} to write`,
    );
    return [];
  }
  const confirmed: string[] = [];
  const rl = createInterface({ input: io.stdin, output: io.stderr, terminal: true });
  // Lines are read as they come (a line typed ahead is kept for the next question).
  const lines = rl[Symbol.asyncIterator]();
  try {
    for (const conflict of pending) {
      const why = conflict.detail.replace(/; it was left alone.*$/, '');
      io.stderr.write(`\n[cortex] ${command} would write ${terminalSafe(conflict.path)}: ${terminalSafe(why)}.\n  Write it? [y/N] `);
      const reply = await lines.next();
      if (reply.done) break;
      if (/^y(es)?$/i.test(String(reply.value).trim())) confirmed.push(conflict.path);
    }
  } finally {
    rl.close();
  }
  return confirmed;
}
