import { runFilesInside } from '../core/policy/runFileProtection';
import { printLine } from './cliSession';

/**
 * Says once, before the run, when its trace (or checkpoint folder) lies inside the workspace: the
 * run's own tools are kept from writing them, but a command the person approves and any other
 * program can, and a later revert or resume reads them (docs/design.md, “Checkpoints and revert”).
 */
export function warnIfTraceInsideWorkspace(stderr: NodeJS.WritableStream, workspace: string, trace: string | undefined, checkpoints: string | undefined): void {
  const inside = [trace, checkpoints].filter((file): file is string => file !== undefined && runFilesInside(workspace, [file]).length > 0);
  if (inside.length === 0) return;
  printLine(
    stderr,
    `cortex: warning: ${inside.join(' and ')} ${inside.length > 1 ? 'are' : 'is'} inside the workspace; the run's tools may not write ${inside.length > 1 ? 'them' : 'it'} (protected for the run; a command sees ${inside.length > 1 ? 'them' : 'it'} read-only in the sandbox, but an approved command run without the sandbox can write ${inside.length > 1 ? 'them' : 'it'}), another program can, and revert and resume trust what is there: keep traces outside the workspace`,
  );
}
