import { coordSimplex, decrossTwoLayer, graph, layeringSimplex, sugiyama, type MutGraphNode } from 'd3-dag';
import type { PlanState, StepState } from '../src/core/plan/planTypes';
import { layeredLayout } from './layeredLayout';

// Pure DAG layout (no DOM): the webview calls it only when `structureVersion` changes. Replaced
// steps stay in the graph (dimmed by the renderer) with a `replacement` edge to what replaced them.
// Small graphs get d3-dag's quality operators (simplex layering, two-layer decrossing with greedy
// swaps, simplex coordinates; its exponential operators are never used), big ones the cheap layered
// layout of layeredLayout.ts (longest-path layering, median sweeps, median coordinates);
// bench/panel.bench.ts prints both at 50 / 200 / 1,000 steps to show why.

export const NODE_WIDTH = 248;
export const NODE_HEIGHT = 112;
/** Horizontal gap between nodes of a layer, vertical gap between layers (room for approval bars). */
export const NODE_GAP: readonly [number, number] = [28, 64];
/** Above this graph size (nodes + edges) the cheap operators are used; simplex cost grows steeply past it. */
export const QUALITY_SIZE_LIMIT = 150;

export type LayoutOperators = 'quality' | 'fast';
export type EdgeKind = 'dependency' | 'replacement';

export interface LayoutNodeInput {
  id: string;
  dependsOn: readonly string[];
  replaced: boolean;
  /** For replaced steps: the step ids the replan put in their place. */
  replacedBy?: readonly string[];
  lineage?: string;
}

export interface PositionedNode {
  id: string;
  /** Top-left corner, in layout pixels. */
  x: number;
  y: number;
  width: number;
  height: number;
  /** Layer index (0 = top). */
  layer: number;
}

export interface LayoutEdge {
  /** `${source}->${target}` */
  id: string;
  source: string;
  target: string;
  kind: EdgeKind;
  /** SVG path data in layout pixels, from the source's bottom edge to the target's top edge. */
  path: string;
  /** Where the edge arrives: the middle of the target's top edge (the arrowhead's tip). */
  end: readonly [number, number];
}

export interface PlanLayout {
  nodes: Map<string, PositionedNode>;
  edges: LayoutEdge[];
  width: number;
  height: number;
  operators: LayoutOperators;
  /** Edges that could not be drawn: unknown endpoint or would close a cycle. */
  dropped: Array<{ source: string; target: string; why: 'unknown' | 'cycle' | 'duplicate' }>;
}

export interface LayoutOptions {
  /** 'auto' picks by graph size (nodes + edges) against `qualityLimit`. */
  operators?: LayoutOperators | 'auto';
  qualityLimit?: number;
}

/** The layout input for a plan: live steps plus replaced ones, in a stable order. */
export function planLayoutInput(state: PlanState): LayoutNodeInput[] {
  const nodes: LayoutNodeInput[] = [];
  const add = (step: StepState, replaced: boolean): void => {
    nodes.push({ id: step.id, dependsOn: step.dependsOn, replaced, replacedBy: step.replacedBy?.newStepIds, lineage: step.lineage });
  };
  for (const step of state.replacedSteps.values()) add(step, true);
  for (const id of state.stepOrder) {
    const step = state.steps.get(id);
    if (step) add(step, false);
  }
  return nodes;
}

/** Chooses the operator set for a graph with `nodeCount` nodes and `edgeCount` edges. */
export function chooseOperators(nodeCount: number, edgeCount: number, qualityLimit = QUALITY_SIZE_LIMIT): LayoutOperators {
  return nodeCount + edgeCount > qualityLimit ? 'fast' : 'quality';
}

interface Edge {
  source: string;
  target: string;
  kind: EdgeKind;
}

/** The replacement target of a replaced step: the new step of its own lineage, else the first new one. */
function replacementTarget(node: LayoutNodeInput, byId: Map<string, LayoutNodeInput>): string | undefined {
  const candidates = (node.replacedBy ?? []).filter((id) => byId.has(id));
  if (candidates.length === 0) return undefined;
  if (node.lineage !== undefined) {
    const same = candidates.find((id) => byId.get(id)!.lineage === node.lineage);
    if (same) return same;
  }
  const newSet = new Set(candidates);
  // The first new step that does not depend on another new step: where the new subgraph starts.
  return candidates.find((id) => !byId.get(id)!.dependsOn.some((dep) => newSet.has(dep))) ?? candidates[0];
}

function reaches(children: Map<string, string[]>, from: string, to: string): boolean {
  const stack = [from];
  const seen = new Set<string>();
  while (stack.length > 0) {
    const id = stack.pop()!;
    if (id === to) return true;
    if (seen.has(id)) continue;
    seen.add(id);
    for (const child of children.get(id) ?? []) stack.push(child);
  }
  return false;
}

/** Collects drawable edges: dependency edges first, then replacement edges; drops anything that would close a cycle. */
export function collectEdges(nodes: readonly LayoutNodeInput[]): { edges: Edge[]; dropped: PlanLayout['dropped'] } {
  const byId = new Map(nodes.map((n) => [n.id, n]));
  const dropped: PlanLayout['dropped'] = [];
  const candidates: Edge[] = [];
  for (const node of nodes) {
    for (const dep of node.dependsOn) candidates.push({ source: dep, target: node.id, kind: 'dependency' });
  }
  for (const node of nodes) {
    if (!node.replaced) continue;
    const target = replacementTarget(node, byId);
    if (target !== undefined) candidates.push({ source: node.id, target, kind: 'replacement' });
  }
  const children = new Map<string, string[]>();
  const seen = new Set<string>();
  const edges: Edge[] = [];
  for (const edge of candidates) {
    if (!byId.has(edge.source) || !byId.has(edge.target)) {
      dropped.push({ source: edge.source, target: edge.target, why: 'unknown' });
      continue;
    }
    const key = `${edge.source}->${edge.target}`;
    if (seen.has(key)) {
      if (edge.kind === 'dependency') dropped.push({ source: edge.source, target: edge.target, why: 'duplicate' });
      continue;
    }
    // A self-loop or an edge whose target already reaches its source would make the graph cyclic.
    if (edge.source === edge.target || reaches(children, edge.target, edge.source)) {
      dropped.push({ source: edge.source, target: edge.target, why: 'cycle' });
      continue;
    }
    seen.add(key);
    edges.push(edge);
    const list = children.get(edge.source);
    if (list) list.push(edge.target);
    else children.set(edge.source, [edge.target]);
  }
  return { edges, dropped };
}

/** SVG path through d3-dag's control points: vertical cubic segments, so edges leave and enter nodes straight. */
export function edgePath(points: ReadonlyArray<readonly [number, number]>): string {
  if (points.length === 0) return '';
  const r = (v: number): number => Math.round(v * 10) / 10;
  let d = `M${r(points[0][0])},${r(points[0][1])}`;
  for (let i = 1; i < points.length; i++) {
    const [x0, y0] = points[i - 1];
    const [x1, y1] = points[i];
    const my = (y0 + y1) / 2;
    d += `C${r(x0)},${r(my)} ${r(x1)},${r(my)} ${r(x1)},${r(y1)}`;
  }
  return d;
}

/** A drawn edge through `points` (centre to centre), trimmed to leave the source's bottom and enter the target's top. */
function layoutEdge(edge: Edge, centres: ReadonlyArray<readonly [number, number]>): LayoutEdge {
  const points = centres.map(([x, y]) => [x, y] as [number, number]);
  const first = points[0];
  const last = points[points.length - 1];
  // Centre to centre, the nodes would hide both ends (and the arrowhead).
  if (first[1] < last[1]) {
    first[1] += NODE_HEIGHT / 2;
    last[1] -= NODE_HEIGHT / 2;
  }
  return { id: `${edge.source}->${edge.target}`, source: edge.source, target: edge.target, kind: edge.kind, path: edgePath(points), end: last };
}

/** The cheap layout (layeredLayout.ts). */
function cheapLayout(input: readonly LayoutNodeInput[], edges: readonly Edge[], dropped: PlanLayout['dropped']): PlanLayout {
  const index = new Map<string, number>();
  for (const node of input) if (!index.has(node.id)) index.set(node.id, index.size);
  const result = layeredLayout({
    count: index.size,
    edges: edges.map((e) => [index.get(e.source)!, index.get(e.target)!] as const),
    nodeWidth: NODE_WIDTH,
    nodeHeight: NODE_HEIGHT,
    gap: NODE_GAP,
  });
  const nodes = new Map<string, PositionedNode>();
  for (const [id, i] of index) {
    nodes.set(id, { id, x: result.x[i] - NODE_WIDTH / 2, y: result.y[i] - NODE_HEIGHT / 2, width: NODE_WIDTH, height: NODE_HEIGHT, layer: result.layer[i] });
  }
  return { nodes, edges: edges.map((edge, k) => layoutEdge(edge, result.points[k])), width: result.width, height: result.height, operators: 'fast', dropped };
}

/** The quality layout: d3-dag's simplex layering and coordinates, two-layer decrossing. */
function qualityLayout(input: readonly LayoutNodeInput[], edges: readonly Edge[], dropped: PlanLayout['dropped']): PlanLayout {
  const g = graph<string, EdgeKind>();
  const handles = new Map<string, MutGraphNode<string, EdgeKind>>();
  for (const node of input) if (!handles.has(node.id)) handles.set(node.id, g.node(node.id));
  const byLink = new Map<string, Edge>();
  for (const edge of edges) {
    g.link(handles.get(edge.source)!, handles.get(edge.target)!, edge.kind);
    byLink.set(`${edge.source}->${edge.target}`, edge);
  }
  const layout = sugiyama()
    .nodeSize([NODE_WIDTH, NODE_HEIGHT] as const)
    .gap(NODE_GAP)
    .layering(layeringSimplex())
    .decross(decrossTwoLayer())
    .coord(coordSimplex());
  const { width, height } = layout(g);
  const layerOf = new Map<number, number>();
  const ys = [...new Set([...g.nodes()].map((n) => n.y))].sort((a, b) => a - b);
  ys.forEach((y, i) => layerOf.set(y, i));
  const nodes = new Map<string, PositionedNode>();
  for (const n of g.nodes()) {
    nodes.set(n.data, { id: n.data, x: n.x - NODE_WIDTH / 2, y: n.y - NODE_HEIGHT / 2, width: NODE_WIDTH, height: NODE_HEIGHT, layer: layerOf.get(n.y) ?? 0 });
  }
  const laid = [...g.links()].map((link) => layoutEdge(byLink.get(`${link.source.data}->${link.target.data}`)!, link.points));
  return { nodes, edges: laid, width, height, operators: 'quality', dropped };
}

/** Lays out the plan graph. Pure and deterministic; never throws for a malformed plan. */
export function layoutPlan(input: readonly LayoutNodeInput[], options: LayoutOptions = {}): PlanLayout {
  const requested = options.operators ?? 'auto';
  const { edges, dropped } = collectEdges(input);
  const operators = requested === 'auto' ? chooseOperators(input.length, edges.length, options.qualityLimit) : requested;
  if (input.length === 0) return { nodes: new Map(), edges: [], width: 0, height: 0, operators, dropped };
  if (operators === 'fast') return cheapLayout(input, edges, dropped);
  try {
    return qualityLayout(input, edges, dropped);
  } catch {
    // The simplex solvers can reject odd graphs; the cheap layout always succeeds.
    return cheapLayout(input, edges, dropped);
  }
}

/**
 * Runs both layouts once on a small plan-shaped graph so the JIT has compiled them before the
 * host's first reset arrives (the panel calls it right after posting webview/ready).
 */
export function warmUpLayout(): void {
  const nodes: LayoutNodeInput[] = [];
  for (let i = 0; i < 48; i++) {
    const layer = Math.floor(i / 4);
    const dependsOn = layer === 0 ? [] : [`w${(layer - 1) * 4 + (i % 4)}`, `w${(layer - 1) * 4 + ((i + 1) % 4)}`];
    nodes.push({ id: `w${i}`, dependsOn, replaced: false });
  }
  layoutPlan(nodes, { operators: 'fast' });
  layoutPlan(nodes.slice(0, 16), { operators: 'quality' });
}
