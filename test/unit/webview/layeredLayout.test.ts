import assert from 'node:assert/strict';
import { aggMedian, coordGreedy, decrossDfs, decrossTwoLayer, graph, layeringLongestPath, sugiyama, twolayerAgg } from 'd3-dag';
import { syntheticSteps } from '../../support/plans/syntheticPlan';
import { assignLayers, countCrossings, layeredLayout, type LayeredInput } from '../../../webview/layeredLayout';
import { collectEdges, NODE_GAP, NODE_HEIGHT, NODE_WIDTH } from '../../../webview/layout';

const SIZE = { nodeWidth: NODE_WIDTH, nodeHeight: NODE_HEIGHT, gap: NODE_GAP };

/** A graph of named nodes and `[source, target]` links, as layeredLayout input. */
function named(names: string[], links: Array<[string, string]>): LayeredInput {
  const at = (n: string): number => names.indexOf(n);
  return { count: names.length, edges: links.map(([s, t]) => [at(s), at(t)] as const), ...SIZE };
}

function planInput(n: number): LayeredInput {
  const steps = syntheticSteps(n);
  const { edges } = collectEdges(steps.map((s) => ({ id: s.id, dependsOn: s.dependsOn, replaced: false })));
  const index = new Map(steps.map((s, i) => [s.id, i]));
  return { count: steps.length, edges: edges.map((e) => [index.get(e.source)!, index.get(e.target)!] as const), ...SIZE };
}

/** Crossings of drawn polylines: segments between the same two layers whose ends swap order. */
function drawnCrossings(polylines: ReadonlyArray<ReadonlyArray<readonly [number, number]>>): number {
  const byLayer = new Map<number, Array<[number, number]>>();
  for (const points of polylines) {
    for (let i = 1; i < points.length; i++) {
      const list = byLayer.get(points[i - 1][1]) ?? [];
      list.push([points[i - 1][0], points[i][0]]);
      byLayer.set(points[i - 1][1], list);
    }
  }
  let crossings = 0;
  for (const segs of byLayer.values()) {
    for (let i = 0; i < segs.length; i++) for (let j = i + 1; j < segs.length; j++) if ((segs[i][0] - segs[j][0]) * (segs[i][1] - segs[j][1]) < 0) crossings++;
  }
  return crossings;
}

function overlapping(input: LayeredInput, x: Float64Array, y: Float64Array): string[] {
  const bad: string[] = [];
  for (let i = 0; i < input.count; i++) {
    for (let j = i + 1; j < input.count; j++)
      if (Math.abs(x[i] - x[j]) < NODE_WIDTH + NODE_GAP[0] - 1e-6 && Math.abs(y[i] - y[j]) < NODE_HEIGHT) bad.push(`${i}/${j}`);
  }
  return bad;
}

describe('webview layered layout (the cheap layout of big plans)', () => {
  it('counts crossings between adjacent layers', () => {
    // Nodes 0 and 1 above 2 and 3, each layer in that order; `down` lists each node's children.
    const twoByTwo = (down: number[][]) =>
      countCrossings({
        layers: [
          [0, 1],
          [2, 3],
        ],
        down,
        pos: Int32Array.from([0, 1, 0, 1]),
      });
    assert.equal(twoByTwo([[2, 3], [2, 3], [], []]), 1);
    assert.equal(twoByTwo([[3], [2], [], []]), 1);
    assert.equal(twoByTwo([[2], [3], [], []]), 0);
    // Edges sharing an end never cross.
    assert.equal(countCrossings({ layers: [[0, 1], [2]], down: [[2], [2], []], pos: Int32Array.from([0, 1, 0]) }), 0);
  });

  it('layers by longest path and pulls each node down to just above its highest child', () => {
    // a->b->c->d, and e->d: e sits right above d, not at the top.
    const input = named(
      ['a', 'b', 'c', 'd', 'e'],
      [
        ['a', 'b'],
        ['b', 'c'],
        ['c', 'd'],
        ['e', 'd'],
      ],
    );
    assert.deepEqual([...assignLayers(input.count, input.edges)], [0, 1, 2, 3, 2]);
    assert.throws(
      () =>
        assignLayers(2, [
          [0, 1],
          [1, 0],
        ]),
      /cycle/,
    );
  });

  it('untangles a crossing that a better order removes', () => {
    // Listed so that the given order crosses: a->y, b->x.
    const result = layeredLayout(
      named(
        ['a', 'b', 'x', 'y'],
        [
          ['a', 'y'],
          ['b', 'x'],
        ],
      ),
    );
    assert.equal(result.crossings, 0);
    assert.equal(drawnCrossings(result.points), 0);
  });

  it('keeps nodes apart and draws a long edge as one straight line', () => {
    // r->c skips two layers: its two dummy points must line up vertically.
    const input = named(
      ['r', 'a', 'b', 'c', 'd'],
      [
        ['r', 'a'],
        ['a', 'b'],
        ['b', 'c'],
        ['r', 'c'],
        ['r', 'd'],
        ['d', 'b'],
      ],
    );
    const result = layeredLayout(input);
    const long = result.points[3];
    assert.equal(long.length, 4, 'source, two dummies, target');
    assert.equal(long[1][0], long[2][0]);
    assert.deepEqual(overlapping(input, result.x, result.y), []);
    for (let i = 0; i < input.count; i++)
      assert.ok(result.x[i] - NODE_WIDTH / 2 >= -1e-6 && result.x[i] + NODE_WIDTH / 2 <= result.width + 1e-6, `node ${i} inside the width`);
    assert.equal(result.height, 4 * NODE_HEIGHT + 3 * NODE_GAP[1]);
  });

  it('lays out a 200-step plan: dependencies above dependents, no overlaps, edges from source to target', () => {
    const input = planInput(200);
    const result = layeredLayout(input);
    assert.deepEqual(overlapping(input, result.x, result.y), []);
    input.edges.forEach(([s, t], k) => {
      assert.ok(result.layer[s] < result.layer[t], `edge ${k} goes down`);
      const points = result.points[k];
      assert.deepEqual(points[0], [result.x[s], result.y[s]]);
      assert.deepEqual(points[points.length - 1], [result.x[t], result.y[t]]);
      assert.equal(points.length, result.layer[t] - result.layer[s] + 1, 'one point per layer');
    });
    assert.equal(result.crossings, drawnCrossings(result.points), 'the reported crossings are the drawn ones');
  });

  it('crosses no more edges than d3-dag’s built-in cheap operators on a 200-step plan', () => {
    const input = planInput(200);
    const ours = layeredLayout(input);
    const g = graph<number, undefined>();
    const nodes = Array.from({ length: input.count }, (_, i) => g.node(i));
    for (const [s, t] of input.edges) g.link(nodes[s], nodes[t], undefined);
    sugiyama()
      .nodeSize([NODE_WIDTH, NODE_HEIGHT] as const)
      .gap(NODE_GAP)
      .layering(layeringLongestPath())
      .decross(decrossTwoLayer().order(twolayerAgg().aggregator(aggMedian)).passes(1).inits([decrossDfs()]))
      .coord(coordGreedy())(g);
    const builtIn = drawnCrossings([...g.links()].map((l) => l.points));
    assert.ok(ours.crossings <= builtIn, `${ours.crossings} vs ${builtIn} crossings`);
  });
});
