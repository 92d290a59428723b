import type { PlanState } from '../plan/planTypes';

/**
 * Which steps can start, in list-scheduler order: a step is ready when it is not_started and all
 * its dependencies completed; among ready steps the one with the longest remaining critical path
 * (steps on the longest downstream chain, itself included) goes first. Rebuilt in O(V+E) only when
 * the plan's structure changes; otherwise each status change is O(1) amortised per edge.
 */
export class ReadyQueue {
  private version = -1;
  private dependents = new Map<string, string[]>();
  private pathLength = new Map<string, number>();

  constructor(private readonly state: PlanState) {}

  private rebuild(): void {
    const { state } = this;
    this.version = state.structureVersion;
    this.dependents = new Map(state.stepOrder.map((id) => [id, []]));
    for (const id of state.stepOrder) for (const dep of state.steps.get(id)!.dependsOn) this.dependents.get(dep)?.push(id);
    this.pathLength = new Map();
    // Reverse topological accumulation without recursion (plans can be deep).
    const pending = new Map(state.stepOrder.map((id) => [id, this.dependents.get(id)!.length]));
    const stack = state.stepOrder.filter((id) => pending.get(id) === 0);
    while (stack.length) {
      const id = stack.pop()!;
      let best = 0;
      for (const child of this.dependents.get(id)!) best = Math.max(best, this.pathLength.get(child) ?? 0);
      this.pathLength.set(id, best + 1);
      for (const dep of state.steps.get(id)!.dependsOn) {
        const left = (pending.get(dep) ?? 1) - 1;
        pending.set(dep, left);
        if (left === 0) stack.push(dep);
      }
    }
  }

  /** Critical-path priority of a step (for tests and the benchmark). */
  priority(stepId: string): number {
    if (this.version !== this.state.structureVersion) this.rebuild();
    return this.pathLength.get(stepId) ?? 0;
  }

  /** Ready steps not in `exclude`, highest priority first. */
  ready(exclude: ReadonlySet<string>): string[] {
    if (this.version !== this.state.structureVersion) this.rebuild();
    const { steps, stepOrder } = this.state;
    const ready: string[] = [];
    for (const id of stepOrder) {
      const step = steps.get(id)!;
      if (step.status !== 'not_started' || exclude.has(id)) continue;
      if (step.dependsOn.every((dep) => steps.get(dep)?.status === 'completed')) ready.push(id);
    }
    return ready.sort((a, b) => this.pathLength.get(b)! - this.pathLength.get(a)!);
  }
}
