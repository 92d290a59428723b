import assert from 'node:assert/strict';
import { checkPlanInvariants, findCycle, normalizeRelativeDependencies, PlanGraph, PlanInvariantError } from '../../../src/core/plan/planGraph';
import { completeExampleUpstream, examplePlan, rawPlan, readySteps, runStep, sid } from './planFixtures';
import { seededRandom as mulberry32 } from '../../support/seededRandom';
import { dependencyMap, naiveDownstream } from '../../support/naiveDownstream';

describe('planGraph', () => {
  describe('findCycle', () => {
    it('returns null for a DAG', () => {
      const deps: Record<string, string[]> = { a: [], b: ['a'], c: ['a', 'b'] };
      assert.equal(
        findCycle(Object.keys(deps), (id) => deps[id]),
        null,
      );
    });

    it('returns the cycle path, closed on its first node', () => {
      const deps: Record<string, string[]> = { a: [], b: ['a', 'd'], c: ['b'], d: ['c'] };
      const cycle = findCycle(Object.keys(deps), (id) => deps[id])!;
      assert.equal(cycle[0], cycle[cycle.length - 1]);
      assert.deepEqual(new Set(cycle), new Set(['b', 'c', 'd']));
      // Each consecutive pair is a real dependency edge.
      for (let i = 0; i + 1 < cycle.length; i++) assert.ok(deps[cycle[i]].includes(cycle[i + 1]), `${cycle[i]} → ${cycle[i + 1]}`);
    });

    it('finds a self-dependency and ignores edges to unknown nodes', () => {
      assert.deepEqual(
        findCycle(['a'], () => ['a']),
        ['a', 'a'],
      );
      assert.equal(
        findCycle(['a'], () => ['zzz']),
        null,
      );
    });

    it('handles a 20,000-node chain without overflowing the stack', () => {
      const n = 20_000;
      const nodes = Array.from({ length: n }, (_, i) => `n${i}`);
      assert.equal(
        findCycle(nodes, (id) => (id === 'n0' ? [] : [`n${Number(id.slice(1)) - 1}`])),
        null,
      );
      const cycle = findCycle(nodes, (id) => [`n${(Number(id.slice(1)) + 1) % n}`]);
      assert.equal(cycle?.length, n + 1);
    });
  });

  describe('normalizeRelativeDependencies', () => {
    it('deduplicates and accepts numeric-string keys', () => {
      assert.deepEqual(normalizeRelativeDependencies(3, { '2': [0, 1, 0], ' 1 ': [0] }), { deps: [[], [0], [0, 1]] });
    });

    for (const [name, deps, kind, text] of [
      ['a key out of range', { 5: [0] }, 'dangling', /step 5/],
      ['a dependency out of range', { 1: [7] }, 'dangling', /step 1 depends on step 7, which does not exist/],
      ['a negative dependency', { 1: [-1] }, 'dangling', /step -1/],
      ['a key that is not an index', { first: [0] }, 'bad_key', /"first"/],
      ['a self-dependency', { 1: [1] }, 'self_dependency', /step 1 depends on itself/],
      ['a cycle', { 0: [2], 1: [0], 2: [1] }, 'cycle', /cycle: step \d → step \d → step \d → step \d/],
    ] as const) {
      it(`reports ${name}`, () => {
        const result = normalizeRelativeDependencies(3, deps);
        assert.ok('problem' in result, 'expected a problem');
        assert.equal(result.problem.kind, kind);
        assert.match(result.problem.message, text);
      });
    }
  });

  describe('PlanGraph.downstream', () => {
    it('direct dependency', () => {
      const { log } = examplePlan();
      assert.deepEqual(PlanGraph.fromState(log.state).downstream(sid(6)), []);
      assert.deepEqual(PlanGraph.fromState(log.state).downstream(sid(3)), [sid(5), sid(6), sid(7)]);
    });

    it('indirect dependency', () => {
      const { log } = examplePlan();
      assert.deepEqual(PlanGraph.fromState(log.state).downstream(sid(1)), [sid(3), sid(5), sid(6), sid(7)]);
    });

    it('complex DAG: the example plan from every node, excluding itself, equal to the naive walk', () => {
      const { log } = examplePlan();
      const graph = PlanGraph.fromState(log.state);
      assert.deepEqual(graph.downstream(sid(0)), [1, 2, 3, 4, 5, 6, 7].map(sid));
      assert.deepEqual(graph.downstream(sid(5)), [sid(6), sid(7)]);
      for (const id of log.state.stepOrder) assert.deepEqual(graph.downstream(id), naiveDownstream(dependencyMap(log.state), id), id);
    });

    it('diamonds and shared descendants are listed once, in plan order', () => {
      const log = rawPlan({ a: [], b: ['a'], c: ['a'], d: ['b', 'c'], e: ['d', 'a'], f: ['c'], x: [] });
      assert.deepEqual(PlanGraph.fromState(log.state).downstream('a'), ['b', 'c', 'd', 'e', 'f']);
      assert.deepEqual(PlanGraph.fromState(log.state).downstream('c'), ['d', 'e', 'f']);
    });

    it('matches the naive algorithm on random sparse DAGs', () => {
      const random = mulberry32(42);
      for (let trial = 0; trial < 20; trial++) {
        const n = 5 + Math.floor(random() * 80);
        const deps: Record<string, string[]> = {};
        for (let i = 0; i < n; i++) {
          const list = new Set<string>();
          for (let k = 0; k < 3; k++) if (i > 0 && random() < 0.6) list.add(`t${Math.floor(random() * i)}`);
          deps[`t${i}`] = [...list];
        }
        const log = rawPlan(deps);
        const graph = PlanGraph.fromState(log.state);
        for (let i = 0; i < n; i += 3) assert.deepEqual(graph.downstream(`t${i}`), naiveDownstream(dependencyMap(log.state), `t${i}`));
      }
    });

    it('never lists the step itself, even through a cycle in a raw trace', () => {
      const log = rawPlan({ a: ['c'], b: ['a'], c: ['b'], d: ['c'] });
      assert.deepEqual(PlanGraph.fromState(log.state).downstream('a'), ['b', 'c', 'd']);
      assert.deepEqual(naiveDownstream(dependencyMap(log.state), 'a'), ['b', 'c', 'd']);
    });

    it('refuses an unknown or replaced step', () => {
      const { log } = examplePlan();
      assert.throws(() => PlanGraph.fromState(log.state).downstream('nope'), PlanInvariantError);
    });
  });

  describe('topologicalOrder, criticalPathLength', () => {
    it('topological order puts dependencies first', () => {
      const log = rawPlan({ d: ['b', 'c'], c: ['a'], b: ['a'], a: [] });
      const order = PlanGraph.fromState(log.state).topologicalOrder();
      assert.deepEqual(order, ['a', 'c', 'b', 'd']);
    });

    it('critical path counts the longest downstream chain including the step', () => {
      const { log } = examplePlan();
      const graph = PlanGraph.fromState(log.state);
      // 0 → 1 → 3 → 5 → 6 is five steps.
      assert.equal(graph.criticalPathLength(sid(0)), 5);
      assert.equal(graph.criticalPathLength(sid(4)), 3);
      assert.equal(graph.criticalPathLength(sid(7)), 1);
    });

    it('a cycle in a raw trace is reported by topologicalOrder', () => {
      const log = rawPlan({ a: ['b'], b: ['a'], c: [] });
      assert.throws(() => PlanGraph.fromState(log.state).topologicalOrder(), /cycle: (a → b → a|b → a → b)/);
    });

    it('forState reuses the graph until the structure changes', () => {
      const { log } = examplePlan();
      const first = PlanGraph.forState(log.state);
      runStep(log, sid(0), []);
      assert.equal(PlanGraph.forState(log.state), first);
      log.append({ type: 'step_added', stepId: 'x', description: 'x', dependsOn: [sid(7)], lineage: 'x', replanAttempts: 0, origin: 'planner' });
      const second = PlanGraph.forState(log.state);
      assert.notEqual(second, first);
      assert.deepEqual(second.downstream(sid(5)), [sid(6), sid(7), 'x']);
    });
  });

  describe('id lookup', () => {
    it('works for allocator ids, other ids, look-alikes and gaps', () => {
      // "s01" is not "s1"; a dependency on a missing allocator id is dangling, not a position.
      const log = rawPlan({ s1: [], s01: ['s1'], s3: ['s01', 's2'], s10: ['s3', 's99'], x: ['s10'] });
      const graph = PlanGraph.fromState(log.state);
      assert.deepEqual(graph.downstream('s1'), ['s01', 's3', 's10', 'x']);
      assert.deepEqual(graph.danglingDependencies(), [
        { stepId: 's3', dependsOn: 's2' },
        { stepId: 's10', dependsOn: 's99' },
      ]);
      assert.equal(graph.has('s2'), false);
      assert.equal(graph.has('s0'), false);
      const numeric = rawPlan({ s1: [], s3: ['s1'], s7: ['s3'] });
      const g2 = PlanGraph.fromState(numeric.state);
      assert.deepEqual(g2.downstream('s1'), ['s3', 's7']);
      assert.equal(g2.has('s2'), false);
      assert.equal(g2.has('s007'), false);
      assert.throws(() => g2.downstream('s2'), PlanInvariantError);
      assert.deepEqual(readySteps(numeric.state), ['s1']);
    });
  });

  describe('checkPlanInvariants', () => {
    it('accepts the example plan before and after work', () => {
      const { log } = examplePlan();
      checkPlanInvariants(log.state);
      completeExampleUpstream(log);
      checkPlanInvariants(log.state);
    });

    it('names a dangling dependency', () => {
      assert.throws(() => checkPlanInvariants(rawPlan({ a: [], b: ['ghost'] }).state), /b depends on "ghost", which is not a live step/);
    });

    it('names a cycle', () => {
      assert.throws(() => checkPlanInvariants(rawPlan({ a: ['c'], b: ['a'], c: ['b'] }).state), /cycle: a → c → b → a/);
    });
  });
});
