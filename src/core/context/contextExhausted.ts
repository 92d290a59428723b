// A request that cannot be made to fit its model's context window, even after every degradation
// stage (docs/design.md, “Context budget and memory”). The step fails with reason `context_exhausted`, which the replanner
// reads as "split this step".

export const CONTEXT_EXHAUSTED = 'context_exhausted';

export class ContextExhaustedError extends Error {
  readonly reason = CONTEXT_EXHAUSTED;

  constructor(
    message: string,
    readonly tokens: number,
    readonly budget: number,
  ) {
    super(message);
    this.name = 'ContextExhaustedError';
  }
}
