import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { ProtectedPathMatcher } from '../../../src/core/files/protectedPaths';
import { probeSandbox } from '../../../src/core/sandbox/bubblewrap';
import type { CommandExecutionSettings } from '../../../src/core/sandbox/executionSettings';
import { executeTool, type ToolRunResult } from '../../../src/core/tools/toolExecutor';
import { runCommandTool, type CommandToolContext } from '../../../src/core/tools/workspace/runCommand';

// Shared by the sandbox tests: they run the real bubblewrap, and fail (never skip) when it is
// missing, so a machine without it is noticed instead of silently testing nothing.

/** Throws with an install hint when bubblewrap does not work on this machine. */
export async function requireBubblewrap(): Promise<void> {
  const probe = await probeSandbox();
  if (!probe.available) {
    throw new Error(`The sandbox tests need a working bubblewrap: ${probe.reason}. Install it (Debian/Ubuntu: apt-get install bubblewrap) in the CI image.`);
  }
}

export const SANDBOXED: CommandExecutionSettings = { sandboxMode: 'required', network: false, envPassthrough: [] };
export const UNSANDBOXED: CommandExecutionSettings = { sandboxMode: 'off', network: false, envPassthrough: [] };

export async function tempWorkspace(prefix = 'cortex-sbx-ws-'): Promise<{ ws: string; cleanup: () => Promise<void> }> {
  const ws = await mkdtemp(path.join(os.tmpdir(), prefix));
  return { ws, cleanup: () => rm(ws, { recursive: true, force: true }) };
}

export function runIn(
  ws: string,
  command: string,
  settings: CommandExecutionSettings,
  extra: { timeoutMs?: number; cwd?: string; protectedPaths?: ProtectedPathMatcher; approvedByPerson?: boolean } = {},
): Promise<ToolRunResult> {
  const context: CommandToolContext = {
    workspaceRoot: ws,
    signal: new AbortController().signal,
    maxReadFileBytes: 1_000_000,
    timeoutMs: extra.timeoutMs ?? 15_000,
    commandExecution: settings,
  };
  if (extra.protectedPaths) context.protectedPaths = extra.protectedPaths;
  if (extra.approvedByPerson) context.approvedByPerson = true;
  const args = runCommandTool.schema.parse(extra.cwd ? { command, cwd: extra.cwd } : { command });
  return executeTool(runCommandTool, args, context, 32_768);
}

/** PIDs of live (not zombie) processes whose command line contains `marker`. */
export function processesMatching(marker: string): number[] {
  if (!existsSync('/proc')) throw new Error('these tests need /proc');
  const found: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, 'utf8').replace(/\0/g, ' ');
      const state = readFileSync(`/proc/${entry}/stat`, 'utf8').split(') ')[1]?.[0];
      if (cmdline.includes(marker) && state !== 'Z') found.push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return found;
}

export async function waitUntil(check: () => boolean, ms: number): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (check()) return true;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  return check();
}
