// What a panel must undo when it closes, in one place: each cleanup runs once, in the order it was
// added, however many times dispose is called (VS Code's onDidDispose calls back into it), and a
// cleanup added after the store was disposed runs at once instead of leaking.

/** A cleanup: a VS Code disposable or a function. */
export type Cleanup = { dispose(): void } | (() => void);

export class DisposableStore {
  private readonly cleanups: Cleanup[] = [];
  private done = false;

  get isDisposed(): boolean {
    return this.done;
  }

  add(...cleanups: Cleanup[]): void {
    if (this.done) for (const cleanup of cleanups) run(cleanup);
    else this.cleanups.push(...cleanups);
  }

  dispose(): void {
    if (this.done) return;
    this.done = true;
    for (const cleanup of this.cleanups.splice(0)) run(cleanup);
  }
}

function run(cleanup: Cleanup): void {
  if (typeof cleanup === 'function') cleanup();
  else cleanup.dispose();
}
