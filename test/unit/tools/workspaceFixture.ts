import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { ToolContext } from '../../../src/core/tools/toolTypes';

export const SECRET = 'TOP SECRET: outside the workspace';

/**
 * A real temp tree for jail tests:
 *   base/ws            the workspace (inside.txt, sub/file.txt, links below)
 *   base/ws-evil       a prefix look-alike holding a secret
 *   base/outside       a folder outside holding a secret
 *   base/ws-link       a symlink to ws (a workspace opened through a link)
 * Links in ws: link-out → ../outside, link-file-out → ../outside/secret.txt, link-in → sub,
 * dangling → ../outside/new.txt (missing), dangling-dir → ../outside/newdir (missing),
 * loop-a ↔ loop-b.
 */
export interface JailFixture {
  base: string;
  ws: string;
  outside: string;
  evil: string;
  wsLink: string;
  cleanup(): Promise<void>;
}

export async function createJailFixture(): Promise<JailFixture> {
  const base = await mkdtemp(path.join(os.tmpdir(), 'cortex-jail-'));
  const ws = path.join(base, 'ws');
  const outside = path.join(base, 'outside');
  const evil = path.join(base, 'ws-evil');
  await mkdir(path.join(ws, 'sub'), { recursive: true });
  await mkdir(outside);
  await mkdir(evil);
  await writeFile(path.join(ws, 'inside.txt'), 'inside content\n');
  await writeFile(path.join(ws, 'sub', 'file.txt'), 'sub file\n');
  await writeFile(path.join(outside, 'secret.txt'), SECRET);
  await writeFile(path.join(evil, 'secret.txt'), SECRET);
  await symlink('../outside', path.join(ws, 'link-out'));
  await symlink('../outside/secret.txt', path.join(ws, 'link-file-out'));
  await symlink('sub', path.join(ws, 'link-in'));
  await symlink('../outside/new.txt', path.join(ws, 'dangling'));
  await symlink('../outside/newdir', path.join(ws, 'dangling-dir'));
  await symlink('loop-b', path.join(ws, 'loop-a'));
  await symlink('loop-a', path.join(ws, 'loop-b'));
  const wsLink = path.join(base, 'ws-link');
  await symlink('ws', wsLink);
  return { base, ws, outside, evil, wsLink, cleanup: () => rm(base, { recursive: true, force: true }) };
}

/** A fresh empty workspace folder. */
export async function createTempWorkspace(): Promise<{ ws: string; cleanup(): Promise<void> }> {
  const ws = await mkdtemp(path.join(os.tmpdir(), 'cortex-ws-'));
  return { ws, cleanup: () => rm(ws, { recursive: true, force: true }) };
}

export function toolContext(workspaceRoot: string, overrides: Partial<ToolContext> = {}): ToolContext {
  return { workspaceRoot, signal: new AbortController().signal, maxReadFileBytes: 1_000_000, timeoutMs: 10_000, ...overrides };
}
