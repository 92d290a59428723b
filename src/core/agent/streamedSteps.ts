import type { StepIdAllocator } from '../plan/planOperations';
import type { PlanPart } from './incrementalPlanReader';
import type { StepEntry } from './planParsing';

// When a streamed step entry is settled, shared by the planner's plan (streamedPlanSteps.ts) and
// the replanner's redesign (streamedRedesignSteps.ts) (docs/design.md, “Streamed planning”): its
// entry is complete, its dependencies are known (its own, or the top-level form once that arrived,
// or the end of the object when neither came) and every step it depends on has joined. A step
// naming a step not seen yet waits for it. Ids follow the order of the entries, whichever step joins first.

export abstract class StreamedSteps {
  protected topDependencies: Record<string, number[]> | undefined;
  /** No top-level dependencies can come any more (they arrived, or the object ended). */
  protected dependenciesKnown = false;
  protected readonly entries = new Map<number, StepEntry>();
  protected readonly ids = new Map<number, string>();
  /** Index → the indexes it joined with. */
  protected readonly added = new Map<number, number[]>();
  /** Why nothing more joins (a step could not), if so: the end of the reply decides alone. */
  protected stopped: string | undefined;

  constructor(private readonly newId: StepIdAllocator) {}

  /** Ids of the steps added so far, in the order they were added. */
  get addedIds(): string[] {
    return [...this.added.keys()].map((index) => this.ids.get(index)!);
  }

  /** Takes one part; returns how many steps it added. */
  take(part: PlanPart): number {
    switch (part.kind) {
      case 'dependencies':
        this.topDependencies = part.dependencies;
        this.dependenciesKnown = true;
        return this.flush();
      case 'step':
        this.entries.set(part.index, part.entry);
        this.idOf(part.index);
        return this.flush();
      case 'object_ended':
        this.objectEnded();
        return this.flush();
      default:
        return this.takeOther(part);
    }
  }

  /** Parts only one reply form has (a title, `uses`); returns how many steps they added. */
  protected abstract takeOther(part: PlanPart): number;

  /** Appends the step's events; false when it cannot join (then nothing more does). */
  protected abstract join(index: number, entry: StepEntry, deps: number[]): boolean;

  /** Whether the entry's dependencies are all known (the planner: its own `dependsOn`, or no top-level form can come). */
  protected settled(entry: StepEntry): boolean {
    return entry.dependsOn !== undefined || this.dependenciesKnown;
  }

  protected objectEnded(): void {
    this.dependenciesKnown = true;
  }

  protected idOf(index: number): string {
    let id = this.ids.get(index);
    if (id === undefined) this.ids.set(index, (id = this.newId.next()));
    return id;
  }

  private dependenciesOf(index: number, entry: StepEntry): number[] | undefined {
    if (!this.settled(entry)) return undefined;
    const top = this.topDependencies?.[String(index)] ?? [];
    return [...new Set([...top, ...(entry.dependsOn ?? [])])];
  }

  /** Adds the settled steps, repeatedly: adding one may settle another waiting for it. */
  protected flush(): number {
    let count = 0;
    for (let progress = true; progress && this.stopped === undefined;) {
      progress = false;
      for (const [index, entry] of this.entries) {
        if (this.added.has(index)) continue;
        const deps = this.dependenciesOf(index, entry);
        if (!deps || deps.some((dep) => !this.added.has(dep))) continue;
        if (!this.join(index, entry, deps)) return count;
        this.added.set(index, deps);
        count++;
        progress = true;
      }
    }
    return count;
  }
}
