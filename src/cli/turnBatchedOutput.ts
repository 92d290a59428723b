// Progress lines come in bursts (a step's events, many steps finishing at once). While a run is
// driven, its stderr is corked from the first progress line of a turn of the event loop to the
// next turn, so each burst is one write instead of one per line; whatever else writes to the
// stream meanwhile (an approval prompt) is queued in order with it. `release()` writes out what is
// left and stops.

interface Corkable {
  cork(): void;
  uncork(): void;
}

function isCorkable(stream: NodeJS.WritableStream): stream is NodeJS.WritableStream & Corkable {
  return typeof (stream as Partial<Corkable>).cork === 'function' && typeof (stream as Partial<Corkable>).uncork === 'function';
}

export interface TurnBatch {
  /** Holds the stream's writes until the next turn of the event loop (a no-op when already held). */
  hold(): void;
  /** Writes out what is held; later holds do nothing. */
  release(): void;
}

export function batchWritesPerTurn(stream: NodeJS.WritableStream): TurnBatch {
  if (!isCorkable(stream)) return { hold: () => undefined, release: () => undefined };
  let released = false;
  let timer: NodeJS.Immediate | undefined;
  const uncork = (): void => {
    if (!timer) return;
    clearImmediate(timer);
    timer = undefined;
    stream.uncork();
  };
  return {
    hold: () => {
      if (released || timer) return;
      stream.cork();
      timer = setImmediate(uncork);
    },
    release: () => {
      released = true;
      uncork();
    },
  };
}
