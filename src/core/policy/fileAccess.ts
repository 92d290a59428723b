import type { FileAccessKind } from '../files/protectedPaths';

// A file tool says which paths a call will read or write, so the policy can check them (protected
// paths, hard links, executables) before the call runs, whichever tool it is.

export interface DeclaredFileAccess {
  path: string;
  access: FileAccessKind;
}

/** A tool's declared capability (ToolDefinition has it): which files a call touches. */
export interface FileAccessDeclaration<A = unknown> {
  /** The paths the call with these (validated) arguments reads or writes. */
  fileAccesses?(args: A): DeclaredFileAccess[];
}

/** The accesses `tool` declares for `args`; none for tools that declare nothing or for odd arguments. */
export function declaredFileAccesses(tool: FileAccessDeclaration | undefined, args: unknown): DeclaredFileAccess[] {
  if (!tool?.fileAccesses || !args || typeof args !== 'object') return [];
  try {
    return tool.fileAccesses(args).filter((item) => typeof item.path === 'string' && item.path !== '');
  } catch {
    return [];
  }
}
