import * as vscode from 'vscode';
import type { FlatConfig } from '../core/config/configSchema';
import { describeServerCommand } from '../core/mcp/definitionHash';
import { describeSource } from '../core/mcp/serverSources';
import { McpServerConnection } from '../core/mcp/serverConnection';
import { mcpToolName } from '../core/mcp/toolNames';
import type { Logger } from '../core/ports';
import type { ConfiguredServer, McpHostServers } from './mcpRunServers';

// "Cortex: MCP servers": every configured server with its source and state, found by starting it
// briefly (tools listed, then stopped). A workspace server that is not allowed yet is not started;
// picking it asks. Picking a started server lists its tools.

interface ServerItem extends vscode.QuickPickItem {
  server: ConfiguredServer;
  tools?: Array<{ name: string; description?: string }>;
}

const STATE_ICON = { running: '$(pass-filled)', failed: '$(error)', blocked: '$(shield)', starting: '$(loading~spin)' } as const;

export async function showMcpServers(host: McpHostServers, folder: vscode.WorkspaceFolder, config: FlatConfig, logger: Logger): Promise<void> {
  const { servers, problems } = await host.configured(folder.uri.fsPath, config);
  for (const problem of problems) void vscode.window.showWarningMessage(`Cortex MCP configuration: ${problem}`);
  if (servers.length === 0) {
    void vscode.window.showInformationMessage(
      "No MCP servers are configured: add them to the cortex.mcp.servers setting or to the workspace's .vscode/mcp.json.",
    );
    return;
  }
  const pick = vscode.window.createQuickPick<ServerItem>();
  pick.title = 'Cortex: MCP servers';
  pick.placeholder = 'Pick a server to see its tools (or to allow a workspace server)';
  pick.matchOnDetail = true;
  const items = new Map<string, ServerItem>();
  const show = (server: ConfiguredServer, state: keyof typeof STATE_ICON, note: string, tools?: ServerItem['tools']) => {
    items.set(server.name, {
      server,
      tools,
      label: `${STATE_ICON[state]} ${server.name}`,
      description: `${note} · ${describeSource(server.group.source)}`,
      detail: tools && tools.length > 0 ? tools.map((t) => t.name).join(', ') : describeServerCommand(server.entry),
    });
    pick.items = servers.map((s) => items.get(s.name)!).filter(Boolean);
  };
  const probeAll = async () => {
    pick.busy = true;
    await Promise.all(
      servers.map((server) =>
        probe(host, folder.uri.fsPath, server, config, show, logger).catch((error: unknown) => {
          logger.error(`Cortex: MCP servers: probing "${server.name}" failed: ${(error as Error).stack ?? String(error)}`);
          show(server, 'failed', `could not be checked: ${(error as Error).message}`);
        }),
      ),
    );
    pick.busy = false;
  };
  pick.onDidAccept(async () => {
    const item = pick.selectedItems[0];
    if (!item) return;
    if (host.consentOf(item.server) !== 'allowed') {
      pick.hide();
      if ((await host.ask(item.server)) === 'allowed') await showMcpServers(host, folder, config, logger);
      return;
    }
    if (item.tools) {
      pick.hide();
      await vscode.window.showQuickPick(
        item.tools.map((tool) => ({ label: mcpToolName(item.server.name, tool.name), detail: tool.description })),
        { title: `Cortex: tools of MCP server "${item.server.name}"`, matchOnDetail: true },
      );
    }
  });
  pick.onDidHide(() => pick.dispose());
  for (const server of servers) show(server, 'starting', 'starting…');
  pick.show();
  await probeAll();
}

async function probe(
  host: McpHostServers,
  folder: string,
  server: ConfiguredServer,
  config: FlatConfig,
  show: (server: ConfiguredServer, state: keyof typeof STATE_ICON, note: string, tools?: ServerItem['tools']) => void,
  logger: Logger,
): Promise<void> {
  if (!vscode.workspace.isTrusted) return show(server, 'blocked', 'not started in Restricted Mode');
  const consent = host.consentOf(server);
  if (consent !== 'allowed')
    return show(
      server,
      'blocked',
      consent === 'denied'
        ? 'not allowed for this workspace (pick to change)'
        : consent === 'changed'
          ? 'definition changed: pick to allow again'
          : 'not allowed yet: pick to allow',
    );
  const { definitions, problems } = await host.resolve(folder, [server]);
  if (definitions.length === 0) return show(server, 'failed', problems[0] ?? 'could not be prepared');
  const connection = new McpServerConnection(definitions[0], {
    processEnv: process.env,
    startTimeoutMs: config['cortex.mcp.startTimeoutSeconds'] * 1000,
    signal: new AbortController().signal,
    report: (level, message) => logger[level](message),
  });
  logger.info(`Cortex: MCP servers: starting "${server.name}" to list its tools`);
  try {
    const started = await connection.start();
    logger.info(`Cortex: MCP servers: "${server.name}" ${started ? `started with ${connection.tools.length} tool(s)` : `failed: ${connection.error ?? ''}`}`);
    if (started)
      show(
        server,
        'running',
        `${connection.via} · ${connection.tools.length} tool(s)`,
        connection.tools.map((t) => ({ name: t.name, description: t.description })),
      );
    else show(server, 'failed', `could not start: ${connection.error ?? 'unknown error'}`);
  } finally {
    await connection.stop();
  }
}
