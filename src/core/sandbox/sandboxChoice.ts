import { probeSandbox, type SandboxProbe } from './bubblewrap';
import type { CommandExecutionSettings } from './executionSettings';

// Which sandbox a command runs in, from `cortex.sandbox.mode` and what this machine offers.

export type SandboxChoice = { kind: 'bubblewrap'; bwrap: string } | { kind: 'none'; reason: string } | { kind: 'refused'; message: string };

export async function chooseSandbox(
  settings: Pick<CommandExecutionSettings, 'sandboxMode'>,
  probeOnce: () => Promise<SandboxProbe> = probeSandbox,
): Promise<SandboxChoice> {
  if (settings.sandboxMode === 'off') return { kind: 'none', reason: 'cortex.sandbox.mode is "off"' };
  const probe = await probeOnce();
  if (probe.available) return { kind: 'bubblewrap', bwrap: probe.bwrap };
  if (settings.sandboxMode === 'required') {
    return { kind: 'refused', message: `cortex.sandbox.mode is "required" but no sandbox is available: ${probe.reason}. The command did not run.` };
  }
  return { kind: 'none', reason: probe.reason };
}

/**
 * What a run should say once at its start about commands, or undefined when they are sandboxed:
 * a warning that they run unsandboxed (mode auto without a sandbox, or off) or will be refused
 * (mode required without a sandbox).
 */
export async function sandboxNotice(
  settings: Pick<CommandExecutionSettings, 'sandboxMode'>,
  probeOnce: () => Promise<SandboxProbe> = probeSandbox,
): Promise<string | undefined> {
  const choice = await chooseSandbox(settings, probeOnce);
  if (choice.kind === 'bubblewrap') return undefined;
  if (choice.kind === 'refused') return `run_command is refused in this run: ${choice.message.replace(/ The command did not run\.$/, '')}`;
  return `run_command runs commands without a sandbox in this run (${choice.reason}): an approved command can read and change anything your user can.`;
}
