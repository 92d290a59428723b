import type { FileAccessKind } from '../files/protectedPaths';

// A file tool says which paths a call will read or write, so the policy can check them (protected
// paths, hard links, executables) before the call runs, whichever tool it is.

export interface DeclaredFileAccess {
  path: string;
  access: FileAccessKind;
}

export interface FileAccessDeclaration<A> {
  /** The paths the call with these (validated) arguments reads or writes. */
  fileAccesses(args: A): DeclaredFileAccess[];
}

/** The accesses `tool` declares for `args`; none for tools that declare nothing or for odd arguments. */
export function declaredFileAccesses(tool: unknown, args: unknown): DeclaredFileAccess[] {
  const declare = (tool as Partial<FileAccessDeclaration<unknown>> | undefined)?.fileAccesses;
  if (typeof declare !== 'function' || !args || typeof args !== 'object') return [];
  try {
    return declare(args).filter((item) => typeof item.path === 'string' && item.path !== '');
  } catch {
    return [];
  }
}
