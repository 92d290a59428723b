import { createHash } from 'node:crypto';
import * as vscode from 'vscode';
import type { McpInput, McpServerSource } from '../core/config/mcpTypes';
import type { InputAsker } from '../core/mcp/serverSources';

// `${input:id}` values (docs/design.md, “MCP tools”): asked once with an input box (hidden for passwords)
// or a quick pick, then kept in VS Code's SecretStorage. The key includes where the input is
// defined (the user setting, or the workspace file's folder), so one repository's `token` is never
// handed to another repository's server.

function secretKey(input: McpInput, source: McpServerSource, folder: string): string {
  const where = source.kind === 'user' ? 'user' : createHash('sha256').update(`${folder}\u0000${source.file}`).digest('hex').slice(0, 16);
  return `cortex.mcp.input.${where}.${input.id}`;
}

export function secretInputAsker(secrets: vscode.SecretStorage, folder: string): InputAsker {
  return async (input, source) => {
    const key = secretKey(input, source, folder);
    const stored = await secrets.get(key);
    if (stored !== undefined) return stored;
    const title = `Cortex: MCP input "${input.id}"`;
    const value =
      input.type === 'pickString'
        ? await vscode.window.showQuickPick(input.options, { title, placeHolder: input.description, ignoreFocusOut: true })
        : await vscode.window.showInputBox({
            title,
            prompt: `${input.description ?? input.id} (kept in VS Code's secret storage)`,
            value: input.default,
            password: input.password === true,
            ignoreFocusOut: true,
          });
    if (value === undefined) return undefined;
    await secrets.store(key, value);
    return value;
  };
}
