import { readFile } from 'node:fs/promises';
import type { Resource, ResourceTemplate, Tool } from '@modelcontextprotocol/sdk/types.js';
import { commandEnvironment } from '../sandbox/commandEnvironment';
import { ToolError } from '../tools/toolTypes';
import type { OpenSession } from './connect';
import { errorText } from './errorText';
import { parseEnvFile } from './envFile';
import type { McpServerDefinition } from '../config/mcpTypes';

// One MCP server for the length of one run (docs/design.md, “MCP tools”): started once, its tools listed,
// its calls made with the tool timeout (the SDK sends MCP's cancellation when the call's signal
// aborts), restarted once if it stops, and stopped when the run ends.

export type ServerState = 'not_started' | 'starting' | 'running' | 'crashed' | 'failed' | 'stopped';

export interface ServerReport {
  (level: 'info' | 'warn' | 'error', message: string, data?: Record<string, unknown>): void;
}

export interface ServerConnectionOptions {
  /** The environment Cortex itself runs with; the server gets only its allowlisted part. */
  processEnv: NodeJS.ProcessEnv;
  startTimeoutMs: number;
  /** The run's signal: cancelling the run abandons a start in progress. */
  signal: AbortSignal;
  report: ServerReport;
}

/** How often a server that stopped is started again within one run. */
export const MAX_RESTARTS = 1;
const MAX_LISTED_PAGES = 20;

export class McpServerConnection {
  state: ServerState = 'not_started';
  /** Why the server could not start (state 'failed'). */
  error?: string;
  tools: Tool[] = [];
  /** The resources and resource templates the server listed at start (none unless it has the `resources` capability). */
  resources: Resource[] = [];
  resourceTemplates: ResourceTemplate[] = [];
  restarts = 0;
  private session?: OpenSession;
  private restarting?: Promise<void>;
  /** Pids of every process this connection started (the first and a restarted one). */
  readonly pids: number[] = [];

  constructor(
    readonly definition: McpServerDefinition,
    private readonly options: ServerConnectionOptions,
  ) {}

  get name(): string {
    return this.definition.name;
  }

  get via(): string | undefined {
    return this.session?.via;
  }

  /** Starts the server and lists its tools; on failure the state is 'failed' and `error` says why. */
  async start(): Promise<boolean> {
    this.state = 'starting';
    try {
      await this.open();
      this.tools = await this.listTools();
      await this.listResources();
      this.state = 'running';
      return true;
    } catch (error) {
      this.error = errorText(error);
      this.state = 'failed';
      await this.session?.close();
      this.session = undefined;
      return false;
    }
  }

  private async open(): Promise<void> {
    const { entry } = this.definition;
    const connectOptions = { timeoutMs: this.options.startTimeoutMs, signal: this.options.signal };
    // The MCP SDK is loaded with the first server a run starts, not with every run.
    const { connectHttp, connectStdio } = await import('./connect');
    let session: OpenSession;
    if (entry.type === 'stdio') {
      const fromFile = entry.envFile ? parseEnvFile(await readEnvFile(entry.envFile)) : {};
      // The allowlisted basics (PATH, HOME, locale…) and the server's own variables; never Cortex's API key or tokens.
      const env = { ...commandEnvironment(this.options.processEnv, { passthrough: [], sandboxed: false }), ...fromFile, ...entry.env };
      session = await connectStdio(entry, env, connectOptions);
    } else {
      session = await connectHttp(entry, connectOptions);
    }
    this.session = session;
    if (session.pid !== undefined) this.pids.push(session.pid);
    session.client.onclose = () => {
      if (this.session !== session || this.state === 'stopped') return;
      this.state = 'crashed';
      this.options.report('warn', `MCP server "${this.name}" stopped unexpectedly${session.exitText()}`, { server: this.name, restarts: this.restarts });
    };
  }

  private async listTools(): Promise<Tool[]> {
    const tools: Tool[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < MAX_LISTED_PAGES; page++) {
      const listed = await this.session!.client.listTools(cursor ? { cursor } : undefined, {
        timeout: this.options.startTimeoutMs,
        signal: this.options.signal,
      });
      tools.push(...listed.tools);
      cursor = listed.nextCursor;
      if (!cursor) break;
    }
    return tools;
  }

  /**
   * The server's resources and templates, when it declares the `resources` capability. A server
   * that fails to list them keeps its tools: its resources are simply not offered (a warning says so).
   */
  private async listResources(): Promise<void> {
    const client = this.session!.client;
    if (!client.getServerCapabilities()?.resources) return;
    const options = { timeout: this.options.startTimeoutMs, signal: this.options.signal };
    try {
      let cursor: string | undefined;
      for (let page = 0; page < MAX_LISTED_PAGES; page++) {
        const listed = await client.listResources(cursor ? { cursor } : undefined, options);
        this.resources.push(...listed.resources);
        cursor = listed.nextCursor;
        if (!cursor) break;
      }
      // Templates are optional in the protocol: a server without them answers "method not found".
      const templates = await client.listResourceTemplates(undefined, options).catch(() => undefined);
      this.resourceTemplates = templates?.resourceTemplates ?? [];
    } catch (error) {
      this.resources = [];
      this.options.report('warn', `MCP server "${this.name}" declares resources but could not list them: ${errorText(error)}. Its resources are not offered.`, {
        server: this.name,
      });
    }
  }

  /** Starts a stopped server again, once per run; concurrent callers share the attempt. */
  private async ensureRunning(): Promise<void> {
    if (this.state === 'running') return;
    if (this.state === 'stopped') throw new ToolError(`MCP server "${this.name}" was stopped because the run ended`);
    if (this.state !== 'crashed') throw new ToolError(`MCP server "${this.name}" is not running`);
    if (!this.restarting) {
      if (this.restarts >= MAX_RESTARTS)
        throw new ToolError(`MCP server "${this.name}" stopped again after its restart; its tools cannot be used for the rest of this run`);
      this.restarts++;
      this.options.report('info', `Restarting MCP server "${this.name}" (restart ${this.restarts} of ${MAX_RESTARTS})`, { server: this.name });
      this.restarting = (async () => {
        await this.session?.close();
        try {
          await this.open();
          this.state = 'running';
        } catch (error) {
          this.state = 'failed';
          this.error = errorText(error);
          this.options.report('warn', `MCP server "${this.name}" could not be restarted: ${this.error}`, { server: this.name });
        }
      })().finally(() => (this.restarting = undefined));
    }
    await this.restarting;
    if ((this.state as ServerState) !== 'running') throw new ToolError(`MCP server "${this.name}" could not be restarted: ${this.error}`);
  }

  /** Calls one tool. The SDK's own timeout is set past `timeoutMs`, so the caller's signal decides. */
  async callTool(tool: string, args: Record<string, unknown>, options: { signal: AbortSignal; timeoutMs: number }): Promise<unknown> {
    await this.ensureRunning();
    const session = this.session!;
    try {
      return await session.client.callTool({ name: tool, arguments: args }, undefined, { signal: options.signal, timeout: options.timeoutMs + 1000 });
    } catch (error) {
      if (options.signal.aborted) throw error; // the executor reports the timeout or the cancel
      if (this.session !== session || this.state !== 'running') {
        const restart = this.restarts < MAX_RESTARTS ? '; it will be restarted for later calls' : '';
        throw new ToolError(`MCP server "${this.name}" stopped during the call${session.exitText()}${restart}`);
      }
      throw new ToolError(`MCP server "${this.name}" refused the call: ${errorText(error)}`);
    }
  }

  /** Reads one resource (`resources/read`), with the same timeout and restart rules as a tool call. */
  async readResource(uri: string, options: { signal: AbortSignal; timeoutMs: number }): Promise<unknown> {
    await this.ensureRunning();
    const session = this.session!;
    try {
      return await session.client.readResource({ uri }, { signal: options.signal, timeout: options.timeoutMs + 1000 });
    } catch (error) {
      if (options.signal.aborted) throw error;
      if (this.session !== session || this.state !== 'running') throw new ToolError(`MCP server "${this.name}" stopped during the read${session.exitText()}`);
      throw new ToolError(`MCP server "${this.name}" could not read ${uri}: ${errorText(error)}`);
    }
  }

  /** Ends the session and stops the server's processes. Safe to call more than once. */
  async stop(): Promise<void> {
    if (this.state === 'stopped') return;
    this.state = 'stopped';
    await this.restarting?.catch(() => undefined);
    await this.session?.close();
  }
}

async function readEnvFile(file: string): Promise<string> {
  try {
    return await readFile(file, 'utf8');
  } catch (error) {
    throw new Error(`its envFile ${file} cannot be read: ${errorText(error)}`, { cause: error });
  }
}
