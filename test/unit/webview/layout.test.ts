import assert from 'node:assert/strict';
import { foldEvents } from '../../../src/core/plan/reducer';
import { demoPlan } from '../../support/plans/demoPlan';
import { syntheticSteps } from '../../support/plans/syntheticPlan';
import {
  chooseOperators,
  collectEdges,
  edgePath,
  layoutPlan,
  NODE_HEIGHT,
  NODE_WIDTH,
  planLayoutInput,
  QUALITY_SIZE_LIMIT,
  type LayoutNodeInput,
  type PlanLayout,
} from '../../../webview/layout';

function overlaps(layout: PlanLayout): string[] {
  const nodes = [...layout.nodes.values()];
  const bad: string[] = [];
  for (let i = 0; i < nodes.length; i++) {
    for (let j = i + 1; j < nodes.length; j++) {
      const a = nodes[i];
      const b = nodes[j];
      if (a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height) bad.push(`${a.id}/${b.id}`);
    }
  }
  return bad;
}

const input = (n: number): LayoutNodeInput[] => syntheticSteps(n).map((s) => ({ id: s.id, dependsOn: s.dependsOn, replaced: false }));

describe('webview layout', () => {
  it('lays out every live and replaced step of a folded plan, with replacement edges', () => {
    const state = foldEvents(demoPlan().events);
    const nodes = planLayoutInput(state);
    assert.equal(nodes.length, state.steps.size + state.replacedSteps.size);
    assert.deepEqual(
      nodes
        .filter((n) => n.replaced)
        .map((n) => n.id)
        .sort(),
      ['s2', 's4'],
    );
    const layout = layoutPlan(nodes);
    assert.equal(layout.nodes.size, nodes.length);
    const replacement = layout.edges
      .filter((e) => e.kind === 'replacement')
      .map((e) => e.id)
      .sort();
    // s2 and s4 each point at the new step of their own lineage.
    assert.deepEqual(replacement, ['s2->s5', 's4->s7']);
    assert.deepEqual(overlaps(layout), []);
    assert.deepEqual(layout.dropped, []);
  });

  it('points a replaced step without a same-lineage successor at the first new step of the new subgraph', () => {
    const nodes: LayoutNodeInput[] = [
      { id: 'a', dependsOn: [], replaced: false, lineage: 'a' },
      { id: 'b', dependsOn: ['a'], replaced: true, replacedBy: ['d', 'c'], lineage: 'b' },
      { id: 'c', dependsOn: ['a'], replaced: false, lineage: 'x' },
      { id: 'd', dependsOn: ['c'], replaced: false, lineage: 'y' },
    ];
    const { edges } = collectEdges(nodes);
    assert.deepEqual(
      edges.find((e) => e.kind === 'replacement'),
      { source: 'b', target: 'c', kind: 'replacement' },
    );
  });

  it('places dependencies above their dependents and never overlaps nodes (200 steps)', () => {
    const nodes = input(200);
    const layout = layoutPlan(nodes);
    assert.equal(layout.nodes.size, 200);
    assert.deepEqual(overlaps(layout), []);
    for (const node of nodes) {
      for (const dep of node.dependsOn) assert.ok(layout.nodes.get(dep)!.layer < layout.nodes.get(node.id)!.layer, `${dep} above ${node.id}`);
    }
    const edgeCount = nodes.reduce((a, n) => a + n.dependsOn.length, 0);
    assert.equal(layout.edges.length, edgeCount);
    for (const edge of layout.edges) {
      assert.match(edge.path, /^M[-\d.]+,[-\d.]+(C[-\d., ]+)+$/);
      // From the bottom edge of the source to the top edge of the target, where the arrowhead goes.
      const source = layout.nodes.get(edge.source)!;
      const target = layout.nodes.get(edge.target)!;
      assert.ok(
        edge.path.startsWith(`M${Math.round((source.x + NODE_WIDTH / 2) * 10) / 10},${Math.round((source.y + NODE_HEIGHT) * 10) / 10}C`),
        `${edge.id} starts at the bottom of ${edge.source}: ${edge.path.slice(0, 30)}`,
      );
      assert.deepEqual(edge.end, [target.x + NODE_WIDTH / 2, target.y]);
    }
  });

  it('uses the quality operators for small graphs and the cheap ones above the size limit', () => {
    assert.equal(chooseOperators(50, 100), 'quality');
    assert.equal(chooseOperators(60, QUALITY_SIZE_LIMIT - 59), 'fast');
    assert.equal(layoutPlan(input(20)).operators, 'quality');
    assert.equal(layoutPlan(input(200)).operators, 'fast');
    assert.equal(layoutPlan(input(20), { operators: 'fast' }).operators, 'fast');
  });

  it('drops unknown, duplicate and cycle-closing edges instead of throwing', () => {
    const nodes: LayoutNodeInput[] = [
      { id: 'a', dependsOn: ['c'], replaced: false },
      { id: 'b', dependsOn: ['a', 'a', 'ghost'], replaced: false },
      { id: 'c', dependsOn: ['b'], replaced: false },
      { id: 'd', dependsOn: ['d'], replaced: false },
    ];
    const layout = layoutPlan(nodes);
    assert.equal(layout.nodes.size, 4);
    const why = layout.dropped.map((d) => `${d.source}->${d.target}:${d.why}`).sort();
    assert.deepEqual(why, ['a->b:duplicate', 'b->c:cycle', 'd->d:cycle', 'ghost->b:unknown']);
    assert.deepEqual(overlaps(layout), []);
  });

  it('returns an empty layout for an empty plan and uses the fixed node size', () => {
    const empty = layoutPlan([]);
    assert.equal(empty.nodes.size, 0);
    assert.equal(empty.width, 0);
    const one = layoutPlan([{ id: 'x', dependsOn: [], replaced: false }]);
    const node = one.nodes.get('x')!;
    assert.equal(node.width, NODE_WIDTH);
    assert.equal(node.height, NODE_HEIGHT);
    assert.ok(one.width >= NODE_WIDTH && one.height >= NODE_HEIGHT);
  });

  it('is deterministic', () => {
    const a = layoutPlan(input(80));
    const b = layoutPlan(input(80));
    assert.deepEqual([...a.nodes.values()], [...b.nodes.values()]);
    assert.deepEqual(a.edges, b.edges);
  });

  it('draws edges as vertical cubic segments through the control points', () => {
    assert.equal(edgePath([]), '');
    assert.equal(
      edgePath([
        [0, 0],
        [10, 20],
      ]),
      'M0,0C0,10 10,10 10,20',
    );
    assert.equal(
      edgePath([
        [0, 0],
        [0, 10],
        [4, 30],
      ]),
      'M0,0C0,5 0,5 0,10C0,20 4,20 4,30',
    );
  });
});
