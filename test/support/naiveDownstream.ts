import type { PlanState } from '../../src/core/plan/planTypes';

// The obvious downstream walk, kept as the oracle PlanGraph.downstream is checked against (tests)
// and the baseline it is timed against (bench/coreOverhead.bench.ts).

/** The live steps' dependency lists, in plan order: the input of `naiveDownstream`. */
export function dependencyMap(state: PlanState): Map<string, string[]> {
  const map = new Map<string, string[]>();
  for (const id of state.stepOrder) {
    const step = state.steps.get(id);
    if (step) map.set(id, step.dependsOn);
  }
  return map;
}

/**
 * The naive downstream walk: for every step taken off the stack, rescan every
 * dependency list. O(V·(V+E)). Kept only as the benchmark baseline and a cross-check in tests.
 * Returns ids in the map's order (plan order).
 */
export function naiveDownstream(dependencies: ReadonlyMap<string, readonly string[]>, stepId: string): string[] {
  const downstream = new Set<string>();
  const toCheck = [stepId];
  while (toCheck.length > 0) {
    const current = toCheck.pop()!;
    for (const [id, deps] of dependencies) {
      if (deps.includes(current) && !downstream.has(id)) {
        downstream.add(id);
        toCheck.push(id);
      }
    }
  }
  downstream.delete(stepId);
  return [...dependencies.keys()].filter((id) => downstream.has(id));
}
