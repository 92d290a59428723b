import path from 'node:path';
import { isInside } from '../files/workspaceJail';

// The environment a command gets: a short allowlist of the editor's (or CLI's) variables, the names
// the user passes through with `cortex.execution.envPassthrough`, and fixed values that keep output
// plain and non-interactive. Everything else (API keys, tokens, cloud credentials, SSH agent
// sockets, GIT_* / LD_* / NODE_OPTIONS-style variables that change what a program runs) is dropped.

const ALLOWED = new Set(['PATH', 'HOME', 'LANG', 'TERM', 'TMPDIR', 'USER', 'SHELL']);
const ALLOWED_PREFIX = /^LC_[A-Z_]+$/;
/** What Windows programs need to start at all. */
const WINDOWS_ALLOWED = new Set([
  'SYSTEMROOT',
  'SYSTEMDRIVE',
  'WINDIR',
  'COMSPEC',
  'PATHEXT',
  'TEMP',
  'TMP',
  'USERPROFILE',
  'USERNAME',
  'APPDATA',
  'LOCALAPPDATA',
  'PROGRAMDATA',
  'PROGRAMFILES',
  'PROGRAMFILES(X86)',
  'NUMBER_OF_PROCESSORS',
  'PROCESSOR_ARCHITECTURE',
  'OS',
]);
const FIXED = { NO_COLOR: '1', TERM: 'dumb', PAGER: 'cat', GIT_PAGER: 'cat', GIT_TERMINAL_PROMPT: '0' };
const FALLBACK_PATH = '/usr/local/bin:/usr/bin:/bin';

export interface EnvironmentOptions {
  /** Names from `cortex.execution.envPassthrough`. */
  passthrough: readonly string[];
  /** The sandbox gives the command a fresh /tmp: TMPDIR points there. */
  sandboxed: boolean;
  platform?: NodeJS.Platform;
}

/** The scrubbed environment for a command. */
export function commandEnvironment(source: NodeJS.ProcessEnv, options: EnvironmentOptions): Record<string, string> {
  const windows = (options.platform ?? process.platform) === 'win32';
  const passthrough = new Set(options.passthrough);
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(source)) {
    if (value === undefined) continue;
    const upper = windows ? name.toUpperCase() : name;
    if (ALLOWED.has(upper) || ALLOWED_PREFIX.test(upper) || passthrough.has(name) || (windows && WINDOWS_ALLOWED.has(upper))) env[name] = value;
  }
  if (!windows) env.PATH = sanitizedPath(env.PATH);
  if (options.sandboxed) env.TMPDIR = '/tmp';
  return { ...env, ...FIXED };
}

/** PATH without empty or relative entries (which would find programs in the working folder). */
export function sanitizedPath(value: string | undefined): string {
  const entries = (value ?? '').split(':').filter((entry) => path.isAbsolute(entry));
  return entries.length > 0 ? [...new Set(entries)].join(':') : FALLBACK_PATH;
}

/** PATH entries an auto-approved program may come from: not inside the workspace (its files are not programs we vetted). */
export function trustedPathEntries(value: string | undefined, realRoot: string): string[] {
  return sanitizedPath(value)
    .split(':')
    .filter((entry) => !isInside(realRoot, entry));
}
