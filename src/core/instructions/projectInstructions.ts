import { realpath } from 'node:fs/promises';
import { isAbsolute, join, normalize, relative, sep } from 'node:path';
import { formatBytes, readRegular } from '../files/regularRead';
import type { ProtectedPathMatcher } from '../files/protectedPaths';

// The project's own agent instructions (AGENTS.md, .github/copilot-instructions.md, CLAUDE.md) are
// workspace files, so they are read like any input an attacker may have written (docs/design.md,
// “Project instructions”): only in a trusted workspace, only regular files (never a FIFO or a
// link), only inside the workspace (a parent folder that is a link out of it is refused), never a
// path the read protection covers, and each under a size cap.

/** Largest instructions file read; a bigger one is skipped with a warning. */
export const MAX_INSTRUCTIONS_FILE_BYTES = 32 * 1024;
/** Largest total of all instructions files; files past it are skipped with a warning. */
export const MAX_INSTRUCTIONS_TOTAL_BYTES = 64 * 1024;

/** The files read by default, in this order. */
export { DEFAULT_INSTRUCTIONS_FILES } from '../config/instructionsFiles';

export interface InstructionsFile {
  /** Workspace-relative, '/'-separated, as configured. */
  path: string;
  text: string;
  bytes: number;
}

export interface ProjectInstructions {
  files: InstructionsFile[];
  /** One sentence per file that exists but was not used. */
  warnings: string[];
}

/**
 * Reads the configured instructions files in order. Missing files are silently absent (most
 * projects have one or none); every other reason a file is not used is a warning naming it.
 */
export async function loadProjectInstructions(
  workspaceRoot: string,
  paths: readonly string[],
  protectedPaths?: ProtectedPathMatcher,
): Promise<ProjectInstructions> {
  const result: ProjectInstructions = { files: [], warnings: [] };
  if (paths.length === 0) return result;
  const realRoot = await realpath(workspaceRoot);
  let total = 0;
  for (const configured of paths) {
    const path = configured.replaceAll('\\', '/');
    const problem =
      pathProblem(path) ??
      (protectedPaths?.match('read', normalize(path).split(sep).join('/')) !== undefined
        ? 'it is a protected path (cortex.policy.protectedPaths read)'
        : undefined);
    if (problem) {
      result.warnings.push(`Project instructions file ${configured} not read: ${problem}`);
      continue;
    }
    try {
      const file = await readInside(realRoot, path);
      if (file === undefined) continue;
      if (total + file.length > MAX_INSTRUCTIONS_TOTAL_BYTES) {
        result.warnings.push(
          `Project instructions file ${path} not read: the instructions files together may hold at most ${formatBytes(MAX_INSTRUCTIONS_TOTAL_BYTES)}`,
        );
        continue;
      }
      total += file.length;
      result.files.push({ path, text: file.toString('utf8'), bytes: file.length });
    } catch (error) {
      result.warnings.push(`Project instructions file ${path} not read: ${(error as Error).message}`);
    }
  }
  return result;
}

function pathProblem(path: string): string | undefined {
  if (path.trim() === '') return 'an empty path';
  if (isAbsolute(path) || /^[a-zA-Z]:/.test(path)) return 'it must be a path relative to the workspace folder';
  if (normalize(path).split(sep).includes('..')) return 'it is outside the workspace folder';
  return undefined;
}

/** The file's bytes, undefined when it or its folder does not exist; throws when it may not be read. */
async function readInside(realRoot: string, path: string): Promise<Buffer | undefined> {
  const parts = path.split('/').filter((part) => part !== '' && part !== '.');
  const name = parts.pop();
  if (!name) return undefined;
  let realDir: string;
  try {
    realDir = await realpath(join(realRoot, ...parts));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT' || (error as NodeJS.ErrnoException).code === 'ENOTDIR') return undefined;
    throw error;
  }
  const inside = relative(realRoot, realDir);
  if (inside.startsWith('..') || isAbsolute(inside)) throw new Error('its folder is a link to outside the workspace folder');
  return readRegular(join(realDir, name), { what: 'project instructions file', maxBytes: MAX_INSTRUCTIONS_FILE_BYTES });
}
