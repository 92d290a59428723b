import path from 'node:path';

// A settings-schema piece: the schema (config) sits below the sandbox that covers these paths
// (docs/design.md, “The core's inner layers”).

/** Why a `cortex.sandbox.hiddenPaths` entry is unusable, or undefined when it is fine. */
export function hiddenPathProblem(entry: string): string | undefined {
  if (entry.startsWith('~/') || path.isAbsolute(entry)) return undefined;
  return 'must be an absolute path or start with ~/';
}
