import { prepareToolOutput } from './outputCap';
import type { ToolContext, ToolDefinition } from './toolTypes';
import { CommandExitError, ToolError } from './toolTypes';

// Runs one tool with validated arguments: a timeout through AbortSignal, a hard stop shortly after
// it for tools that ignore the signal, every error caught and turned into a message (no stacks),
// and the output ANSI-stripped and capped before it can reach the model.

/** How long after the timeout signal a tool gets to return its own (more useful) error. */
export const HARD_STOP_GRACE_MS = 2000;

export interface ToolRunResult {
  ok: boolean;
  output: string;
  durationMs: number;
  timedOut?: boolean;
  cancelled?: boolean;
  /** Set when a command ran to its end and exited non-zero (null: stopped by a signal). */
  exitCode?: number | null;
}

function isAbortLike(error: unknown): boolean {
  const name = (error as { name?: string })?.name;
  return name === 'AbortError' || name === 'TimeoutError';
}

/** Runs `tool` once; never throws. */
export async function executeTool(tool: ToolDefinition, args: unknown, context: ToolContext, maxOutputBytes: number): Promise<ToolRunResult> {
  const started = Date.now();
  const finish = (ok: boolean, text: string, extra: Partial<ToolRunResult> = {}): ToolRunResult => ({
    ok,
    output: prepareToolOutput(text === '' ? '(no output)' : text, maxOutputBytes),
    durationMs: Date.now() - started,
    ...extra,
  });
  if (context.signal.aborted) return finish(false, `Cancelled before '${tool.name}' ran`, { cancelled: true });

  // One controller per call, its timer cleared and its listener on the run's signal removed when the
  // call ends (AbortSignal.timeout + AbortSignal.any would leave both behind until the timeout).
  const controller = new AbortController();
  const signal = controller.signal;
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort(new DOMException('The operation was aborted due to timeout', 'TimeoutError'));
  }, context.timeoutMs);
  const onRunAbort = () => controller.abort(context.signal.reason);
  context.signal.addEventListener('abort', onRunAbort, { once: true });
  let hardStop: NodeJS.Timeout | undefined;
  let arm: (() => void) | undefined;
  const stopped = new Promise<never>((_, reject) => {
    arm = () => {
      hardStop = setTimeout(() => reject(signal.reason instanceof Error ? signal.reason : new Error(String(signal.reason))), HARD_STOP_GRACE_MS);
    };
    signal.addEventListener('abort', arm, { once: true });
  });
  stopped.catch(() => undefined);
  try {
    const output = await Promise.race([tool.run(args, { ...context, signal }), stopped]);
    return finish(true, typeof output === 'string' ? output : JSON.stringify(output));
  } catch (error) {
    if (context.signal.aborted) {
      return finish(false, error instanceof ToolError ? error.message : `Cancelled while '${tool.name}' was running`, { cancelled: true });
    }
    if (error instanceof CommandExitError && !timedOut) return finish(false, error.message, { exitCode: error.exitCode });
    if (error instanceof ToolError) return finish(false, error.message, timedOut ? { timedOut } : {});
    if (timedOut || isAbortLike(error))
      return finish(false, `'${tool.name}' timed out after ${Math.round(context.timeoutMs / 1000)} s and was stopped`, { timedOut: true });
    return finish(false, `'${tool.name}' failed: ${(error as Error)?.message ?? String(error)}`);
  } finally {
    if (arm) signal.removeEventListener('abort', arm);
    context.signal.removeEventListener('abort', onRunAbort);
    clearTimeout(timer);
    clearTimeout(hardStop);
  }
}
