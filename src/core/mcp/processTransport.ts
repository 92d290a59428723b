import { spawn, type ChildProcess } from 'node:child_process';
import { ReadBuffer, serializeMessage } from '@modelcontextprotocol/sdk/shared/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { lifetimeSandboxArgs } from '../sandbox/bubblewrap';

// The stdio transport for MCP servers on POSIX systems. It speaks the same newline-delimited
// JSON-RPC as the SDK's StdioClientTransport (and reuses its framing), but starts the server in a
// process group of its own and stops the whole group: a server launched through `npx`, `uvx` or a
// shell script is a tree of processes, and killing only the first one would leave the rest running
// after the run. Stopping is stdin closed → SIGTERM → SIGKILL, each with a short wait. A process
// that leaves the group (`setsid`) escapes that; so where bubblewrap works the server also runs in
// a PID namespace of its own (lifetimeSandboxArgs), which ends with it, whatever it started.

/** A single message larger than this is refused (the connection is closed as broken). */
export const MAX_MESSAGE_BYTES = 32 * 1024 * 1024;
const STDERR_TAIL_CHARS = 2000;
const CLOSE_WAIT_MS = 1000;
const TERM_WAIT_MS = 2000;

export interface ProcessTransportOptions {
  command: string;
  args: string[];
  env: Record<string, string>;
  cwd: string;
  /** bubblewrap, to run the server in its own PID namespace; `command` must then be an absolute path. */
  bwrap?: string;
}

export class ProcessGroupTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  private child?: ChildProcess;
  private readonly buffer = new ReadBuffer({ maxBufferSize: MAX_MESSAGE_BYTES });
  private stderr = '';
  private exited?: Promise<void>;
  /** How the process ended, once it has. */
  exit?: { code: number | null; signal: NodeJS.Signals | null };

  constructor(private readonly options: ProcessTransportOptions) {}

  get pid(): number | undefined {
    return this.child?.pid;
  }

  /** The last lines the server wrote to stderr (for error messages). */
  stderrTail(): string {
    return this.stderr.trim();
  }

  start(): Promise<void> {
    if (this.child) throw new Error('the MCP server process was already started');
    return new Promise((resolve, reject) => {
      const { command, args, bwrap, cwd } = this.options;
      const child = spawn(bwrap ?? command, bwrap ? [...lifetimeSandboxArgs(cwd), command, ...args] : args, {
        cwd: this.options.cwd,
        env: this.options.env,
        stdio: ['pipe', 'pipe', 'pipe'],
        detached: true, // its own process group, so the whole tree can be stopped
        shell: false,
      });
      this.child = child;
      this.exited = new Promise((done) => child.once('close', () => done()));
      child.once('error', (error) => {
        reject(error);
        this.onerror?.(error);
      });
      child.once('spawn', () => resolve());
      child.once('exit', (code, signal) => {
        this.exit = { code, signal };
        this.killGroup('SIGKILL'); // whatever the server left behind goes with it
      });
      child.once('close', () => this.onclose?.());
      child.stdin?.on('error', (error) => this.onerror?.(error));
      child.stdout?.on('data', (chunk: Buffer) => {
        try {
          this.buffer.append(chunk);
          for (let message = this.buffer.readMessage(); message !== null; message = this.buffer.readMessage()) this.onmessage?.(message);
        } catch (error) {
          this.onerror?.(error as Error);
          void this.close();
        }
      });
      child.stderr?.setEncoding('utf8');
      child.stderr?.on('data', (text: string) => {
        this.stderr = (this.stderr + text).slice(-STDERR_TAIL_CHARS);
      });
    });
  }

  send(message: JSONRPCMessage): Promise<void> {
    return new Promise((resolve, reject) => {
      const stdin = this.child?.stdin;
      if (!stdin || stdin.destroyed || this.exit) return reject(new Error('the MCP server process is not running'));
      if (stdin.write(serializeMessage(message))) resolve();
      else stdin.once('drain', resolve);
    });
  }

  private killGroup(signal: NodeJS.Signals): void {
    const pid = this.child?.pid;
    if (pid === undefined) return;
    try {
      process.kill(-pid, signal);
    } catch {
      /* the group is already gone */
    }
  }

  async close(): Promise<void> {
    const child = this.child;
    if (!child || !this.exited) return;
    const wait = (ms: number) => Promise.race([this.exited!, new Promise<void>((resolve) => setTimeout(resolve, ms).unref())]);
    child.stdin?.end();
    if (!this.exit) await wait(CLOSE_WAIT_MS);
    if (!this.exit) {
      this.killGroup('SIGTERM');
      await wait(TERM_WAIT_MS);
    }
    this.killGroup('SIGKILL');
    await wait(CLOSE_WAIT_MS);
    this.buffer.clear();
  }
}
