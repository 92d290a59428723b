import { ToolError } from './toolError';

// File-system failures turned into sentences for the model (no stack, no errno jargon alone).

/** A ToolError for a Node fs error about `shownPath`; non-fs errors are returned as they are. */
export function describeFsError(error: unknown, shownPath: string): Error {
  if (error instanceof ToolError) return error;
  const code = (error as NodeJS.ErrnoException)?.code;
  switch (code) {
    case 'ENOENT':
      return new ToolError(`'${shownPath}' does not exist`);
    case 'ENOTDIR':
      return new ToolError(`'${shownPath}' (or one of its parent folders) is not a directory`);
    case 'EISDIR':
      return new ToolError(`'${shownPath}' is a directory, not a file`);
    case 'EEXIST':
      return new ToolError(`'${shownPath}' already exists`);
    case 'EACCES':
    case 'EPERM':
      return new ToolError(`Permission denied for '${shownPath}'`);
    case 'ENOSPC':
      return new ToolError(`No space left on the device while writing '${shownPath}'`);
    case 'ELOOP':
      return new ToolError(`'${shownPath}' has too many levels of symbolic links`);
    default:
      return code ? new ToolError(`${code} for '${shownPath}': ${(error as Error).message}`) : (error as Error);
  }
}

/** Runs an fs operation, converting its error with describeFsError. */
export async function withFsErrors<T>(shownPath: string, operation: () => Promise<T>): Promise<T> {
  try {
    return await operation();
  } catch (error) {
    throw describeFsError(error, shownPath);
  }
}
