import { globToRegExp } from './globPattern';

// Paths whose edit or read needs a person's confirmation even when the tool is otherwise allowed:
// writing them can run code later (git hooks and config, editor tasks and settings, CI workflows)
// and reading them can leak secrets (env files, private keys). The setting holds two glob lists;
// a glob without '/' matches a file name at any depth, a trailing '/**' also matches the folder
// itself (so creating `.git` is as protected as writing inside it).
//
// Matching is on the resolved workspace-relative path, case-insensitively (macOS and Windows disks
// usually are), and also after the spellings Windows treats as equal: '\' for '/', trailing dots
// and spaces of a name, and an NTFS stream suffix (`name::$DATA`). These extra forms can only add
// matches, never remove one, so on a case-sensitive disk they cost at most an extra question.

export type FileAccessKind = 'read' | 'write';

export interface ProtectedPathRules {
  write: string[];
  read: string[];
}

export const DEFAULT_PROTECTED_PATHS: Readonly<ProtectedPathRules> = Object.freeze({
  write: ['**/.git/**', '**/.vscode/**', '*.code-workspace', '.github/workflows/**', '.github/actions/**', '.husky/**', '.devcontainer/**'],
  read: ['.env*', '*.pem', '*.key', 'id_{rsa,dsa,ecdsa,ed25519}*', '*.p12', '*.pfx', '.netrc', '.npmrc', '.pypirc'],
});

export const MAX_PROTECTED_GLOB_CHARS = 500;

/** Why a glob cannot be used in the setting, or undefined when it is fine. */
export function protectedGlobProblem(glob: string): string | undefined {
  if (glob.trim() === '') return 'a glob is empty';
  if (glob.length > MAX_PROTECTED_GLOB_CHARS) return `a glob is longer than ${MAX_PROTECTED_GLOB_CHARS} characters`;
  if (glob.includes('\0')) return `${JSON.stringify(glob)} contains a NUL character`;
  if (glob.includes('\\')) return `${JSON.stringify(glob)} contains '\\'; write paths with '/'`;
  if (glob.startsWith('/') || /^[A-Za-z]:/.test(glob)) return `${JSON.stringify(glob)} is absolute; globs are relative to the workspace folder`;
  if (glob.split('/').includes('..')) return `${JSON.stringify(glob)} contains '..'; globs are relative to the workspace folder`;
  return undefined;
}

/** The spellings of a relative path that are compared with the globs (lower case, NFC). */
export function matchForms(relativePath: string): string[] {
  const plain = relativePath
    .normalize('NFC')
    .toLowerCase()
    .replace(/\\/g, '/')
    .replace(/^(\.\/)+/, '');
  const windows = plain
    .split('/')
    .map((segment) => (segment === '.' || segment === '..' ? segment : segment.replace(/:.*$/, '').replace(/[. ]+$/, '')))
    .join('/');
  return windows === plain ? [plain] : [plain, windows];
}

interface CompiledGlob {
  glob: string;
  test(path: string): boolean;
}

function compileGlob(glob: string): CompiledGlob {
  const lowered = glob
    .normalize('NFC')
    .toLowerCase()
    .replace(/^(\.\/)+/, '');
  const patterns = [lowered];
  if (lowered.endsWith('/**')) patterns.push(lowered.slice(0, -3));
  const regexes = patterns.map((p) => globToRegExp(p));
  const nameOnly = !lowered.includes('/');
  return {
    glob,
    test: (path) => {
      const subject = nameOnly ? path.slice(path.lastIndexOf('/') + 1) : path;
      return regexes.some((regex) => regex.test(subject));
    },
  };
}

export interface ProtectedPathMatcher {
  /** The first glob of the `access` list that matches `relativePath` ('/'-separated), if any. */
  match(access: FileAccessKind, relativePath: string): string | undefined;
}

/** A run's rules are one settings object, compiled by its first batch of calls and reused by the others. */
const compiledRules = new WeakMap<ProtectedPathRules, ProtectedPathMatcher>();

/** Compiles both lists once. Throws on a glob `protectedGlobProblem` refuses (the settings schema refuses them first). */
export function compileProtectedPaths(rules: ProtectedPathRules): ProtectedPathMatcher {
  const known = compiledRules.get(rules);
  if (known) return known;
  const matcher = compileRules(rules);
  compiledRules.set(rules, matcher);
  return matcher;
}

function compileRules(rules: ProtectedPathRules): ProtectedPathMatcher {
  const compiled: Record<FileAccessKind, CompiledGlob[]> = { read: [], write: [] };
  for (const access of ['read', 'write'] as const) {
    for (const glob of rules[access]) {
      const problem = protectedGlobProblem(glob);
      if (problem) throw new Error(`cortex.policy.protectedPaths.${access}: ${problem}`);
      compiled[access].push(compileGlob(glob));
    }
  }
  return {
    match(access, relativePath) {
      if (relativePath === '' || relativePath === '.') return undefined;
      const forms = matchForms(relativePath);
      return compiled[access].find((glob) => forms.some((form) => glob.test(form)))?.glob;
    },
  };
}
