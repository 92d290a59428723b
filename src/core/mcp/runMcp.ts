import type { FlatConfig } from '../config/configSchema';
import type { EventLog } from '../plan/eventLog';
import { builtinTools } from '../tools/workspace/builtinTools';
import type { ToolDefinition } from '../tools/toolTypes';
import type { McpSession } from './mcpSession';
import type { McpServerDefinition } from '../config/mcpTypes';

// What a run does with its MCP servers before planning (docs/design.md, “MCP tools”): the host's notices
// (servers it did not start, and why) go to the trace; in Restricted Mode nothing starts; else
// every server starts and its tools join the run's registry.

export interface RunMcpOptions {
  servers: readonly McpServerDefinition[];
  notices: readonly string[];
  trusted: boolean;
  config: FlatConfig;
  log: EventLog;
  signal: AbortSignal;
  processEnv: NodeJS.ProcessEnv;
}

export async function startRunMcp(options: RunMcpOptions): Promise<{ session?: McpSession; tools: ToolDefinition[] }> {
  const { log, servers, config } = options;
  for (const notice of options.notices) log.append({ type: 'log', level: 'warn', message: notice });
  if (servers.length === 0) return { tools: [] };
  if (!options.trusted) {
    log.append({
      type: 'log',
      level: 'warn',
      message: `MCP servers are not started in Restricted Mode: ${servers.map((s) => s.name).join(', ')}`,
      data: { servers: servers.map((s) => s.name) },
    });
    return { tools: [] };
  }
  // The MCP client (its SDK, transports and schema validators) loads only for a run that has servers.
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded on demand
  const { McpSession: Session } = require('./mcpSession') as typeof import('./mcpSession');
  return Session.start(servers, {
    log,
    processEnv: options.processEnv,
    startTimeoutMs: config['cortex.mcp.startTimeoutSeconds'] * 1000,
    signal: options.signal,
    nativeNames: builtinTools.map((tool) => tool.name),
    normalizeFallback: config['cortex.tools.normalizeFallback'],
  });
}
