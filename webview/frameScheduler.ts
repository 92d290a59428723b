// Coalesces render requests into at most one render per animation frame, however many message
// batches arrive in between.

export type RequestFrame = (cb: (time: number) => void) => unknown;

export interface FrameScheduler {
  /** Asks for a render on the next frame; extra requests before it runs are free. */
  request(): void;
  readonly pending: boolean;
  /** Renders now (used once at start-up so the first paint does not wait a frame). */
  flush(): void;
}

export function createFrameScheduler(render: () => void, requestFrame: RequestFrame): FrameScheduler {
  let pending = false;
  const run = (): void => {
    if (!pending) return;
    pending = false;
    render();
  };
  return {
    request(): void {
      if (pending) return;
      pending = true;
      requestFrame(run);
    },
    get pending(): boolean {
      return pending;
    },
    flush(): void {
      pending = true;
      run();
    },
  };
}
