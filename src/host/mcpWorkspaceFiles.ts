import { join } from 'node:path';
import { readRegular } from '../core/files/regularRead';
import { McpConfigFileError, parseMcpConfigFile } from '../core/mcp/mcpConfigFile';
import type { ServerGroup } from '../core/mcp/serverSources';

// The MCP files a workspace folder may bring (docs/design.md, “MCP tools”): VS Code's `.vscode/mcp.json`
// (`servers`) and the `.mcp.json` other agents keep at the root (`mcpServers`). Either shape is
// accepted in either file. Their servers are commands from the repository: they start only after
// the person allowed them. The files are the repository's too: read asynchronously (a workspace can
// be on a slow disk), only as regular files (a FIFO would hang the read, a link could point
// anywhere) and up to MAX_MCP_FILE_BYTES. No `vscode` import (plain Node tests).

export const WORKSPACE_MCP_FILES = ['.vscode/mcp.json', '.mcp.json'] as const;

/** Far more than any real server list. */
export const MAX_MCP_FILE_BYTES = 1024 * 1024;

export interface WorkspaceMcp {
  groups: ServerGroup[];
  /** Files or servers that could not be read, one sentence each. */
  problems: string[];
}

export async function readWorkspaceMcpFiles(folder: string): Promise<WorkspaceMcp> {
  const groups: ServerGroup[] = [];
  const problems: string[] = [];
  for (const relative of WORKSPACE_MCP_FILES) {
    const file = join(folder, relative);
    let text: string;
    try {
      const bytes = await readRegular(file, { what: 'MCP file', maxBytes: MAX_MCP_FILE_BYTES });
      if (bytes === undefined) continue;
      text = bytes.toString('utf8');
    } catch (error) {
      problems.push(`${relative} cannot be read: ${(error as Error).message}`);
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
