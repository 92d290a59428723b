import type { NewRunEvent, RunEvent } from './events';
import { applyEvent, createPlanState } from './reducer';
import type { PlanState } from './planTypes';

export type EventListener = (event: RunEvent, state: PlanState) => void;

/**
 * The run's append-only event list. Stamps `seq` and `time`, folds each event into the live state
 * with the shared reducer, then notifies listeners (trace writer, panel, CLI) in order.
 * A throwing listener is isolated so one consumer cannot break the run.
 */
export class EventLog {
  readonly events: RunEvent[] = [];
  readonly state: PlanState = createPlanState();
  private readonly listeners = new Set<EventListener>();
  private readonly now: () => number;
  private readonly onListenerError: (error: unknown) => void;

  /** `history`: the events a resumed run already recorded (docs/design.md, “Resuming a run”), folded without notifying anyone; new events continue their seq. */
  constructor(options: { now?: () => number; onListenerError?: (error: unknown) => void; history?: readonly RunEvent[] } = {}) {
    this.now = options.now ?? Date.now;
    this.onListenerError = options.onListenerError ?? ((error) => console.error('event listener failed:', error));
    for (const event of options.history ?? []) {
      this.events.push(event);
      applyEvent(this.state, event);
    }
  }

  append(partial: NewRunEvent): RunEvent {
    const event = { ...partial, seq: (this.events.at(-1)?.seq ?? -1) + 1, time: this.now() };
    this.events.push(event);
    applyEvent(this.state, event);
    for (const listener of this.listeners) {
      try {
        listener(event, this.state);
      } catch (error) {
        // A consumer failing (e.g. a closed panel) must not stop the run.
        this.onListenerError(error);
      }
    }
    return event;
  }

  subscribe(listener: EventListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}
