import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { McpConfigFileError, parseMcpConfigFile } from '../core/mcp/mcpConfigFile';
import type { ServerGroup } from '../core/mcp/serverSources';

// The MCP files a workspace folder may bring (docs/design.md, “MCP tools”): VS Code's `.vscode/mcp.json`
// (`servers`) and the `.mcp.json` other agents keep at the root (`mcpServers`). Either shape is
// accepted in either file. Their servers are commands from the repository: they start only after
// the person allowed them. No `vscode` import (plain Node tests).

export const WORKSPACE_MCP_FILES = ['.vscode/mcp.json', '.mcp.json'] as const;

export interface WorkspaceMcp {
  groups: ServerGroup[];
  /** Files or servers that could not be read, one sentence each. */
  problems: string[];
}

export function readWorkspaceMcpFiles(folder: string): WorkspaceMcp {
  const groups: ServerGroup[] = [];
  const problems: string[] = [];
  for (const relative of WORKSPACE_MCP_FILES) {
    const file = join(folder, relative);
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') problems.push(`${relative} cannot be read: ${(error as Error).message}`);
      continue;
    }
    try {
      const parsed = parseMcpConfigFile(text, relative);
      problems.push(...parsed.problems.map((problem) => `${relative}: ${problem}`));
      groups.push({ source: { kind: 'workspace', file: relative }, servers: parsed.servers, inputs: parsed.inputs });
    } catch (error) {
      if (!(error instanceof McpConfigFileError)) throw error;
      problems.push(error.message);
    }
  }
  return { groups, problems };
}
