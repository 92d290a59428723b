import { coordGreedy, decrossTwoLayer, type Coord, type Decross, type SugiNode, type SugiSeparation } from 'd3-dag';

// The cheap sugiyama operators used for big plans, plugged into d3-dag's own pipeline (its layering,
// dummy nodes, validation and edge points stay). d3-dag's built-in cheap operators walk the graph
// through generators and Maps and count crossings pairwise; on a 200-step plan they cost most of the
// layout. These do the same work on flat integer arrays:
//   decrossSweeps: depth-first initial order, then median sweeps down and up, keeping the order with
//     the fewest crossings (counted with a Fenwick tree, O(E log V) per layer pair).
//   coordMedian: each node at the median of its parents (down sweep), then of its children (up
//     sweep), long edges straightened, overlaps resolved by pushing apart; the same idea as d3-dag's
//     coordGreedy.
// Both fall back to the d3-dag operator if the layered graph is not the simple shape sugiyama makes
// (every node in one layer, every link between adjacent layers).

/** Rounds of long-edge straightening in coordMedian. */
const STRAIGHTEN_ROUNDS = 4;

/** The layered graph as integer ids: `layers[i]` lists ids in order, `up`/`down` the neighbours in the layer above/below. */
interface Indexed<N, L> {
  nodes: SugiNode<N, L>[];
  layers: number[][];
  up: number[][];
  down: number[][];
  /** Position of each id within its layer (kept current while reordering). */
  pos: Int32Array;
}

function indexLayers<N, L>(layers: readonly (readonly SugiNode<N, L>[])[]): Indexed<N, L> | undefined {
  const ids = new Map<SugiNode<N, L>, number>();
  const nodes: SugiNode<N, L>[] = [];
  const layerOf: number[] = [];
  const order: number[][] = [];
  for (let i = 0; i < layers.length; i++) {
    const row: number[] = [];
    for (const node of layers[i]) {
      if (ids.has(node)) return undefined; // a node spanning several layers
      ids.set(node, nodes.length);
      row.push(nodes.length);
      nodes.push(node);
      layerOf.push(i);
    }
    order.push(row);
  }
  const up: number[][] = nodes.map(() => []);
  const down: number[][] = nodes.map(() => []);
  for (let id = 0; id < nodes.length; id++) {
    for (const child of nodes[id].children()) {
      const c = ids.get(child);
      if (c === undefined || layerOf[c] !== layerOf[id] + 1) return undefined;
      down[id].push(c);
      up[c].push(id);
    }
  }
  const pos = new Int32Array(nodes.length);
  for (const row of order) row.forEach((id, j) => (pos[id] = j));
  return { nodes, layers: order, up, down, pos };
}

function median(values: number[]): number {
  values.sort((a, b) => a - b);
  const mid = values.length >> 1;
  return values.length % 2 === 1 ? values[mid] : (values[mid - 1] + values[mid]) / 2;
}

// ---------- decrossing ----------

/** Depth-first visit order from the sources, in their current order: keeps a subtree's nodes together. */
function depthFirstOrder(g: Indexed<unknown, unknown>): void {
  const visit = new Int32Array(g.nodes.length).fill(-1);
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
export function countCrossings(g: Pick<Indexed<unknown, unknown>, 'layers' | 'down' | 'pos'>): number {
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

/** A d3-dag decross operator: depth-first initial order plus `passes` down-and-up median sweeps, keeping the best order seen. */
export function decrossSweeps(passes = 4): Decross<unknown, unknown> {
  return (layers: SugiNode[][]): void => {
    const g = indexLayers(layers);
    if (!g) {
      decrossTwoLayer()(layers);
      return;
    }
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
    for (let i = 0; i < layers.length; i++) for (let j = 0; j < best[i].length; j++) layers[i][j] = g.nodes[best[i][j]];
  };
}

// ---------- coordinates ----------

/** A d3-dag coord operator: median placement down then up, long edges straightened, overlaps pushed apart. */
export function coordMedian(): Coord<unknown, unknown> {
  return <N, L>(layers: SugiNode<N, L>[][], sep: SugiSeparation<N, L>): number => {
    const g = indexLayers(layers);
    if (!g) return coordGreedy()(layers, sep);
    const x = new Float64Array(g.nodes.length);
    // gaps[i][j]: the minimum distance between the centres of nodes j-1 and j of layer i.
    const gaps = layers.map((row) => {
      const gap = new Float64Array(row.length);
      for (let j = 1; j < row.length; j++) gap[j] = sep(row[j - 1], row[j]);
      return gap;
    });
    const isLink = g.nodes.map((node) => node.data.role === 'link');
    const separate = (i: number): void => pushApart(g.layers[i], gaps[i], x);
    const toMedian = (i: number, neighbours: number[][]): void => {
      const scratch: number[] = [];
      for (const id of g.layers[i]) {
        const ns = neighbours[id];
        if (ns.length === 0) continue;
        scratch.length = 0;
        for (const n of ns) scratch.push(x[n]);
        x[id] = median(scratch);
      }
      separate(i);
    };
    const straighten = (i: number, neighbours: number[][]): void => {
      for (const id of g.layers[i]) {
        const ns = neighbours[id];
        if (isLink[id] && ns.length > 0 && isLink[ns[0]]) x[id] = x[ns[0]];
      }
      separate(i);
    };
    const last = g.layers.length - 1;
    for (let i = 0; i <= last; i++) separate(i);
    for (let i = 1; i <= last; i++) toMedian(i, g.up);
    for (let i = last - 1; i >= 0; i--) toMedian(i, g.down);
    const before = new Float64Array(x.length);
    // Pushing apart keeps moving chains, so this rarely settles; past a few rounds it straightens
    // only a few more segments (on a 200-step plan 23 rounds leave 452 slanted segments, 4 leave 471).
    for (let round = 0; round < STRAIGHTEN_ROUNDS; round++) {
      before.set(x);
      for (let i = 1; i <= last; i++) straighten(i, g.up);
      for (let i = last - 1; i >= 0; i--) straighten(i, g.down);
      if (sameValues(before, x)) break;
    }
    let left = Infinity;
    let right = -Infinity;
    for (let i = 0; i <= last; i++) {
      const row = layers[i];
      if (row.length === 0) continue;
      left = Math.min(left, x[g.layers[i][0]] - sep(undefined, row[0]));
      right = Math.max(right, x[g.layers[i][row.length - 1]] + sep(row[row.length - 1], undefined));
    }
    g.nodes.forEach((node, id) => (node.x = x[id] - left));
    return right - left;
  };
}

function sameValues(a: Float64Array, b: Float64Array): boolean {
  for (let k = 0; k < a.length; k++) if (a[k] !== b[k]) return false;
  return true;
}

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
