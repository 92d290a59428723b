import type { RunEvent } from '../core/plan/events';

/**
 * Coalesces run events into one `host/events` message per frame (~16 ms) so a chatty run (streamed
 * tool calls, logs) costs the webview one message per frame, not one per event. Batches are
 * contiguous in seq: `fromSeq` is the first event's seq, which lets the webview detect gaps.
 */
export class EventBatcher {
  private pending: RunEvent[] = [];
  private timer: ReturnType<typeof setTimeout> | undefined;
  private disposed = false;

  constructor(
    private readonly post: (fromSeq: number, events: RunEvent[]) => void,
    private readonly delayMs = 16,
  ) {}

  push(event: RunEvent): void {
    if (this.disposed) return;
    this.pending.push(event);
    this.timer ??= setTimeout(() => this.flush(), this.delayMs);
  }

  /** Posts what is queued now (also used before a reset so nothing is reordered). */
  flush(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    if (this.pending.length === 0 || this.disposed) return;
    const batch = this.pending;
    this.pending = [];
    this.post(batch[0].seq, batch);
  }

  /** Drops what is queued (a reset is about to carry everything). */
  clear(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.pending = [];
  }

  dispose(): void {
    this.clear();
    this.disposed = true;
  }
}
