import type { FlatConfig } from '../config/configSchema';
import { createToolRegistry, readOnlyRegistry, type ToolRegistry } from './toolRegistry';
import type { ToolDefinition } from './toolTypes';
import { createDirectoryTool } from './workspace/createDirectory';
import { editFileTool } from './workspace/editFile';
import { findFilesTool } from './workspace/findFiles';
import { listDirectoryTool } from './workspace/listDirectory';
import { readFileTool } from './workspace/readFile';
import { runCommandTool } from './workspace/runCommand';
import { searchTextTool } from './workspace/searchText';
import { writeFileTool } from './workspace/writeFile';

/** The workspace tools every run gets, in the order the model sees them. */
export const builtinTools: readonly ToolDefinition[] = Object.freeze([
  readFileTool,
  listDirectoryTool,
  findFilesTool,
  searchTextTool,
  writeFileTool,
  editFileTool,
  createDirectoryTool,
  runCommandTool,
] as ToolDefinition[]);

/**
 * The registry of built-in tools (plus `extra` tools) with the configured aliases and normalize
 * fallback. An untrusted workspace gets the read-only view. Throws ToolNameConflictError on conflicts.
 */
export function createBuiltinRegistry(
  config: Pick<FlatConfig, 'cortex.tools.aliases' | 'cortex.tools.normalizeFallback'>,
  options: { trusted?: boolean; extra?: ToolDefinition[] } = {},
): ToolRegistry {
  const registry = createToolRegistry([...builtinTools, ...(options.extra ?? [])], {
    aliases: config['cortex.tools.aliases'],
    normalizeFallback: config['cortex.tools.normalizeFallback'],
  });
  return options.trusted === false ? readOnlyRegistry(registry) : registry;
}
