import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import type { HttpServerEntry, StdioServerEntry } from '../config/mcpTypes';
import { errorText } from './errorText';
import { ProcessGroupTransport } from './processTransport';
import { probeSandbox } from '../sandbox/bubblewrap';
import { findProgram } from '../sandbox/programLookup';

// Opening one MCP session with the official SDK client: stdio (a child process in its own process
// group on POSIX, the SDK's transport on Windows), Streamable HTTP, or SSE. A URL server that does
// not speak Streamable HTTP is tried again with the older SSE transport, as the MCP specification
// recommends for backwards compatibility.

const CLIENT_INFO = { name: 'cortex', version: '0.1.0' };

export interface OpenSession {
  client: Client;
  transport: Transport;
  /** The transport that worked. */
  via: 'stdio' | 'http' | 'sse';
  pid?: number;
  /** How the server process ended and what it last wrote to stderr, for messages (stdio only). */
  exitText(): string;
  /** Ends the session and, for stdio, stops the server's processes. */
  close(): Promise<void>;
}

export interface ConnectOptions {
  /** The initialize handshake must finish within this time. */
  timeoutMs: number;
  signal: AbortSignal;
}

function newClient(): Client {
  // No sampling, elicitation or roots: Cortex never lets a server call back into the model or the person.
  return new Client(CLIENT_INFO, { capabilities: {} });
}

async function closeQuietly(client: Client): Promise<void> {
  try {
    await client.close();
  } catch {
    /* already closed */
  }
}

function describeExit(transport: ProcessGroupTransport | StdioClientTransport): string {
  if (!(transport instanceof ProcessGroupTransport)) return '';
  const exit = transport.exit;
  const how = exit ? (exit.signal ? ` (killed by ${exit.signal})` : ` (exit code ${exit.code})`) : '';
  return `${how}${stderrText(transport)}`;
}

function stderrText(transport: ProcessGroupTransport | StdioClientTransport): string {
  if (!(transport instanceof ProcessGroupTransport)) return '';
  const stderr = transport.stderrTail();
  return stderr ? `: ${stderr.split('\n').slice(-3).join(' | ').slice(-400)}` : '';
}

function isHandshakeTimeout(error: unknown): boolean {
  return error instanceof McpError && error.code === (ErrorCode.RequestTimeout as number);
}

/** The sentence for a server that did not answer the handshake in time (first npx/uvx/docker runs often take long). */
export function handshakeTimeoutText(timeoutMs: number): string {
  return `timed out after ${Math.round(timeoutMs / 1000)} s waiting for the MCP handshake; raise cortex.mcp.startTimeoutSeconds if the server needs longer to start (a first npx, uvx or docker run downloads it)`;
}

/**
 * Where bubblewrap works, the server runs in its own PID namespace (its `setsid` children end with
 * it); the program is then found here, so that a missing one is said as plainly as without it.
 */
async function lifetimeSandbox(entry: StdioServerEntry, env: Record<string, string>, cwd: string): Promise<{ bwrap: string; command: string } | undefined> {
  if (process.platform !== 'linux') return undefined;
  const probe = await probeSandbox();
  if (!probe.available) return undefined;
  const command = await findProgram(entry.command, { pathValue: env.PATH, cwd, realRoot: cwd, outsideWorkspaceOnly: false });
  if (!command) throw Object.assign(new Error(`spawn ${entry.command} ENOENT`), { code: 'ENOENT' });
  return { bwrap: probe.bwrap, command };
}

/** Starts a stdio server with the given (already scrubbed) environment and opens its session. */
export async function connectStdio(entry: StdioServerEntry, env: Record<string, string>, options: ConnectOptions): Promise<OpenSession> {
  const cwd = entry.cwd ?? process.cwd();
  let sandbox;
  try {
    sandbox = await lifetimeSandbox(entry, env, cwd);
  } catch (error) {
    throw new Error(startErrorText(error, entry.command), { cause: error });
  }
  const transport =
    process.platform === 'win32'
      ? new StdioClientTransport({ command: entry.command, args: entry.args, env, cwd, stderr: 'ignore' })
      : new ProcessGroupTransport({ command: sandbox?.command ?? entry.command, args: entry.args, env, cwd, bwrap: sandbox?.bwrap });
  const client = newClient();
  try {
    await client.connect(transport, { timeout: options.timeoutMs, signal: options.signal });
  } catch (error) {
    // Decided before closing: closing stops the server, which would then look like its own exit.
    const timedOut = isHandshakeTimeout(error);
    const exited = !timedOut && transport instanceof ProcessGroupTransport && transport.exit !== undefined;
    await closeQuietly(client);
    if (timedOut) throw new Error(`${handshakeTimeoutText(options.timeoutMs)}${stderrText(transport)}`, { cause: error });
    const reason = exited ? 'the server exited before it completed the MCP handshake' : startErrorText(error, entry.command);
    throw new Error(`${reason}${describeExit(transport)}`, { cause: error });
  }
  return { client, transport, via: 'stdio', pid: transport.pid ?? undefined, exitText: () => describeExit(transport), close: () => closeQuietly(client) };
}

function startErrorText(error: unknown, command: string): string {
  const code = (error as NodeJS.ErrnoException)?.code;
  if (code === 'ENOENT') return `the command "${command}" was not found`;
  if (code === 'EACCES') return `the command "${command}" cannot be run (permission denied)`;
  return errorText(error);
}

async function connectWith(make: () => Transport, via: 'http' | 'sse', options: ConnectOptions): Promise<OpenSession> {
  const client = newClient();
  const transport = make();
  try {
    await client.connect(transport, { timeout: options.timeoutMs, signal: options.signal });
  } catch (error) {
    await closeQuietly(client);
    if (isHandshakeTimeout(error)) throw new Error(handshakeTimeoutText(options.timeoutMs), { cause: error });
    throw error;
  }
  const close = async () => {
    // Ask the server to end the session (Streamable HTTP), then close; neither may hold up the run.
    if (transport instanceof StreamableHTTPClientTransport)
      await Promise.race([transport.terminateSession().catch(() => undefined), new Promise((r) => setTimeout(r, 1000).unref())]);
    await closeQuietly(client);
  };
  return { client, transport, via, exitText: () => '', close };
}

/** Opens a session with a URL server: Streamable HTTP first, then SSE (or SSE only for `type: "sse"`). */
export async function connectHttp(entry: HttpServerEntry, options: ConnectOptions): Promise<OpenSession> {
  const url = new URL(entry.url);
  const requestInit = { headers: entry.headers };
  const sse = () => connectWith(() => new SSEClientTransport(url, { requestInit }), 'sse', options);
  if (entry.type === 'sse') return sse();
  try {
    return await connectWith(() => new StreamableHTTPClientTransport(url, { requestInit }), 'http', options);
  } catch (httpError) {
    if (options.signal.aborted) throw httpError;
    try {
      return await sse();
    } catch (sseError) {
      throw new Error(`neither Streamable HTTP (${errorText(httpError)}) nor SSE (${errorText(sseError)}) worked at ${entry.url}`, { cause: sseError });
    }
  }
}
