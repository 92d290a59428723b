import assert from 'node:assert/strict';
import { aggMedian, coordGreedy, decrossDfs, decrossTwoLayer, graph, layeringLongestPath, sugiyama, twolayerAgg, type Graph } from 'd3-dag';
import { syntheticSteps } from '../../../bench/panelHarness/syntheticPlan';
import { collectEdges, NODE_GAP, NODE_HEIGHT, NODE_WIDTH } from '../../../webview/layout';
import { coordMedian, countCrossings, decrossSweeps } from '../../../webview/layoutOperators';

/** A d3-dag graph of `[source, target]` links between named nodes (in the order given). */
function build(names: string[], links: Array<[string, string]>): Graph<string, undefined> {
  const g = graph<string, undefined>();
  const nodes = new Map(names.map((n) => [n, g.node(n)]));
  for (const [s, t] of links) g.link(nodes.get(s)!, nodes.get(t)!, undefined);
  return g;
}

function planGraph(n: number): Graph<string, undefined> {
  const steps = syntheticSteps(n);
  const { edges } = collectEdges(steps.map((s) => ({ id: s.id, dependsOn: s.dependsOn, replaced: false })));
  return build(steps.map((s) => s.id), edges.map((e) => [e.source, e.target]));
}

/** Crossings of the drawn edges: segments between the same two layers whose ends swap order. */
function drawnCrossings(g: Graph<string, undefined>): number {
  const byLayer = new Map<number, Array<[number, number]>>();
  for (const link of g.links()) {
    for (let i = 1; i < link.points.length; i++) {
      const y = link.points[i - 1][1];
      const list = byLayer.get(y) ?? [];
      list.push([link.points[i - 1][0], link.points[i][0]]);
      byLayer.set(y, list);
    }
  }
  let crossings = 0;
  for (const segs of byLayer.values()) {
    for (let i = 0; i < segs.length; i++) for (let j = i + 1; j < segs.length; j++) if ((segs[i][0] - segs[j][0]) * (segs[i][1] - segs[j][1]) < 0) crossings++;
  }
  return crossings;
}

const cheap = () => sugiyama().nodeSize([NODE_WIDTH, NODE_HEIGHT] as const).gap(NODE_GAP).layering(layeringLongestPath());

describe('webview layout operators (cheap sugiyama)', () => {
  it('counts crossings between adjacent layers', () => {
    // a b over c d: a->d and b->c cross once; a->c and b->d add no crossing.
    const down = [[2, 3], [2, 3], [], []];
    assert.equal(countCrossings({ layers: [[0, 1], [2, 3]], down, pos: Int32Array.from([0, 1, 0, 1]) }), 1);
    assert.equal(countCrossings({ layers: [[0, 1], [2, 3]], down: [[3], [2], [], []], pos: Int32Array.from([0, 1, 0, 1]) }), 1);
    assert.equal(countCrossings({ layers: [[0, 1], [2, 3]], down: [[2], [3], [], []], pos: Int32Array.from([0, 1, 0, 1]) }), 0);
    // Edges sharing an end never cross.
    assert.equal(countCrossings({ layers: [[0, 1], [2]], down: [[2], [2], []], pos: Int32Array.from([0, 1, 0]) }), 0);
  });

  it('untangles a crossing that a better order removes', () => {
    // Listed so that the given order crosses: a->y, b->x.
    const g = build(['a', 'b', 'x', 'y'], [['a', 'y'], ['b', 'x']]);
    cheap().decross(decrossSweeps()).coord(coordMedian())(g);
    assert.equal(drawnCrossings(g), 0);
  });

  it('keeps nodes apart and draws a long edge as one straight line', () => {
    // r->c skips two layers: its dummy nodes must line up vertically.
    const g = build(['r', 'a', 'b', 'c', 'd'], [['r', 'a'], ['a', 'b'], ['b', 'c'], ['r', 'c'], ['r', 'd'], ['d', 'b']]);
    // d3-dag validates the separation of the coordinates itself and throws if nodes overlap.
    const { width } = cheap().decross(decrossSweeps()).coord(coordMedian())(g);
    assert.ok(width >= 2 * NODE_WIDTH + NODE_GAP[0], `width ${width}`);
    const long = [...g.links()].find((l) => l.source.data === 'r' && l.target.data === 'c')!;
    assert.equal(long.points.length, 4, 'source, two dummies, target');
    assert.equal(long.points[1][0], long.points[2][0]);
    for (const node of g.nodes()) assert.ok(node.x - NODE_WIDTH / 2 >= -1e-6 && node.x + NODE_WIDTH / 2 <= width + 1e-6, `${node.data} inside the width`);
  });

  it('crosses no more edges than d3-dag’s built-in cheap operators on a 200-step plan', () => {
    const ours = planGraph(200);
    cheap().decross(decrossSweeps()).coord(coordMedian())(ours);
    const builtIn = planGraph(200);
    cheap().decross(decrossTwoLayer().order(twolayerAgg().aggregator(aggMedian)).passes(1).inits([decrossDfs()])).coord(coordGreedy())(builtIn);
    assert.ok(drawnCrossings(ours) <= drawnCrossings(builtIn), `${drawnCrossings(ours)} vs ${drawnCrossings(builtIn)} crossings`);
  });
});
