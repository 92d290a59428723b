import * as vscode from 'vscode';
import { describeServerCommand } from '../core/mcp/definitionHash';
import type { McpServerEntry } from '../core/config/mcpTypes';
import type { ConsentStatus } from './mcpConsentStore';

// The question before a workspace's MCP server may start (docs/design.md, “MCP tools”): the server's
// command line as written in the file, in a modal dialog. "Allow" and "Don't allow" are
// remembered for this exact definition; closing the dialog only skips this run.

export type ConsentAnswer = 'allow' | 'deny' | 'skip';

export async function askServerConsent(name: string, file: string, entry: McpServerEntry, status: ConsentStatus): Promise<ConsentAnswer> {
  const changed = status === 'changed' ? ' Its definition changed since you last answered.' : '';
  const what = entry.type === 'stdio' ? `It runs: ${describeServerCommand(entry)}` : `It connects to: ${describeServerCommand(entry)}`;
  const choice = await vscode.window.showWarningMessage(
    `Allow the MCP server "${name}" from this workspace's ${file} to start?`,
    {
      modal: true,
      detail: `${what}\n\nA repository can name any program here. Allow it only if you trust this workspace's ${file}.${changed} Your answer is remembered for this exact definition.`,
    },
    'Allow',
    "Don't allow",
  );
  if (choice === 'Allow') return 'allow';
  if (choice === "Don't allow") return 'deny';
  return 'skip';
}
