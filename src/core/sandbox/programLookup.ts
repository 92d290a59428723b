import { constants } from 'node:fs';
import { access, realpath, stat } from 'node:fs/promises';
import path from 'node:path';
import { isInside } from '../files/workspaceJail';
import { sanitizedPath, trustedPathEntries } from './commandEnvironment';

// Finds the file a literal command runs, the way execvp would but on our terms: a name with a slash
// is taken relative to the working folder (as a shell would); a bare name is looked up in the PATH
// entries outside the workspace only, so a file named `git` or `ls` that the workspace brings along
// (or a `.` in PATH) can never stand in for the real program.

async function isExecutableFile(file: string): Promise<boolean> {
  try {
    if (!(await stat(file)).isFile()) return false;
    if (process.platform === 'win32') return true;
    await access(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

export interface ProgramLookup {
  /** PATH value of the command's environment. */
  pathValue: string | undefined;
  cwd: string;
  realRoot: string;
  /** Auto-approved commands: skip PATH entries and programs inside the workspace. */
  outsideWorkspaceOnly: boolean;
}

/** The absolute path of `name`, or undefined when no such program is found. */
export async function findProgram(name: string, options: ProgramLookup): Promise<string | undefined> {
  const extensions = process.platform === 'win32' && !path.extname(name) ? (process.env.PATHEXT ?? '.EXE;.CMD;.BAT;.COM').split(';') : [''];
  const candidates: string[] = [];
  if (name.includes('/') || (process.platform === 'win32' && name.includes('\\'))) {
    candidates.push(...extensions.map((extension) => path.resolve(options.cwd, name + extension)));
  } else {
    const entries = options.outsideWorkspaceOnly ? trustedPathEntries(options.pathValue, options.realRoot) : sanitizedPath(options.pathValue).split(':');
    for (const entry of entries) candidates.push(...extensions.map((extension) => path.join(entry, name + extension)));
  }
  for (const candidate of candidates) {
    if (!(await isExecutableFile(candidate))) continue;
    if (options.outsideWorkspaceOnly && isInside(options.realRoot, await realpath(candidate))) continue;
    return candidate;
  }
  return undefined;
}
