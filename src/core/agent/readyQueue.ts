import type { RunEvent } from '../plan/events';
import { PlanGraph } from '../plan/planGraph';
import type { PlanState } from '../plan/planTypes';

/**
 * Which steps can start, in list-scheduler order: a step is ready when it is not_started and all
 * its dependencies completed; among ready steps the longest remaining critical path (steps on the
 * longest downstream chain, itself included) goes first, then the one that became ready first.
 * Unmet-dependency counts are rebuilt in O(V+E) only when the plan's structure changes; a
 * completion then costs O(its dependents), and the ready list is kept in order as steps join it
 * and leave it, so asking for it never sorts.
 */
export class ReadyQueue {
  private version = -1;
  private graph: PlanGraph | undefined;
  private readonly unmet = new Map<string, number>();
  /** Ready steps, best first: critical path descending, then `joined` ascending. */
  private readonly ordered: string[] = [];
  private readonly joined = new Map<string, number>();
  private joins = 0;

  constructor(private readonly state: PlanState) {}

  /** Feed every appended event (subscribe it to the EventLog): the ready list follows the status changes it sees. */
  observe(event: RunEvent): void {
    if (event.type !== 'step_status_changed' || !this.graph || this.version !== this.state.structureVersion) return;
    if (event.status !== 'not_started') this.leave(event.stepId);
    if (event.status !== 'completed') return;
    for (const child of this.graph.dependentsOf(event.stepId)) {
      const left = (this.unmet.get(child) ?? 1) - 1;
      this.unmet.set(child, left);
      if (left === 0) this.join(child);
    }
  }

  private rebuild(): void {
    const { state } = this;
    this.version = state.structureVersion;
    this.graph = PlanGraph.forState(state);
    this.unmet.clear();
    this.ordered.length = 0;
    this.joined.clear();
    for (const id of state.stepOrder) {
      const step = state.steps.get(id)!;
      if (step.status !== 'not_started') continue;
      let left = 0;
      for (const dep of step.dependsOn) if (state.steps.get(dep)?.status !== 'completed') left++;
      this.unmet.set(id, left);
      if (left === 0) this.join(id);
    }
  }

  /** True when `a` goes before `b`. */
  private before(a: string, b: string): boolean {
    const graph = this.graph!;
    const byPath = graph.criticalPathLength(b) - graph.criticalPathLength(a);
    return byPath !== 0 ? byPath < 0 : this.joined.get(a)! < this.joined.get(b)!;
  }

  /** Position of the first ready step that `id` goes before (binary search). */
  private slot(id: string): number {
    let low = 0;
    let high = this.ordered.length;
    while (low < high) {
      const mid = (low + high) >>> 1;
      if (this.before(this.ordered[mid], id)) low = mid + 1;
      else high = mid;
    }
    return low;
  }

  private join(id: string): void {
    if (this.joined.has(id)) return;
    this.joined.set(id, this.joins++);
    this.ordered.splice(this.slot(id), 0, id);
  }

  private leave(id: string): void {
    if (!this.joined.has(id)) return;
    this.ordered.splice(this.slot(id), 1);
    this.joined.delete(id);
  }

  /** Critical-path priority of a step (steps on its longest downstream chain, itself included). */
  priority(stepId: string): number {
    if (this.version !== this.state.structureVersion) this.rebuild();
    return this.graph!.criticalPathLength(stepId);
  }

  /** Ready steps not in `exclude`, highest priority first (ties: the one ready first). */
  ready(exclude: ReadonlySet<string>): string[] {
    if (this.version !== this.state.structureVersion) this.rebuild();
    return exclude.size === 0 ? [...this.ordered] : this.ordered.filter((id) => !exclude.has(id));
  }
}
