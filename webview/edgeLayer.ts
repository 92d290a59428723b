import type { StepStatus } from '../src/core/plan/planTypes';
import { setAttr, svg } from './dom';
import type { LayoutEdge, PlanLayout } from './layout';

// The SVG layer under the nodes: one path per step for the dependency edges that lead into it (with
// an open arrowhead drawn in the same path), instead of one path per edge with a marker. The path
// carries the target's status (its colour) and stays local to the target, so a status change
// restyles one element and rasterising stays as cheap as with per-edge paths (a single path per
// status across the whole graph made the first frame after a zoom change twice as slow). Edges
// leaving replaced steps get their own (dimmed) path per target; replacement edges are few and
// dashed, one path each with a marker arrow.

const ARROW_HALF_WIDTH = 4.5;
const ARROW_LENGTH = 7;

const r = (v: number): number => Math.round(v * 10) / 10;

/** An open arrowhead pointing down at `tip` (edges arrive vertically at a node's top edge). */
export function arrowHead([x, y]: readonly [number, number]): string {
  return `M${r(x - ARROW_HALF_WIDTH)},${r(y - ARROW_LENGTH)}L${r(x)},${r(y)}L${r(x + ARROW_HALF_WIDTH)},${r(y - ARROW_LENGTH)}`;
}

interface IncomingPaths {
  live?: SVGPathElement;
  fromReplaced?: SVGPathElement;
}

export class EdgeLayer {
  readonly root: SVGSVGElement;
  private readonly dependencyLayer: SVGGElement;
  private readonly replacementLayer: SVGGElement;
  /** Per target step. */
  private readonly incoming = new Map<string, IncomingPaths>();
  private readonly replacementPaths = new Map<string, SVGPathElement>();

  constructor() {
    this.root = svg('svg', { class: 'edges', 'aria-hidden': 'true' });
    const defs = svg('defs');
    const marker = svg('marker', {
      id: 'cx-arrow-replacement',
      class: 'arrow arrow-replacement',
      viewBox: '0 0 10 10',
      refX: '9',
      refY: '5',
      markerWidth: '7',
      markerHeight: '7',
      orient: 'auto-start-reverse',
    });
    marker.append(svg('path', { d: 'M0,0 L10,5 L0,10 z' }));
    defs.append(marker);
    this.dependencyLayer = svg('g');
    this.replacementLayer = svg('g');
    this.root.append(defs, this.dependencyLayer, this.replacementLayer);
  }

  /** Draws the edges of a new layout. */
  setEdges(layout: PlanLayout, statusOf: (stepId: string) => StepStatus | undefined, isReplaced: (stepId: string) => boolean): void {
    setAttr(this.root, 'width', String(Math.ceil(layout.width)));
    setAttr(this.root, 'height', String(Math.ceil(layout.height)));
    const data = new Map<string, { live: string; fromReplaced: string }>();
    const replacements = new Set<string>();
    for (const edge of layout.edges) {
      if (edge.kind === 'replacement') {
        replacements.add(edge.id);
        this.drawReplacement(edge);
        continue;
      }
      let d = data.get(edge.target);
      if (!d) data.set(edge.target, (d = { live: '', fromReplaced: '' }));
      const drawn = edge.path + arrowHead(edge.end);
      if (isReplaced(edge.source)) d.fromReplaced += drawn;
      else d.live += drawn;
    }
    for (const [target, paths] of this.incoming) {
      if (data.has(target)) continue;
      paths.live?.remove();
      paths.fromReplaced?.remove();
      this.incoming.delete(target);
    }
    for (const [target, d] of data) {
      let paths = this.incoming.get(target);
      if (!paths) this.incoming.set(target, (paths = {}));
      const status = statusOf(target) ?? 'not_started';
      paths.live = this.drawIncoming(paths.live, d.live, 'edge edge-dependency', status);
      paths.fromReplaced = this.drawIncoming(paths.fromReplaced, d.fromReplaced, 'edge edge-dependency from-replaced', status);
    }
    for (const [id, path] of this.replacementPaths) {
      if (replacements.has(id)) continue;
      path.remove();
      this.replacementPaths.delete(id);
    }
  }

  /** A step's status changed: the edges into it change colour. */
  setTargetStatus(stepId: string, status: StepStatus): void {
    const paths = this.incoming.get(stepId);
    if (paths?.live) setAttr(paths.live, 'data-to-status', status);
    if (paths?.fromReplaced) setAttr(paths.fromReplaced, 'data-to-status', status);
  }

  private drawIncoming(path: SVGPathElement | undefined, d: string, className: string, status: StepStatus): SVGPathElement | undefined {
    if (!d) {
      path?.remove();
      return undefined;
    }
    if (!path) {
      path = svg('path', { class: className });
      this.dependencyLayer.append(path);
    }
    setAttr(path, 'd', d);
    setAttr(path, 'data-to-status', status);
    return path;
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
}
