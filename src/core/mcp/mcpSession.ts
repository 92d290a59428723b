import type { EventLog } from '../plan/eventLog';
import { mcpToolDefinitions, type McpToolDefinition } from './mcpTools';
import { mcpResourceTool } from './resourceTool';
import type { McpServerDefinition } from '../config/mcpTypes';
import { McpServerConnection } from './serverConnection';
import { mcpNameConflicts } from './toolNames';

// The MCP servers of one run (docs/design.md, “MCP tools”): all started at once before planning, each
// failure a warning that names the server (the run goes on without its tools), every tool name
// checked against the native tools and the other servers' tools, and every server stopped when the
// run ends. Each of these is a `log` event in the run's trace.

export class McpToolConflictError extends Error {
  constructor(readonly conflicts: string[]) {
    super(`MCP tool names clash: ${conflicts.join('; ')}`);
    this.name = 'McpToolConflictError';
  }
}

export interface McpSessionOptions {
  log: EventLog;
  processEnv: NodeJS.ProcessEnv;
  startTimeoutMs: number;
  signal: AbortSignal;
  /** The native tools' names (MCP names must not clash with them). */
  nativeNames: readonly string[];
  normalizeFallback: boolean;
}

export class McpSession {
  private constructor(
    readonly connections: McpServerConnection[],
    private readonly log: EventLog,
  ) {}

  /**
   * Starts every server and returns the session with the tools of those that started. Throws
   * McpToolConflictError (after stopping them all) when two tool names clash.
   */
  static async start(definitions: readonly McpServerDefinition[], options: McpSessionOptions): Promise<{ session: McpSession; tools: McpToolDefinition[] }> {
    const { log } = options;
    const report = (level: 'info' | 'warn' | 'error', message: string, data?: Record<string, unknown>) =>
      log.append({ type: 'log', level, message, ...(data ? { data } : {}) });
    const connections = definitions.map(
      (definition) =>
        new McpServerConnection(definition, { processEnv: options.processEnv, startTimeoutMs: options.startTimeoutMs, signal: options.signal, report }),
    );
    const session = new McpSession(connections, log);
    await Promise.all(connections.map((connection) => connection.start()));
    const tools: McpToolDefinition[] = [];
    for (const connection of connections) {
      const server = connection.name;
      if (connection.state !== 'running') {
        report('warn', `MCP server "${server}" could not start: ${connection.error ?? 'unknown error'}. The run continues without its tools.`, {
          server,
          error: connection.error,
        });
        continue;
      }
      // A server with resources also gets its read_resource tool (docs/design.md, “MCP tools”).
      const resourceTool = mcpResourceTool(connection);
      const defined = [...mcpToolDefinitions(connection, resourceTool?.name), ...(resourceTool ? [resourceTool] : [])];
      tools.push(...defined);
      const pid = connection.pids[0];
      report('info', `MCP server "${server}" started (${connection.via}${pid !== undefined ? `, pid ${pid}` : ''}) with ${defined.length} tool(s)`, {
        server,
        transport: connection.via,
        ...(pid !== undefined ? { pid } : {}),
        tools: defined.map((tool) => tool.name),
        ...(resourceTool ? { resources: connection.resources.length, resourceTemplates: connection.resourceTemplates.length } : {}),
      });
    }
    const conflicts = mcpNameConflicts(
      options.nativeNames,
      tools.map((tool) => ({ name: tool.name, origin: tool.origin })),
      options.normalizeFallback,
    );
    if (conflicts.length > 0) {
      await session.stop();
      throw new McpToolConflictError(conflicts);
    }
    return { session, tools };
  }

  /** State of each server, for the trace and the host. */
  states(): Array<{ server: string; state: string; tools: number; restarts: number; error?: string }> {
    return this.connections.map((c) => ({
      server: c.name,
      state: c.state,
      tools: c.tools.length,
      restarts: c.restarts,
      ...(c.error ? { error: c.error } : {}),
    }));
  }

  /** Stops every server (and its processes). Safe to call more than once. */
  async stop(): Promise<void> {
    const started = this.connections.filter((c) => c.pids.length > 0 || c.via !== undefined);
    const running = this.connections.filter((c) => c.state !== 'stopped' && c.state !== 'not_started');
    await Promise.all(this.connections.map((connection) => connection.stop()));
    if (running.length > 0 && started.length > 0) {
      this.log.append({
        type: 'log',
        level: 'info',
        message: `Stopped MCP server(s): ${started.map((c) => c.name).join(', ')}`,
        data: { servers: started.map((c) => ({ server: c.name, pids: c.pids, restarts: c.restarts })) },
      });
    }
  }
}
