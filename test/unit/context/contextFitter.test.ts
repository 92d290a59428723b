import assert from 'node:assert/strict';
import { COMPACT_SYSTEM_PROMPT } from '../../../src/core/context/compaction';
import { ContextBudget } from '../../../src/core/context/contextBudget';
import { ContextExhaustedError } from '../../../src/core/context/contextExhausted';
import { fitRequest, prepareFit, summaryAllowance, type ContextCostRecord, type ContextFitDeps } from '../../../src/core/context/contextFitter';
import { isPrunedStub } from '../../../src/core/context/conversationShape';
import { contentText, countPromptTokens, countTextTokens } from '../../../src/core/context/tokenCounter';
import { LlmError, type ChatMessage } from '../../../src/core/llm/llmTypes';
import { assertPaired, conversation, filler, head } from './conversationFixtures';

function harness(window: number, summarise: ContextFitDeps['summarise'] = () => Promise.resolve('Read f0…f5; nothing else found.')) {
  const records: ContextCostRecord[] = [];
  const summaries: ChatMessage[][] = [];
  const deps: ContextFitDeps = {
    budget: new ContextBudget({ windowTokens: window, reserveOutputTokens: 0 }, 'm'),
    summarise: async (messages, stepId) => {
      summaries.push(messages);
      return summarise(messages, stepId);
    },
    mustPropagate: (error) => error instanceof LlmError && error.kind === 'cancelled',
    record: (record) => records.push(record),
  };
  return { deps, records, summaries };
}

describe('fitting a request into its budget (docs/design.md, “Context budget and memory”)', () => {
  it('records a context_cost decision even when nothing had to change', async () => {
    const { deps, records } = harness(100_000);
    const messages = conversation(2, 100);
    const before = [...messages];
    const outcome = await fitRequest(deps, { purpose: 'executor', stepId: 's1', messages });
    assert.deepEqual(messages, before);
    assert.equal(outcome.counted, countPromptTokens(messages));
    assert.equal(records.length, 1);
    assert.deepEqual(
      { ...records[0], tokensBefore: 0, tokensAfter: 0 },
      { purpose: 'executor', model: 'm', window: 100_000, budget: 100_000, tokensBefore: 0, tokensAfter: 0, actions: [], calibration: 1 },
    );
    assert.equal(records[0].tokensBefore, outcome.counted);
  });

  it('a prompt that fits by its bytes is sent as it is: counted and reported when settled, the same as fitRequest reports it', async () => {
    const { deps, records } = harness(100_000);
    const messages = conversation(2, 100);
    const prepared = await prepareFit(deps, { purpose: 'executor', stepId: 's1', messages });
    assert.equal(records.length, 0, 'nothing reported before the request is on its way');
    const outcome = await prepared.settle();
    assert.equal(await prepared.settle(), outcome, 'settled once');
    assert.equal(records.length, 1);
    const eager = harness(100_000);
    const reference = await fitRequest(eager.deps, { purpose: 'executor', stepId: 's1', messages: conversation(2, 100) });
    assert.equal(outcome.counted, reference.counted);
    assert.deepEqual(records, eager.records);
  });

  it('a prompt whose bytes do not fit its budget is fitted before it is sent', async () => {
    const messages = conversation(6, 1000);
    const { deps, records } = harness(countPromptTokens(messages) - 1500);
    const prepared = await prepareFit(deps, { purpose: 'executor', stepId: 's1', messages });
    assert.deepEqual(
      records.map((r) => r.actions.map((a) => a.kind)),
      [['prune_tool_outputs']],
    );
    assert.equal((await prepared.settle()).record, records[0]);
  });

  it('prunes in place, so the next turn of the step starts from the pruned conversation', async () => {
    const messages = conversation(6, 1000);
    const { deps, records, summaries } = harness(countPromptTokens(messages) - 1500);
    const list = messages;
    await fitRequest(deps, { purpose: 'executor', stepId: 's1', messages: list });
    assert.equal(list, messages, 'the same array');
    assert.deepEqual(list.filter((m) => m.role === 'tool').map(isPrunedStub), [true, true, false, false, false, false]);
    assert.deepEqual(
      records[0].actions.map((a) => a.kind),
      ['prune_tool_outputs'],
    );
    assert.equal(summaries.length, 0, 'no compaction when pruning is enough');
    assert.ok(records[0].tokensAfter <= records[0].budget);
  });

  it('compacts dropped turns into one summary that takes their place; Σ tokensSaved = before − after', async () => {
    const messages = conversation(10, 1000);
    const limit = countPromptTokens(head()) + 1300;
    const { deps, records, summaries } = harness(limit);
    const outcome = await fitRequest(deps, { purpose: 'executor', stepId: 's1', messages });
    assert.equal(summaries.length, 1, 'one compaction request');
    const [system, user] = summaries[0];
    assert.ok(contentText(system.content).startsWith(COMPACT_SYSTEM_PROMPT));
    assert.match(
      contentText(user.content),
      /# Turns to summarise \(\d+\)\n\n## Turn 1\nCalled read_file \{"path":"f0.txt"\}\nResult of read_file: \[output of read_file pruned: /,
    );
    assert.ok(countPromptTokens(summaries[0]) <= limit, 'the compaction request fits too');
    assert.deepEqual(messages.slice(0, 2), head());
    const summary = messages[2];
    assert.equal(summary.role, 'user');
    assert.match(
      contentText(summary.content),
      /^<compacted_history turns="\d+">\nSummary of earlier turns of this step[^\n]*\nRead f0…f5; nothing else found.\n<\/compacted_history>$/,
    );
    assertPaired(messages);
    const record = records[0];
    assert.deepEqual(
      record.actions.map((a) => a.kind),
      ['prune_tool_outputs', 'shrink_turns', 'compact'],
    );
    const shrink = record.actions[1];
    assert.equal(record.actions[2].count, shrink.count);
    assert.ok(record.actions[2].tokensSaved < 0, 'the summary costs its own tokens');
    assert.equal(
      record.tokensBefore - record.tokensAfter,
      record.actions.reduce((n, a) => n + a.tokensSaved, 0),
    );
    assert.ok(outcome.counted <= limit);
  });

  it('a later compaction folds the earlier summary in and counts every turn it stands for', async () => {
    const limit = countPromptTokens(head()) + 1300;
    const { deps, summaries } = harness(limit);
    const messages = conversation(10, 1000);
    await fitRequest(deps, { purpose: 'executor', stepId: 's1', messages });
    const firstTurns = Number(/turns="(\d+)"/.exec(contentText(messages[2].content))![1]);
    for (let i = 10; i < 20; i++)
      messages.push(
        ...conversation(1, 1000)
          .slice(2)
          .map((m) => JSON.parse(JSON.stringify(m).replaceAll('call_0', `call_${i}`)) as ChatMessage),
      );
    await fitRequest(deps, { purpose: 'executor', stepId: 's1', messages });
    assert.equal(summaries.length, 2);
    assert.match(contentText(summaries[1][1].content), /^# Summary of even earlier turns\nSummary of earlier turns of this step/);
    const turns = Number(/turns="(\d+)"/.exec(contentText(messages[2].content))![1]);
    assert.ok(turns > firstTurns);
    assert.equal(messages.filter((m) => contentText(m.content).startsWith('<compacted_history')).length, 1);
    assertPaired(messages);
  });

  it('clips a summary that is longer than asked for to its allowance', async () => {
    const limit = countPromptTokens(head()) + 1300;
    const { deps } = harness(limit, () => Promise.resolve(filler(5000)));
    const messages = conversation(10, 1000);
    await fitRequest(deps, { purpose: 'executor', stepId: 's1', messages });
    assert.ok(countTextTokens(contentText(messages[2].content)) <= summaryAllowance(limit));
    assert.ok(countPromptTokens(messages) <= limit);
  });

  it('when the summary cannot be written, says the turns were dropped and goes on', async () => {
    const limit = countPromptTokens(head()) + 1300;
    const { deps, records } = harness(limit, () => Promise.reject(new LlmError('server', 'The endpoint failed with 500.', 500)));
    const messages = conversation(10, 1000);
    await fitRequest(deps, { purpose: 'executor', stepId: 's1', messages });
    assert.match(
      contentText(messages[2].content),
      /earlier turns of this step were removed to fit the context window; their summary could not be written \(The endpoint failed with 500\.\)/,
    );
    assert.equal(records[0].actions.at(-1)!.failed, 'The endpoint failed with 500.');
  });

  it('a cancel during compaction is not papered over', async () => {
    const { deps } = harness(countPromptTokens(head()) + 1300, () => Promise.reject(new LlmError('cancelled', 'The LLM request was cancelled.')));
    await assert.rejects(fitRequest(deps, { purpose: 'executor', stepId: 's1', messages: conversation(10, 1000) }), /cancelled/);
  });

  it('loop guard: when even a summary cannot bring the prompt under budget, no compaction runs and the request fails context_exhausted', async () => {
    const bigStep = head(`Your step: ${filler(3000)}`);
    const messages = [...bigStep, ...conversation(4, 500).slice(2)];
    const { deps, records, summaries } = harness(countPromptTokens(bigStep) + 100);
    const before = structuredClone(messages);
    await assert.rejects(
      fitRequest(deps, { purpose: 'executor', stepId: 's1', messages }),
      (error: unknown) =>
        error instanceof ContextExhaustedError && error.reason === 'context_exhausted' && /does not fit the context window of m/.test(error.message),
    );
    assert.equal(summaries.length, 0, 'no compaction that could not help');
    assert.deepEqual(messages, before, 'nothing changed');
    assert.equal(records.at(-1)!.exhausted, true);
  });

  it('never compacts a compaction request: it fits or fails', async () => {
    const { deps, summaries } = harness(500);
    const messages: ChatMessage[] = [
      { role: 'system', content: 'summarise' },
      { role: 'user', content: filler(2000) },
    ];
    await assert.rejects(fitRequest(deps, { purpose: 'compact', stepId: 's1', messages }), ContextExhaustedError);
    assert.equal(summaries.length, 0);
  });

  it('after an overflow error, compacts even when pruning alone would fit', async () => {
    const { deps, records, summaries } = harness(100_000);
    const messages = conversation(4, 300);
    await fitRequest(deps, { purpose: 'executor', stepId: 's1', messages }, { afterOverflow: true });
    assert.equal(summaries.length, 1);
    assert.equal(records[0].afterOverflow, true);
    assert.ok(records[0].actions.some((a) => a.kind === 'compact'));
  });
});
