import type { PlanState, StepState } from './planTypes';

// Graph algorithms over the live steps of a plan. Structure is indexed once (O(V+E)) so the
// scheduler and the replanner never rescan every dependency list per node, as the naive
// downstream walk does (kept below as `naiveDownstream`, the benchmark baseline).

/** A change that would break the plan's invariants (cycle, dangling dependency, reused id...). */
export class PlanInvariantError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PlanInvariantError';
  }
}

/**
 * Finds one dependency cycle among `nodes`, following `deps` (edges to ids outside `nodes` are
 * ignored: dangling edges are reported separately). Returns the path with its first node repeated
 * at the end (`[a, b, a]` = a depends on b depends on a), or null. Iterative, so a 10,000-step
 * chain cannot overflow the stack.
 */
export function findCycle(nodes: readonly string[], deps: (id: string) => readonly string[]): string[] | null {
  const color = new Map<string, 0 | 1 | 2>(); // 0 unvisited, 1 on the current path, 2 done
  for (const node of nodes) color.set(node, 0);
  const pathIndex = new Map<string, number>();
  for (const start of nodes) {
    if (color.get(start) !== 0) continue;
    const path: string[] = [start];
    const edges: Array<readonly string[]> = [deps(start)];
    const next: number[] = [0];
    color.set(start, 1);
    pathIndex.set(start, 0);
    while (path.length > 0) {
      const top = path.length - 1;
      const list = edges[top];
      if (next[top] < list.length) {
        const dep = list[next[top]++];
        const c = color.get(dep);
        if (c === undefined || c === 2) continue;
        if (c === 1) return [...path.slice(pathIndex.get(dep)), dep];
        color.set(dep, 1);
        pathIndex.set(dep, path.length);
        path.push(dep);
        edges.push(deps(dep));
        next.push(0);
      } else {
        const done = path.pop()!;
        edges.pop();
        next.pop();
        color.set(done, 2);
        pathIndex.delete(done);
      }
    }
  }
  return null;
}

/** A problem found in index-based dependencies (a planner or replanner reply). */
export interface RelativeDependencyProblem {
  kind: 'bad_key' | 'dangling' | 'self_dependency' | 'cycle';
  message: string;
}

/** `{ "<index>": [<index>, ...] }`: dependencies by 0-based position in a batch of new steps. */
export type RelativeDependencies = Readonly<Record<string, readonly number[]>> | Readonly<Record<number, readonly number[]>>;

/**
 * Checks `{ "<index>": [<index>, ...] }` against `count` steps (0-based) and returns one
 * deduplicated dependency list per step, or the first problem with a message naming the steps.
 */
export function normalizeRelativeDependencies(
  count: number,
  dependencies: RelativeDependencies,
): { deps: number[][] } | { problem: RelativeDependencyProblem } {
  const range = count > 0 ? `indexes 0–${count - 1}` : 'no steps';
  const deps: number[][] = Array.from({ length: count }, () => []);
  for (const [key, values] of Object.entries(dependencies as Readonly<Record<string, readonly number[]>>)) {
    if (!/^\d+$/.test(key.trim())) {
      return { problem: { kind: 'bad_key', message: `dependencies key "${key}" is not a step index (${range})` } };
    }
    const index = Number(key.trim());
    if (index >= count) {
      return { problem: { kind: 'dangling', message: `dependencies name step ${index}, but there are only ${count} steps (${range})` } };
    }
    for (const dep of values) {
      if (!Number.isInteger(dep) || dep < 0 || dep >= count) {
        return { problem: { kind: 'dangling', message: `step ${index} depends on step ${dep}, which does not exist (${range})` } };
      }
      if (dep === index) return { problem: { kind: 'self_dependency', message: `step ${index} depends on itself` } };
      if (!deps[index].includes(dep)) deps[index].push(dep);
    }
  }
  const names = deps.map((_, i) => String(i));
  const cycle = findCycle(names, (id) => deps[Number(id)].map(String));
  if (cycle) {
    return { problem: { kind: 'cycle', message: `dependencies form a cycle: ${cycle.map((i) => `step ${i}`).join(' → ')}` } };
  }
  return { deps };
}

/** n for an id of StepIdAllocator's form "s<n>" (no leading zero), else -1. */
function allocatorNumber(id: string): number {
  const length = id.length;
  if (length < 2 || length > 10 || id.charCodeAt(0) !== 115 /* s */ || (length > 2 && id.charCodeAt(1) === 48)) return -1;
  let n = 0;
  for (let i = 1; i < length; i++) {
    const digit = id.charCodeAt(i) - 48;
    if (digit < 0 || digit > 9) return -1;
    n = n * 10 + digit;
  }
  return n;
}

/**
 * Step id → position. Ids from StepIdAllocator ("s1", "s2", ...) go through a typed array, several
 * times cheaper than hashing 10,000 strings into a Map; any other id scheme falls back to a Map.
 */
class PositionIndex {
  private readonly byNumber: Int32Array | null = null;
  private readonly byId: Map<string, number> | null = null;

  constructor(ids: readonly string[]) {
    let max = -1;
    for (let i = 0; i < ids.length && max !== -2; i++) {
      const n = allocatorNumber(ids[i]);
      max = n < 0 ? -2 : Math.max(max, n);
    }
    if (max !== -2 && max <= ids.length * 4 + 1024) {
      this.byNumber = new Int32Array(max + 1).fill(-1);
      for (let i = 0; i < ids.length; i++) this.byNumber[allocatorNumber(ids[i])] = i;
    } else {
      this.byId = new Map();
      for (let i = 0; i < ids.length; i++) this.byId.set(ids[i], i);
    }
  }

  get(id: string): number | undefined {
    if (this.byId) return this.byId.get(id);
    const n = allocatorNumber(id);
    const position = n >= 0 && n < this.byNumber!.length ? this.byNumber![n] : -1;
    return position < 0 ? undefined : position;
  }

  has(id: string): boolean {
    return this.get(id) !== undefined;
  }
}

/** Live steps in plan order, without a lookup per id when `steps` iterates in stepOrder (it does:
 * the reducer inserts both together and deletes from both). Falls back for hand-made states. */
function liveSteps(state: PlanState): { ids: string[]; steps: StepState[] } {
  const ids: string[] = [];
  const steps: StepState[] = [];
  let i = 0;
  for (const [id, step] of state.steps) {
    if (state.stepOrder[i++] !== id) break;
    ids.push(id);
    steps.push(step);
  }
  if (ids.length === state.steps.size && ids.length === state.stepOrder.length) return { ids, steps };
  const order = state.stepOrder.filter((id) => state.steps.has(id));
  return { ids: order, steps: order.map((id) => state.steps.get(id)!) };
}

const cache = new WeakMap<PlanState, PlanGraph>();

/**
 * The structure of a plan's live steps: forward and reverse adjacency by position in `stepOrder`,
 * in flat typed arrays (CSR) so a 10,000-step plan indexes in a few milliseconds.
 * The structure is a snapshot: rebuild it when `state.structureVersion` changes (`forState` does).
 * Which steps are ready is the scheduler's question (agent/readyQueue.ts).
 */
export class PlanGraph {
  readonly ids: readonly string[];
  readonly structureVersion: number;
  private readonly index: PositionIndex;
  /** deps of i: depList[depStart[i] .. depStart[i+1]) */
  private readonly depStart: Int32Array;
  private readonly depList: Int32Array;
  /** dependents of i, ascending: revList[revStart[i] .. revStart[i+1]) */
  private readonly revStart: Int32Array;
  private readonly revList: Int32Array;
  private readonly dangling: Array<{ stepId: string; dependsOn: string }> = [];
  private criticalPath?: Int32Array;

  private constructor(state: PlanState, live: { ids: string[]; steps: StepState[] }) {
    const { ids, steps } = live;
    this.ids = ids;
    this.structureVersion = state.structureVersion;
    const n = ids.length;
    const index = (this.index = new PositionIndex(ids));
    const depStart = new Int32Array(n + 1);
    let depList = new Int32Array(Math.max(16, n * 2));
    const revStart = new Int32Array(n + 1);
    let e = 0;
    for (let i = 0; i < n; i++) {
      const dependsOn = steps[i].dependsOn;
      for (let k = 0; k < dependsOn.length; k++) {
        const j = index.get(dependsOn[k]);
        if (j === undefined) {
          this.dangling.push({ stepId: ids[i], dependsOn: dependsOn[k] });
          continue;
        }
        if (e === depList.length) {
          const grown = new Int32Array(depList.length * 2);
          grown.set(depList);
          depList = grown;
        }
        depList[e++] = j;
        revStart[j + 1]++;
      }
      depStart[i + 1] = e;
    }
    for (let i = 0; i < n; i++) revStart[i + 1] += revStart[i];
    const revList = new Int32Array(e);
    const fill = revStart.slice(0, n);
    for (let i = 0; i < n; i++) for (let k = depStart[i]; k < depStart[i + 1]; k++) revList[fill[depList[k]]++] = i;
    this.depStart = depStart;
    this.depList = depList.subarray(0, e);
    this.revStart = revStart;
    this.revList = revList;
  }

  /** Indexes the live steps of `state` in O(V+E). */
  static fromState(state: PlanState): PlanGraph {
    return new PlanGraph(state, liveSteps(state));
  }

  /** The graph for `state`, rebuilt only when its structure changed since the last call. */
  static forState(state: PlanState): PlanGraph {
    const cached = cache.get(state);
    if (cached && cached.structureVersion === state.structureVersion) return cached;
    const graph = PlanGraph.fromState(state);
    cache.set(state, graph);
    return graph;
  }

  has(stepId: string): boolean {
    return this.index.has(stepId);
  }

  /** Dependencies on steps that are not live (should never exist; see `checkPlanInvariants`). */
  danglingDependencies(): Array<{ stepId: string; dependsOn: string }> {
    return this.dangling.map((d) => ({ ...d }));
  }

  /** Live steps that depend directly on `stepId`, in plan order. */
  dependentsOf(stepId: string): string[] {
    const i = this.position(stepId);
    return Array.from(this.revList.subarray(this.revStart[i], this.revStart[i + 1]), (d) => this.ids[d]);
  }

  /**
   * Every step that depends on `stepId` directly or indirectly, excluding itself, in plan order.
   * O(V+E): one walk of the reverse adjacency, then one pass over the marks for a stable order.
   */
  downstream(stepId: string): string[] {
    const start = this.position(stepId);
    const n = this.ids.length;
    const seen = new Uint8Array(n);
    const stack = new Int32Array(n + 1);
    const { revStart, revList } = this;
    let top = 0;
    stack[top++] = start;
    while (top > 0) {
      const node = stack[--top];
      for (let k = revStart[node]; k < revStart[node + 1]; k++) {
        const d = revList[k];
        if (seen[d]) continue;
        seen[d] = 1;
        stack[top++] = d;
      }
    }
    seen[start] = 0; // only reachable from itself through a cycle; never part of its own downstream
    const result: string[] = [];
    for (let i = 0; i < n; i++) if (seen[i]) result.push(this.ids[i]);
    return result;
  }

  /** Kahn's order (dependencies first; ties in plan order). Throws PlanInvariantError on a cycle. */
  topologicalOrder(): string[] {
    return Array.from(this.topologicalPositions(), (i) => this.ids[i]);
  }

  /** Steps on the longest chain that starts at `stepId` and follows its dependents (itself included). */
  criticalPathLength(stepId: string): number {
    const start = this.position(stepId);
    if (!this.criticalPath) {
      const lengths = new Int32Array(this.ids.length);
      const order = this.topologicalPositions();
      for (let k = order.length - 1; k >= 0; k--) {
        const i = order[k];
        let longest = 0;
        for (let r = this.revStart[i]; r < this.revStart[i + 1]; r++) if (lengths[this.revList[r]] > longest) longest = lengths[this.revList[r]];
        lengths[i] = longest + 1;
      }
      this.criticalPath = lengths;
    }
    return this.criticalPath[start];
  }

  /** One dependency cycle among the live steps, or null. */
  findCycle(): string[] | null {
    return findCycle(this.ids, (id) => {
      const i = this.index.get(id)!;
      return Array.from(this.depList.subarray(this.depStart[i], this.depStart[i + 1]), (j) => this.ids[j]);
    });
  }

  private topologicalPositions(): Int32Array {
    const n = this.ids.length;
    const remaining = new Int32Array(n);
    for (let i = 0; i < n; i++) remaining[i] = this.depStart[i + 1] - this.depStart[i];
    const order = new Int32Array(n);
    let size = 0;
    for (let i = 0; i < n; i++) if (remaining[i] === 0) order[size++] = i;
    for (let k = 0; k < size; k++) {
      const node = order[k];
      for (let r = this.revStart[node]; r < this.revStart[node + 1]; r++) if (--remaining[this.revList[r]] === 0) order[size++] = this.revList[r];
    }
    if (size !== n) {
      const cycle = this.findCycle();
      throw new PlanInvariantError(`the plan has a dependency cycle: ${(cycle ?? []).join(' → ')}`);
    }
    return order;
  }

  private position(stepId: string): number {
    const i = this.index.get(stepId);
    if (i === undefined) throw new PlanInvariantError(`step "${stepId}" is not a live step of the plan`);
    return i;
  }
}

/** Throws PlanInvariantError if the live steps have a cycle or depend on a step that is not live. */
export function checkPlanInvariants(state: PlanState): void {
  const graph = PlanGraph.fromState(state);
  const dangling = graph.danglingDependencies();
  if (dangling.length > 0) {
    const { stepId, dependsOn } = dangling[0];
    throw new PlanInvariantError(`step ${stepId} depends on "${dependsOn}", which is not a live step of the plan`);
  }
  const cycle = graph.findCycle();
  if (cycle) throw new PlanInvariantError(`the plan has a dependency cycle: ${cycle.join(' → ')}`);
}
