import type { StepStatus } from '../src/core/plan/planTypes';
import { setAttr, svg } from './dom';
import type { LayoutEdge, PlanLayout } from './layout';

// The SVG layer under the nodes. Dependency edges are grouped by the status of the step they lead
// to and by whether they leave a replaced step, and each group is drawn as a few paths of up to
// EDGES_PER_PATH edges (plus one path for their arrowheads) instead of one <path> with a marker per
// edge: on a 200-step plan the 350 per-edge elements cost a sixth of the first render (creating,
// styling and laying them out). Not one path per group: rasterising one path of hundreds of
// curves across the whole graph made the first frame after a zoom change twice as slow as per-edge
// paths (with 32 edges per path it is as fast as per-edge paths again). A status change moves the edges into that step from one group to another. Replacement
// edges are few and dashed; they stay one path each, with a marker arrow.

/** Drawing order: edges from replaced steps first (they are dimmed), edges into running steps last (on top). */
const STATUS_ORDER: readonly StepStatus[] = ['not_started', 'completed', 'failed', 'blocked', 'in_progress'];
/** Edges per path: small enough to rasterise like separate paths, big enough to keep elements few. */
const EDGES_PER_PATH = 32;
const ARROW_HALF_WIDTH = 4.5;
const ARROW_LENGTH = 8;

interface EdgeGroup {
  /** Holds the group's paths: curves and arrowheads per chunk of edges. */
  layer: SVGGElement;
  /** Attributes of every path of the group (class and data-to-status). */
  attrs: { curves: Record<string, string>; heads: Record<string, string> };
  fromReplaced: boolean;
  edges: Set<LayoutEdge>;
  dirty: boolean;
}

const groupKey = (status: StepStatus, fromReplaced: boolean): string => `${status}|${fromReplaced ? 'replaced' : 'live'}`;
const r = (v: number): number => Math.round(v * 10) / 10;

/** A filled arrowhead pointing down at `tip` (edges arrive vertically at a node's top edge). */
export function arrowHead([x, y]: readonly [number, number]): string {
  return `M${r(x - ARROW_HALF_WIDTH)},${r(y - ARROW_LENGTH)}L${r(x)},${r(y)}L${r(x + ARROW_HALF_WIDTH)},${r(y - ARROW_LENGTH)}Z`;
}

export class EdgeLayer {
  readonly root: SVGSVGElement;
  private readonly groups = new Map<string, EdgeGroup>();
  private readonly groupOf = new Map<LayoutEdge, EdgeGroup>();
  private readonly intoStep = new Map<string, LayoutEdge[]>();
  private readonly replacementLayer: SVGGElement;
  private readonly replacementPaths = new Map<string, SVGPathElement>();

  constructor() {
    this.root = svg('svg', { class: 'edges', 'aria-hidden': 'true' });
    const defs = svg('defs');
    const marker = svg('marker', { id: 'cx-arrow-replacement', class: 'arrow arrow-replacement', viewBox: '0 0 10 10', refX: '9', refY: '5', markerWidth: '7', markerHeight: '7', orient: 'auto-start-reverse' });
    marker.append(svg('path', { d: 'M0,0 L10,5 L0,10 z' }));
    defs.append(marker);
    const dependencyLayer = svg('g');
    for (const fromReplaced of [true, false]) {
      for (const status of STATUS_ORDER) {
        const dim = fromReplaced ? ' from-replaced' : '';
        const attrs = { curves: { class: `edge edge-dependency${dim}`, 'data-to-status': status }, heads: { class: `edge-head${dim}`, 'data-to-status': status } };
        const layer = svg('g');
        dependencyLayer.append(layer);
        this.groups.set(groupKey(status, fromReplaced), { layer, attrs, fromReplaced, edges: new Set(), dirty: false });
      }
    }
    this.replacementLayer = svg('g');
    this.root.append(defs, dependencyLayer, this.replacementLayer);
  }

  /** Draws the edges of a new layout. */
  setEdges(layout: PlanLayout, statusOf: (stepId: string) => StepStatus | undefined, isReplaced: (stepId: string) => boolean): void {
    setAttr(this.root, 'width', String(Math.ceil(layout.width)));
    setAttr(this.root, 'height', String(Math.ceil(layout.height)));
    for (const group of this.groups.values()) {
      group.edges.clear();
      group.dirty = true;
    }
    this.groupOf.clear();
    this.intoStep.clear();
    const replacements = new Set<string>();
    for (const edge of layout.edges) {
      if (edge.kind === 'replacement') {
        replacements.add(edge.id);
        this.drawReplacement(edge);
        continue;
      }
      const group = this.groups.get(groupKey(statusOf(edge.target) ?? 'not_started', isReplaced(edge.source)))!;
      group.edges.add(edge);
      this.groupOf.set(edge, group);
      const into = this.intoStep.get(edge.target);
      if (into) into.push(edge);
      else this.intoStep.set(edge.target, [edge]);
    }
    for (const [id, path] of this.replacementPaths) {
      if (replacements.has(id)) continue;
      path.remove();
      this.replacementPaths.delete(id);
    }
    this.redraw();
  }

  /** A step's status changed: the dependency edges into it change colour (drawn by `flush`). */
  setTargetStatus(stepId: string, status: StepStatus): void {
    for (const edge of this.intoStep.get(stepId) ?? []) {
      const from = this.groupOf.get(edge)!;
      const to = this.groups.get(groupKey(status, from.fromReplaced))!;
      if (from === to) continue;
      from.edges.delete(edge);
      to.edges.add(edge);
      from.dirty = to.dirty = true;
      this.groupOf.set(edge, to);
    }
  }

  /** Redraws the groups that changed since the last flush: once per frame, however many steps changed. */
  flush(): void {
    this.redraw();
  }

  private drawReplacement(edge: LayoutEdge): void {
    let path = this.replacementPaths.get(edge.id);
    if (!path) {
      path = svg('path', { class: 'edge edge-replacement from-replaced', 'marker-end': 'url(#cx-arrow-replacement)' });
      this.replacementPaths.set(edge.id, path);
      this.replacementLayer.append(path);
    }
    setAttr(path, 'd', edge.path);
  }

  private redraw(): void {
    for (const group of this.groups.values()) {
      if (!group.dirty) continue;
      group.dirty = false;
      // Neighbouring edges share a path, so each path covers a small part of the graph.
      const edges = [...group.edges].sort((a, b) => a.end[1] - b.end[1] || a.end[0] - b.end[0]);
      const paths = group.layer.children;
      let used = 0;
      for (let start = 0; start < edges.length; start += EDGES_PER_PATH) {
        let curves = '';
        let heads = '';
        for (const edge of edges.slice(start, start + EDGES_PER_PATH)) {
          curves += edge.path;
          heads += arrowHead(edge.end);
        }
        if (paths.length < used + 2) group.layer.append(svg('path', group.attrs.curves), svg('path', group.attrs.heads));
        setAttr(paths[used], 'd', curves);
        setAttr(paths[used + 1], 'd', heads);
        used += 2;
      }
      while (paths.length > used) paths[paths.length - 1].remove();
    }
  }
}
