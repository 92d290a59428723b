import { spawn } from 'node:child_process';

// Starts one process (no shell of its own: the caller chooses `/bin/sh -c`, a literal program, or
// bwrap wrapping either), captures stdout and stderr interleaved with a memory bound, and kills
// its whole process group on timeout or abort. Under the sandbox, killing bwrap ends its PID
// namespace, so children that left the group (`setsid`) die too.

/** Captured output beyond head + tail of this size each is dropped while running (memory bound). */
const CAPTURE_BYTES = 512 * 1024;
/** After the process exits, wait this long for pipes held by stray children before answering. */
const CLOSE_GRACE_MS = 1000;

/** Keeps the first and last `limit` bytes of a stream of chunks. */
export class HeadTailCapture {
  private head: Buffer[] = [];
  private headBytes = 0;
  private tail: Buffer[] = [];
  private tailBytes = 0;
  private dropped = 0;

  constructor(private readonly limit: number) {}

  push(chunk: Buffer): void {
    if (this.headBytes < this.limit) {
      const take = chunk.subarray(0, this.limit - this.headBytes);
      this.head.push(take);
      this.headBytes += take.length;
      chunk = chunk.subarray(take.length);
    }
    if (chunk.length === 0) return;
    this.tail.push(chunk);
    this.tailBytes += chunk.length;
    while (this.tailBytes - this.tail[0].length >= this.limit) {
      this.tailBytes -= this.tail[0].length;
      this.dropped += this.tail.shift()!.length;
    }
  }

  text(): string {
    const middle = this.dropped > 0 ? `\n[... ${this.dropped} bytes of output dropped ...]\n` : '';
    return Buffer.concat(this.head).toString('utf8') + middle + Buffer.concat(this.tail).toString('utf8');
  }
}

function killGroup(pid: number | undefined): void {
  if (pid === undefined) return;
  try {
    if (process.platform === 'win32') spawn('taskkill', ['/pid', String(pid), '/T', '/F'], { stdio: 'ignore' });
    else process.kill(-pid, 'SIGKILL');
  } catch {
    // already gone
  }
}

export interface ProcessSpec {
  file: string;
  args: readonly string[];
  cwd: string;
  env: Record<string, string>;
  timeoutMs: number;
  signal: AbortSignal;
  /** Capture stdout only (for output that is parsed); stderr is discarded. */
  stdoutOnly?: boolean;
}

export interface CommandResult {
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  output: string;
  timedOut: boolean;
  cancelled: boolean;
  durationMs: number;
}

/** Runs `spec.file` with `spec.args` (never through a shell), stdout and stderr interleaved. */
export function runProcess(spec: ProcessSpec): Promise<CommandResult> {
  const started = Date.now();
  const { signal } = spec;
  return new Promise((resolve) => {
    const capture = new HeadTailCapture(CAPTURE_BYTES);
    const isWindows = process.platform === 'win32';
    const child = spawn(spec.file, [...spec.args], {
      cwd: spec.cwd,
      detached: !isWindows, // own process group, so the whole tree can be killed
      stdio: ['ignore', 'pipe', spec.stdoutOnly ? 'ignore' : 'pipe'],
      windowsHide: true,
      shell: false,
      env: spec.env,
    });
    let timedOut = false;
    let cancelled = false;
    let exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
    let done = false;
    const finish = (code: number | null, exitSignal: NodeJS.Signals | null) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      clearTimeout(grace);
      signal.removeEventListener('abort', onAbort);
      resolve({ exitCode: code, signal: exitSignal, output: capture.text(), timedOut, cancelled, durationMs: Date.now() - started });
    };
    const onAbort = () => {
      const reason = signal.reason as { name?: string } | undefined;
      if (reason?.name === 'TimeoutError') timedOut = true;
      else cancelled = true;
      killGroup(child.pid);
    };
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup(child.pid);
    }, spec.timeoutMs);
    let grace: NodeJS.Timeout | undefined;
    child.stdout?.on('data', (chunk: Buffer) => capture.push(chunk));
    child.stderr?.on('data', (chunk: Buffer) => capture.push(chunk));
    child.on('error', (error) => {
      capture.push(Buffer.from(`Could not start the command: ${error.message}\n`));
      finish(null, null);
    });
    child.on('exit', (code, exitSignal) => {
      exit = { code, signal: exitSignal };
      // Children that outlive the main process may hold the pipes open; do not wait on them forever.
      killGroup(child.pid);
      grace = setTimeout(() => finish(code, exitSignal), CLOSE_GRACE_MS);
    });
    child.on('close', (code, exitSignal) => finish(exit?.code ?? code, exit?.signal ?? exitSignal));
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
  });
}
