import { spawn } from 'node:child_process';
import { access, realpath } from 'node:fs/promises';
import path from 'node:path';
import { existingHiddenPaths, homeFolders, type HiddenPath } from './hiddenPaths';

// The Linux sandbox for run_command: bubblewrap (Debian/Ubuntu package `bubblewrap`). The command
// sees the whole file system read-only (the home folder too, so toolchains installed there run),
// the workspace read-write, an empty /tmp, the secrets of the home folder covered
// (sandbox/hiddenPaths.ts; the workspace stays visible when it lives there), a fresh /dev and /proc, no network
// unless allowed, no capabilities (as root too: with them it could remount / read-write), its own
// PID namespace (when the call ends, every process it started dies with it, `setsid` or not) and
// its own session (no typing into the editor's terminal).

/** Where bwrap is looked for: fixed system locations only, never the PATH a workspace could influence. */
export const BWRAP_LOCATIONS = ['/usr/bin/bwrap', '/usr/local/bin/bwrap', '/bin/bwrap'];
const PROBE_TIMEOUT_MS = 10_000;

export interface SandboxLayout {
  /** Real path of the workspace (bound read-write). */
  workspace: string;
  /** Real path of the working folder inside it. */
  cwd: string;
  /** Real paths to cover (existingHiddenPaths): an empty folder over a folder, /dev/null over a file. */
  hidden?: readonly HiddenPath[];
  /** Real paths of existing files or folders inside the workspace bound read-only over its writable bind (the run's own trace, lock, checkpoints). */
  readOnly?: readonly string[];
  network: boolean;
}

function depth(folder: string): number {
  return folder.split(path.sep).filter(Boolean).length;
}

/**
 * The real paths of those of `files` that exist and lie inside `realRoot` (not the root itself):
 * what `readOnly` takes. A file that does not exist cannot be bound; one outside the workspace is
 * read-only in the sandbox already.
 */
export async function existingInside(realRoot: string, files: readonly string[]): Promise<string[]> {
  const inside: string[] = [];
  const reals = await Promise.all(files.map((file) => realpath(path.resolve(file)).catch(() => undefined)));
  for (const real of reals) {
    if (!real) continue;
    const relative = path.relative(realRoot, real);
    if (relative !== '' && !relative.startsWith('..') && !path.isAbsolute(relative) && !inside.includes(real)) inside.push(real);
  }
  return inside;
}

/** bwrap arguments up to and including `--`; the program and its arguments follow. */
export function bubblewrapArgs(layout: SandboxLayout): string[] {
  const mounts: Array<{ folder: string; args: string[] }> = [];
  const hidden = new Set<string>();
  for (const place of [{ path: '/tmp', folder: true }, ...(layout.hidden ?? [])]) {
    if (place.path === '/' || place.path === layout.workspace || hidden.has(place.path)) continue;
    hidden.add(place.path);
    // /dev/null as a device: bound without nodev it reads as empty instead of failing with EACCES.
    mounts.push({ folder: place.path, args: place.folder ? ['--tmpfs', place.path] : ['--dev-bind', '/dev/null', place.path] });
  }
  mounts.push({ folder: layout.workspace, args: ['--bind', layout.workspace, layout.workspace] });
  for (const place of layout.readOnly ?? []) {
    if (place === layout.workspace || hidden.has(place)) continue;
    hidden.add(place);
    mounts.push({ folder: place, args: ['--ro-bind', place, place] });
  }
  // Parents first: a workspace inside a covered folder is bound after the folder is emptied; a
  // secret or a read-only run file inside the workspace is mounted after the workspace is bound.
  mounts.sort((a, b) => depth(a.folder) - depth(b.folder));
  return [
    '--ro-bind',
    '/',
    '/',
    '--dev',
    '/dev',
    '--proc',
    '/proc',
    ...mounts.flatMap((mount) => mount.args),
    '--unshare-all',
    ...(layout.network ? ['--share-net'] : []),
    '--die-with-parent',
    '--new-session',
    '--cap-drop',
    'ALL',
    '--chdir',
    layout.cwd,
    '--',
  ];
}

/**
 * bwrap arguments (up to `--`) that only bound a long-lived helper's lifetime, for stdio MCP
 * servers: the whole file system as it is (a server needs its caches, its home and the network),
 * but its own PID namespace, so that when the server's process ends, or Cortex stops it, or Cortex
 * dies (--die-with-parent), every process it started ends too, `setsid` daemons included.
 */
export function lifetimeSandboxArgs(cwd: string): string[] {
  return ['--dev-bind', '/', '/', '--proc', '/proc', '--unshare-pid', '--die-with-parent', '--chdir', cwd, '--'];
}

export type SandboxProbe = { available: true; bwrap: string } | { available: false; reason: string };

let probed: Promise<SandboxProbe> | undefined;

/**
 * Whether bubblewrap works here, checked once per process by running `true` in a sandbox built
 * the same way as a command's (user namespaces can be disabled, or a container can forbid them).
 */
export function probeSandbox(): Promise<SandboxProbe> {
  probed ??= runProbe();
  return probed;
}

async function runProbe(): Promise<SandboxProbe> {
  if (process.platform !== 'linux') return { available: false, reason: `no sandbox is implemented for ${process.platform} (bubblewrap is Linux only)` };
  const found = await Promise.all(
    BWRAP_LOCATIONS.map((location) =>
      access(location).then(
        () => location,
        () => undefined,
      ),
    ),
  );
  const bwrap = found.find((location) => location !== undefined);
  if (!bwrap) return { available: false, reason: `bubblewrap is not installed (looked for ${BWRAP_LOCATIONS.join(', ')}; Debian/Ubuntu package "bubblewrap")` };
  const folder = (await realpath(process.cwd()).catch(() => undefined)) ?? '/';
  const args = [...bubblewrapArgs({ workspace: folder, cwd: folder, hidden: await existingHiddenPaths(homeFolders()), network: false }), '/bin/true'];
  return new Promise((resolve) => {
    let stderr = '';
    const child = spawn(bwrap, args, { stdio: ['ignore', 'ignore', 'pipe'], env: { PATH: '/usr/bin:/bin' } });
    const timer = setTimeout(() => child.kill('SIGKILL'), PROBE_TIMEOUT_MS);
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    child.on('error', (error) => {
      clearTimeout(timer);
      resolve({ available: false, reason: `${bwrap} could not start: ${error.message}` });
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      if (code === 0) resolve({ available: true, bwrap });
      else
        resolve({
          available: false,
          reason: `${bwrap} does not work here (${signal ? `killed by ${signal}` : `exit ${code}`}${stderr.trim() ? `: ${stderr.trim().split('\n')[0]}` : ''}); user namespaces may be disabled`,
        });
    });
  });
}
