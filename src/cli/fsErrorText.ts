// File-system errors in words: a bare code like ENOENT tells a person nothing.

/** "<what> <path> does not exist", "... is not readable", ...; `what` is e.g. "config file". */
export function describeFsError(error: unknown, what: string, path: string): string {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  switch (code) {
    case 'ENOENT':
      return `${what} ${path} does not exist`;
    case 'EACCES':
    case 'EPERM':
      return `${what} ${path} is not accessible (permission denied)`;
    case 'EISDIR':
      return `${what} ${path} is a directory`;
    case 'ENOTDIR':
      return `${what} ${path} is not under a directory (a parent is a file)`;
    default: {
      const message = error instanceof Error ? error.message.replace(/^[A-Z]+: /, '') : String(error);
      return `${what} ${path} cannot be used: ${message}`;
    }
  }
}
