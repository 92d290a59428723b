// Stops a model stuck calling the same tool with the same arguments over and over: the executor
// feeds every call (or every turn's batch) it runs, in order, and ends the step when the same one
// comes N times in a row.

export const DEFAULT_REPEAT_THRESHOLD = 3;

function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.keys(value)
      .sort()
      .map((key) => [key, canonical((value as Record<string, unknown>)[key])]),
  );
}

/**
 * Identity of a call: its name plus its arguments with object keys sorted, so {"a":1,"b":2} and
 * {"b":2,"a":1} are the same call. A string is read as JSON when it parses.
 */
export function toolCallSignature(name: string, args: unknown): string {
  let value = args;
  if (typeof args === 'string') {
    try {
      value = JSON.parse(args);
    } catch {
      value = args;
    }
  }
  return `${name}\u0000${JSON.stringify(canonical(value ?? {}))}`;
}

export interface RepeatVerdict {
  /** How many times in a row this exact call has now been seen (>= threshold). */
  count: number;
  /** A sentence for the step's output / end reason. */
  reason: string;
}

/** Counts identical consecutive calls; `observe` returns a verdict once the threshold is reached. */
export class RepeatDetector {
  private last: string | undefined;
  private count = 0;

  constructor(readonly threshold = DEFAULT_REPEAT_THRESHOLD) {}

  /**
   * Records one call: `observe(name, args)` (arguments compared key-order-insensitively), or
   * `observe(signature)` with a ready-made signature string. Returns null while under the threshold.
   */
  observe(nameOrSignature: string, args?: unknown): RepeatVerdict | null {
    const signature = args === undefined ? nameOrSignature : toolCallSignature(nameOrSignature, args);
    this.count = signature === this.last ? this.count + 1 : 1;
    this.last = signature;
    if (this.count < this.threshold) return null;
    const what = args === undefined ? 'the same tool call' : `${nameOrSignature} with identical arguments`;
    return { count: this.count, reason: `Stopped: the model repeated ${what} ${this.count} times in a row (repeated_tool_call).` };
  }

  reset(): void {
    this.last = undefined;
    this.count = 0;
  }
}
