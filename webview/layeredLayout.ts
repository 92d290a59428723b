// The cheap layered (Sugiyama-style) layout used for big plans, on flat integer arrays. d3-dag's own
// pipeline with its cheap operators walks the graph through generators and Maps, counts crossings
// pairwise and validates its result; on a 200-step plan that was most of the panel's first render.
// Same stages here, each linear or near-linear:
//   1. layers: longest path from the sources, then every node pulled down to just above its highest
//      child (on plan-shaped graphs this makes the fewest long edges of the usual variants);
//   2. long edges become chains of zero-width dummy nodes, one per layer crossed;
//   3. order: depth-first initial order, then median sweeps down and up, keeping the order with the
//      fewest crossings (counted with a Fenwick tree);
//   4. x: each node at the median of its parents (down sweep) then of its children (up sweep), long
//      edges straightened, overlaps pushed apart (the idea of d3-dag's coordGreedy).
// The input must be acyclic (layout.ts drops cycle-closing edges first).

export interface LayeredInput {
  /** Nodes are 0 … count-1. */
  count: number;
  /** `[source, target]` pairs; no duplicates, no cycles. */
  edges: ReadonlyArray<readonly [number, number]>;
  nodeWidth: number;
  nodeHeight: number;
  /** Horizontal gap between neighbours in a layer, vertical gap between layers. */
  gap: readonly [number, number];
  /** Down-and-up median sweeps (default 4). */
  passes?: number;
}

export interface LayeredResult {
  /** Centre of each node. */
  x: Float64Array;
  y: Float64Array;
  layer: Int32Array;
  /** Per input edge, the centres it passes through: source, one point per layer crossed, target. */
  points: Array<Array<[number, number]>>;
  width: number;
  height: number;
  /** Edge crossings of the final order. */
  crossings: number;
}

/** Rounds of long-edge straightening (see assignX). */
const STRAIGHTEN_ROUNDS = 4;

/** The layered graph: ids ≥ the node count are dummies; `up`/`down` are neighbours in the adjacent layers. */
export interface LayeredGraph {
  layers: number[][];
  up: number[][];
  down: number[][];
  /** Position of each id within its layer (kept current while reordering). */
  pos: Int32Array;
}

/** Longest path from the sources, then each node as low as its children allow. Returns the layer per node. */
export function assignLayers(count: number, edges: ReadonlyArray<readonly [number, number]>): Int32Array {
  const children: number[][] = Array.from({ length: count }, () => []);
  const parentsLeft = new Int32Array(count);
  for (const [s, t] of edges) {
    children[s].push(t);
    parentsLeft[t]++;
  }
  // Kahn's algorithm in input order: deterministic and stable for plans listed in dependency order.
  const order: number[] = [];
  for (let i = 0; i < count; i++) if (parentsLeft[i] === 0) order.push(i);
  for (let k = 0; k < order.length; k++) {
    for (const c of children[order[k]]) if (--parentsLeft[c] === 0) order.push(c);
  }
  if (order.length !== count) throw new Error('layeredLayout: the graph has a cycle');
  const layer = new Int32Array(count);
  for (const n of order) for (const c of children[n]) layer[c] = Math.max(layer[c], layer[n] + 1);
  for (let k = order.length - 1; k >= 0; k--) {
    const n = order[k];
    if (children[n].length === 0) continue;
    let highest = Infinity;
    for (const c of children[n]) highest = Math.min(highest, layer[c]);
    layer[n] = highest - 1;
  }
  return layer;
}

function median(values: number[]): number {
  // Most nodes have one or two neighbours.
  if (values.length === 1) return values[0];
  if (values.length === 2) return (values[0] + values[1]) / 2;
  values.sort((a, b) => a - b);
  const mid = values.length >> 1;
  return values.length % 2 === 1 ? values[mid] : (values[mid - 1] + values[mid]) / 2;
}

// ---------- order within layers ----------

/** Depth-first visit order from the sources, in their current order: keeps a subtree's nodes together. */
function depthFirstOrder(g: LayeredGraph): void {
  const visit = new Int32Array(g.pos.length).fill(-1);
  let clock = 0;
  const stack: number[] = [];
  for (const row of g.layers) {
    for (const root of row) {
      if (g.up[root].length > 0 || visit[root] >= 0) continue;
      stack.push(root);
      while (stack.length > 0) {
        const id = stack.pop()!;
        if (visit[id] >= 0) continue;
        visit[id] = clock++;
        const children = g.down[id];
        for (let k = children.length - 1; k >= 0; k--) if (visit[children[k]] < 0) stack.push(children[k]);
      }
    }
  }
  for (const row of g.layers) {
    row.sort((a, b) => visit[a] - visit[b]);
    row.forEach((id, j) => (g.pos[id] = j));
  }
}

/** Reorders one layer by the median position of each node's neighbours in the adjacent layer; nodes without neighbours keep their slot. */
function medianReorder(row: number[], neighbours: number[][], pos: Int32Array): void {
  const n = row.length;
  // Sort keys as single numbers: twice the median (an integer: positions are integers) times n plus
  // the current slot, so ties keep their order and a native numeric sort does the work.
  const keys: number[] = [];
  const scratch: number[] = [];
  for (let j = 0; j < n; j++) {
    const ns = neighbours[row[j]];
    if (ns.length === 0) continue;
    scratch.length = 0;
    for (const m of ns) scratch.push(pos[m]);
    keys.push(2 * median(scratch) * n + j);
  }
  const sorted = Float64Array.from(keys).sort();
  const before = row.slice();
  let k = 0;
  for (let j = 0; j < n; j++) {
    if (neighbours[before[j]].length === 0) continue;
    row[j] = before[sorted[k++] % n];
  }
  row.forEach((id, j) => (pos[id] = j));
}

/** Edge crossings between every pair of adjacent layers in the current order (Fenwick tree inversion count). */
export function countCrossings(g: Pick<LayeredGraph, 'layers' | 'down' | 'pos'>): number {
  let total = 0;
  const targets: number[] = [];
  for (let i = 0; i + 1 < g.layers.length; i++) {
    const size = g.layers[i + 1].length;
    const tree = new Int32Array(size + 1);
    let inserted = 0;
    for (const u of g.layers[i]) {
      targets.length = 0;
      for (const v of g.down[u]) targets.push(g.pos[v]);
      targets.sort((a, b) => a - b);
      for (const t of targets) {
        // Earlier edges (from nodes further left) ending right of t cross this one.
        let atOrLeft = 0;
        for (let k = t + 1; k > 0; k -= k & -k) atOrLeft += tree[k];
        total += inserted - atOrLeft;
      }
      for (const t of targets) {
        for (let k = t + 1; k <= size; k += k & -k) tree[k]++;
        inserted++;
      }
    }
  }
  return total;
}

/** Orders every layer: depth-first start, then `passes` down-and-up median sweeps; keeps the best order seen. Returns its crossings. */
export function orderLayers(g: LayeredGraph, passes: number): number {
  depthFirstOrder(g);
  let best = g.layers.map((row) => row.slice());
  let fewest = countCrossings(g);
  for (let p = 0; p < passes && fewest > 0; p++) {
    for (let i = 1; i < g.layers.length; i++) medianReorder(g.layers[i], g.up, g.pos);
    for (let i = g.layers.length - 2; i >= 0; i--) medianReorder(g.layers[i], g.down, g.pos);
    const crossings = countCrossings(g);
    if (crossings < fewest) {
      fewest = crossings;
      best = g.layers.map((row) => row.slice());
    }
  }
  g.layers = best;
  for (const row of best) row.forEach((id, j) => (g.pos[id] = j));
  return fewest;
}

// ---------- x coordinates ----------

/**
 * Resolves overlaps in one layer with the least movement in both directions: the positions pushed
 * left (from the right end) and pushed right (from the left end) each respect the gaps, so their
 * average does too.
 */
function pushApart(row: readonly number[], gap: Float64Array, x: Float64Array): void {
  const n = row.length;
  if (n < 2) return;
  const leftward = new Float64Array(n);
  leftward[n - 1] = x[row[n - 1]];
  for (let j = n - 2; j >= 0; j--) leftward[j] = Math.min(x[row[j]], leftward[j + 1] - gap[j + 1]);
  let rightward = x[row[0]];
  x[row[0]] = (rightward + leftward[0]) / 2;
  for (let j = 1; j < n; j++) {
    rightward = Math.max(x[row[j]], rightward + gap[j]);
    x[row[j]] = (rightward + leftward[j]) / 2;
  }
}

/** Centre x of every id; `width(id)` is a node's width (0 for dummies). Returns the x array shifted to start at 0, and the total width. */
export function assignX(g: LayeredGraph, width: (id: number) => number, gapX: number, isDummy: (id: number) => boolean): { x: Float64Array; width: number } {
  const x = new Float64Array(g.pos.length);
  // gaps[i][j]: the minimum distance between the centres of nodes j-1 and j of layer i.
  const gaps = g.layers.map((row) => {
    const gap = new Float64Array(row.length);
    for (let j = 1; j < row.length; j++) gap[j] = (width(row[j - 1]) + width(row[j])) / 2 + gapX;
    return gap;
  });
  const scratch: number[] = [];
  const toMedian = (i: number, neighbours: number[][]): void => {
    for (const id of g.layers[i]) {
      const ns = neighbours[id];
      if (ns.length === 0) continue;
      scratch.length = 0;
      for (const n of ns) scratch.push(x[n]);
      x[id] = median(scratch);
    }
    pushApart(g.layers[i], gaps[i], x);
  };
  const straighten = (i: number, neighbours: number[][]): void => {
    for (const id of g.layers[i]) {
      const ns = neighbours[id];
      if (isDummy(id) && ns.length > 0 && isDummy(ns[0])) x[id] = x[ns[0]];
    }
    pushApart(g.layers[i], gaps[i], x);
  };
  const last = g.layers.length - 1;
  for (let i = 0; i <= last; i++) pushApart(g.layers[i], gaps[i], x);
  for (let i = 1; i <= last; i++) toMedian(i, g.up);
  for (let i = last - 1; i >= 0; i--) toMedian(i, g.down);
  // Pushing apart keeps moving chains, so this rarely settles, and past a few rounds it straightens
  // little more (a 200-step plan has 511 edge segments: 495 slanted without it, 469 after 4 rounds,
  // 439 after 24).
  for (let round = 0; round < STRAIGHTEN_ROUNDS; round++) {
    for (let i = 1; i <= last; i++) straighten(i, g.up);
    for (let i = last - 1; i >= 0; i--) straighten(i, g.down);
  }
  let left = Infinity;
  let right = -Infinity;
  for (const row of g.layers) {
    if (row.length === 0) continue;
    left = Math.min(left, x[row[0]] - width(row[0]) / 2);
    right = Math.max(right, x[row[row.length - 1]] + width(row[row.length - 1]) / 2);
  }
  for (let id = 0; id < x.length; id++) x[id] -= left;
  return { x, width: right - left };
}

// ---------- the whole layout ----------

/** Lays out a DAG of equally sized nodes. */
export function layeredLayout(input: LayeredInput): LayeredResult {
  const { count, edges, nodeWidth, nodeHeight, gap } = input;
  const layer = assignLayers(count, edges);
  let layerCount = 0;
  for (let i = 0; i < count; i++) layerCount = Math.max(layerCount, layer[i] + 1);
  const layers: number[][] = Array.from({ length: layerCount }, () => []);
  for (let i = 0; i < count; i++) layers[layer[i]].push(i);
  const up: number[][] = Array.from({ length: count }, () => []);
  const down: number[][] = Array.from({ length: count }, () => []);
  const chains: number[][] = [];
  for (const [s, t] of edges) {
    const chain = [s];
    let prev = s;
    for (let l = layer[s] + 1; l < layer[t]; l++) {
      const dummy = up.length;
      up.push([prev]);
      down.push([]);
      down[prev].push(dummy);
      layers[l].push(dummy);
      chain.push(dummy);
      prev = dummy;
    }
    down[prev].push(t);
    up[t].push(prev);
    chain.push(t);
    chains.push(chain);
  }
  const g: LayeredGraph = { layers, up, down, pos: new Int32Array(up.length) };
  const crossings = orderLayers(g, input.passes ?? 4);
  const isDummy = (id: number): boolean => id >= count;
  const { x, width } = assignX(g, (id) => (isDummy(id) ? 0 : nodeWidth), gap[0], isDummy);
  const layerY = (l: number): number => l * (nodeHeight + gap[1]) + nodeHeight / 2;
  const dummyLayer = (chain: number[], k: number): number => layer[chain[0]] + k;
  const points = chains.map((chain) => chain.map((id, k): [number, number] => [x[id], layerY(dummyLayer(chain, k))]));
  const y = new Float64Array(count);
  for (let i = 0; i < count; i++) y[i] = layerY(layer[i]);
  const height = layerCount * nodeHeight + Math.max(0, layerCount - 1) * gap[1];
  return { x: x.slice(0, count), y, layer, points, width, height, crossings };
}
