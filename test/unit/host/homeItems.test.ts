import assert from 'node:assert/strict';
import { age, endpointHost, homeNodes, modelChoices, type HomeFacts } from '../../../src/host/homeItems';
import type { RecentRun } from '../../../src/host/runIndex';

// The Cortex view's items from plain facts: what it lists, in which order, and what each does.

const NOW = 1_800_000_000_000;
const run = (runId: string, status: RecentRun['status'], task = runId): RecentRun => ({
  runId,
  task,
  status,
  startedAt: NOW - 5 * 60_000,
  traceFile: `/${runId}.jsonl`,
});

function facts(overrides: Partial<HomeFacts> = {}): HomeFacts {
  return {
    live: [],
    approvals: [],
    model: { model: 'gpt-4o-mini', baseUrl: 'https://api.openai.com/v1', fallbackModels: [] },
    recent: [],
    resumable: new Set(),
    runTaskKey: 'Ctrl+Alt+J',
    ...overrides,
  };
}

describe('Cortex view items', () => {
  it('always offers the task box first, then the model and the recent runs', () => {
    const nodes = homeNodes(facts(), NOW);
    assert.deepEqual(
      nodes.map((n) => n.id),
      ['task', 'model', 'recent'],
    );
    assert.deepEqual(nodes[0].command, { id: 'cortex.runTask', args: [] });
    assert.equal(nodes[0].description, 'Ctrl+Alt+J');
    assert.equal(nodes[1].label, 'Model: gpt-4o-mini');
    assert.equal(nodes[1].description, 'api.openai.com');
    assert.deepEqual(nodes[1].command, { id: 'cortex.pickModel', args: [] });
    assert.equal(nodes[2].description, 'none yet');
  });

  it('lists the live run with its progress and the approvals waiting, each opening the run panel', () => {
    const nodes = homeNodes(
      facts({
        live: [{ runId: 'r1', task: 'Fix   the\nparser', progress: '1/3 steps done' }],
        approvals: [{ runId: 'r1', requestId: 'q1', summary: 'npm test', reason: 'commands need approval' }],
        recent: [run('r1', 'running'), run('r0', 'failed')],
      }),
      NOW,
    );
    assert.deepEqual(
      nodes.map((n) => n.id),
      ['task', 'live:r1', 'approvals', 'model', 'recent'],
    );
    assert.equal(nodes[1].label, 'Fix the parser');
    assert.equal(nodes[1].contextValue, 'cortex.run.live');
    assert.deepEqual(nodes[1].command, { id: 'cortex.showPanel', args: ['r1'] });
    assert.equal(nodes[2].label, '1 approval waiting');
    assert.deepEqual(nodes[2].children?.[0].command, { id: 'cortex.showPanel', args: ['r1'] });
    assert.equal(nodes[2].children?.[0].label, 'npm test');
    assert.deepEqual(
      nodes[4].children?.map((n) => n.runId),
      ['r0'],
      'the live run is not listed again among the recent ones',
    );
  });

  it('marks each recent run for its actions: resume, retry, or open only', () => {
    const recent = [run('a', 'running'), run('b', 'running'), run('c', 'failed'), run('d', 'cancelled'), run('e', 'completed')];
    const children = homeNodes(facts({ recent, resumable: new Set(['a']) }), NOW).at(-1)!.children!;
    assert.deepEqual(
      children.map((n) => n.contextValue),
      ['cortex.run.interrupted', 'cortex.run.stopped', 'cortex.run.failed', 'cortex.run.cancelled', 'cortex.run.completed'],
    );
    assert.deepEqual(children[2].command, { id: 'cortex.openRun', args: [{ runId: 'c' }] });
    assert.equal(children[2].description, 'failed · 5 min ago');
    assert.ok(
      children.every((n) => n.runId),
      'inline actions receive the run id',
    );
  });

  it('offers the model in use, then each fallback once', () => {
    assert.deepEqual(modelChoices({ model: 'a', fallbackModels: ['b', 'a', 'b', 'c'] }), [
      { model: 'a', inUse: true },
      { model: 'b', inUse: false },
      { model: 'c', inUse: false },
    ]);
  });

  it('says ages and endpoint hosts plainly', () => {
    assert.equal(age(NOW - 10_000, NOW), 'just now');
    assert.equal(age(NOW - 3 * 3_600_000, NOW), '3 h ago');
    assert.equal(age(NOW - 3 * 86_400_000, NOW), '3 days ago');
    assert.equal(endpointHost('http://127.0.0.1:11434/v1'), '127.0.0.1:11434');
    assert.equal(endpointHost('not a url'), 'not a url');
  });
});
