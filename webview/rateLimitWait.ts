import type { RunEvent } from '../src/core/plan/events';

// The wait before a rate-limited request is retried (docs/design.md, "LLM requests: retries and
// failover"): the client announces it with a warning whose data says how long it waits, and the
// panel counts it down in the run header so a run waiting most of a minute does not look stuck.
// The countdown ends when the wait is over (the next request goes out then), when that request is
// recorded, or when the run stops.

/** One announced wait. */
export interface RateLimitWait {
  /** Host time (ms) at which the retry goes out. */
  until: number;
  retry: number;
  of: number;
  stepId?: string;
  purpose?: string;
}

/** What the header shows while a wait lasts. */
export interface RateLimitCountdown {
  seconds: number;
  text: string;
}

function positiveNumber(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : undefined;
}

/**
 * The waits after `event`: a `log` event with `data.kind: "llm_retry"` adds one (replacing an
 * earlier wait of the same step and purpose); an `llm_request` of that step and purpose (the
 * retried request came back) or the end of the run removes them. Malformed data adds nothing.
 */
export function noteRateLimitEvent(waits: readonly RateLimitWait[], event: RunEvent): readonly RateLimitWait[] {
  if (event.type === 'run_finished') return waits.length ? [] : waits;
  if (event.type === 'llm_request') {
    const left = waits.filter((w) => !(w.stepId === event.stepId && w.purpose === event.purpose));
    return left.length === waits.length ? waits : left;
  }
  if (event.type !== 'log' || event.data?.kind !== 'llm_retry') return waits;
  const delayMs = positiveNumber(event.data.delayMs);
  if (delayMs === undefined) return waits;
  const purpose = typeof event.data.purpose === 'string' ? event.data.purpose : undefined;
  const wait: RateLimitWait = {
    until: event.time + delayMs,
    retry: positiveNumber(event.data.retry) ?? 1,
    of: positiveNumber(event.data.of) ?? 1,
    stepId: event.stepId,
    purpose,
  };
  return [...waits.filter((w) => !(w.stepId === wait.stepId && w.purpose === wait.purpose)), wait];
}

/**
 * The countdown to show at `now`, for the wait that ends last; undefined when no wait lasts (or the
 * run is not live and running: a replayed trace counts nothing down).
 */
export function rateLimitCountdown(waits: readonly RateLimitWait[], now: number, running: boolean): RateLimitCountdown | undefined {
  if (!running) return undefined;
  let last: RateLimitWait | undefined;
  for (const wait of waits) if (wait.until > now && (!last || wait.until > last.until)) last = wait;
  if (!last) return undefined;
  const seconds = Math.ceil((last.until - now) / 1000);
  const others = waits.filter((w) => w !== last && w.until > now).length;
  const retry = last.of > 1 ? ` (retry ${last.retry} of ${last.of})` : '';
  const more = others > 0 ? `; ${others} more request${others === 1 ? '' : 's'} waiting` : '';
  return { seconds, text: `Rate limited by the endpoint: retrying in ${seconds} s${retry}${more}` };
}
