import type { FlatConfig } from '../../config/configSchema';
import { createToolRegistry, readOnlyRegistry, type ToolRegistry } from '../toolRegistry';
import type { ToolDefinition } from '../toolTypes';
import { createDirectoryTool } from './createDirectory';
import { editFileTool } from './editFile';
import { findFilesTool } from './findFiles';
import { listDirectoryTool } from './listDirectory';
import { readFileTool } from './readFile';
import { runCommandTool } from './runCommand';
import { searchTextTool } from './searchText';
import { writeFileTool } from './writeFile';

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
