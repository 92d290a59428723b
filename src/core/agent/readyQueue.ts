import type { RunEvent } from '../plan/events';
import { PlanGraph } from '../plan/planGraph';
import type { PlanState } from '../plan/planTypes';

/**
 * Which steps can start, in list-scheduler order: a step is ready when it is not_started and all
 * its dependencies completed; among ready steps the longest remaining critical path (steps on the
 * longest downstream chain, itself included) goes first. Unmet-dependency counts are rebuilt in
 * O(V+E) only when the plan's structure changes; a completion then costs O(its dependents).
 */
export class ReadyQueue {
  private version = -1;
  private graph: PlanGraph | undefined;
  private readonly unmet = new Map<string, number>();
  private readonly readySet = new Set<string>();

  constructor(private readonly state: PlanState) {}

  /** Feed every appended event (subscribe it to the EventLog). */
  observe(event: RunEvent): void {
    if (event.type !== 'step_status_changed' || event.status !== 'completed' || !this.graph || this.version !== this.state.structureVersion) return;
    for (const child of this.graph.dependentsOf(event.stepId)) {
      const left = (this.unmet.get(child) ?? 1) - 1;
      this.unmet.set(child, left);
      if (left === 0) this.readySet.add(child);
    }
  }

  private rebuild(): void {
    const { state } = this;
    this.version = state.structureVersion;
    this.graph = PlanGraph.forState(state);
    this.unmet.clear();
    this.readySet.clear();
    for (const id of state.stepOrder) {
      const step = state.steps.get(id)!;
      if (step.status !== 'not_started') continue;
      let left = 0;
      for (const dep of step.dependsOn) if (state.steps.get(dep)?.status !== 'completed') left++;
      this.unmet.set(id, left);
      if (left === 0) this.readySet.add(id);
    }
  }

  /** Critical-path priority of a step (steps on its longest downstream chain, itself included). */
  priority(stepId: string): number {
    if (this.version !== this.state.structureVersion) this.rebuild();
    return this.graph!.criticalPathLength(stepId);
  }

  /** Ready steps not in `exclude`, highest priority first (ties in plan order). */
  ready(exclude: ReadonlySet<string>): string[] {
    if (this.version !== this.state.structureVersion) this.rebuild();
    const ready: string[] = [];
    for (const id of this.readySet) {
      if (this.state.steps.get(id)?.status !== 'not_started') {
        this.readySet.delete(id);
        continue;
      }
      if (!exclude.has(id)) ready.push(id);
    }
    const graph = this.graph!;
    return ready.sort((a, b) => graph.criticalPathLength(b) - graph.criticalPathLength(a));
  }
}
