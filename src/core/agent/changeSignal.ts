/**
 * A pulse the scheduler waits on: `next()` resolves at the following `notify()` (steps joined a
 * streaming plan or redesign, a hold lifted, the plan closed).
 */
export class ChangeSignal {
  private wake: () => void = () => undefined;
  private pulse: Promise<void>;

  constructor() {
    this.pulse = this.nextPulse();
  }

  next(): Promise<void> {
    return this.pulse;
  }

  notify(): void {
    this.wake();
  }

  private nextPulse(): Promise<void> {
    return new Promise((resolve) => {
      this.wake = () => {
        this.pulse = this.nextPulse();
        resolve();
      };
    });
  }
}
