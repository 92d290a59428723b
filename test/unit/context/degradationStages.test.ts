import assert from 'node:assert/strict';
import { isPrunedStub } from '../../../src/core/context/conversationShape';
import { messagesOf, planFit, prunedStub } from '../../../src/core/context/degradationStages';
import { contentText, countPromptTokens } from '../../../src/core/context/tokenCounter';
import type { ChatMessage } from '../../../src/core/llm/llmTypes';
import { assertPaired, conversation, head } from './conversationFixtures';

const ALLOWANCE = 300;
const fit = (messages: ChatMessage[], limit: number, extra: Partial<Parameters<typeof planFit>[1]> = {}) =>
  planFit(messages, { limit, summaryAllowance: ALLOWANCE, ...extra });

describe('context budget stages (docs/design.md, “Context budget and memory”)', () => {
  it('leaves a prompt that fits alone and says so', () => {
    const messages = conversation(3, 500, { memory: true });
    const plan = fit(messages, countPromptTokens(messages));
    assert.equal(plan.fits, true);
    assert.deepEqual(plan.actions, []);
    assert.deepEqual(messagesOf(plan.shape), messages);
    assert.equal(plan.tokensAfter, plan.tokensBefore);
  });

  it('1. drops the injected memory first, and stops there when that is enough', () => {
    const messages = conversation(3, 500, { memory: true });
    const total = countPromptTokens(messages);
    const plan = fit(messages, total - 50);
    assert.deepEqual(
      plan.actions.map((a) => a.kind),
      ['drop_memory'],
    );
    assert.equal(plan.actions[0].count, 1);
    const after = messagesOf(plan.shape);
    assert.ok(!after.some((m) => contentText(m.content).startsWith('<relevant_context')));
    assert.equal(after.length, messages.length - 1);
    assert.equal(plan.tokensAfter, countPromptTokens(after));
    assert.equal(plan.tokensBefore - plan.tokensAfter, plan.actions[0].tokensSaved);
  });

  it('2. prunes old tool outputs to a stub, oldest first, and the newest two turns keep theirs', () => {
    const messages = conversation(6, 1000);
    const total = countPromptTokens(messages);
    // Room for about four of the six outputs: the two oldest become stubs.
    const plan = fit(messages, total - 1500);
    assert.deepEqual(
      plan.actions.map((a) => a.kind),
      ['prune_tool_outputs'],
    );
    assert.equal(plan.actions[0].count, 2);
    const tools = messagesOf(plan.shape).filter((m) => m.role === 'tool');
    assert.deepEqual(tools.map(isPrunedStub), [true, true, false, false, false, false]);
    assert.match(contentText(tools[0].content), /^\[output of read_file pruned: \d+(\.\d)? KB — call again if needed\]$/);
    assert.equal(plan.fits, true);
    assert.equal(plan.tokensBefore - plan.tokensAfter, plan.actions[0].tokensSaved);
    assertPaired(messagesOf(plan.shape));
    // Under a tighter limit the second newest goes too; the newest output never does.
    const tight = fit(conversation(6, 1000), 1500);
    const outputs = messagesOf(tight.shape).filter((m) => m.role === 'tool');
    assert.ok(!isPrunedStub(outputs.at(-1)!));
    assert.ok(outputs.slice(0, -1).every(isPrunedStub));
  });

  it('writes the stub with the tool name and the size of what was left out', () => {
    assert.equal(prunedStub('search_text', 'x'.repeat(12 * 1024)), '[output of search_text pruned: 12 KB — call again if needed]');
    assert.equal(prunedStub('read_file', 'x'.repeat(700)), '[output of read_file pruned: 700 B — call again if needed]');
  });

  it('3. shrinks by dropping whole turns, oldest first, keeping the head and never splitting a call from its result', () => {
    const messages = conversation(8, 1000);
    const headTokens = countPromptTokens(head());
    const limit = headTokens + 1250;
    const plan = fit(messages, limit, { summaryAllowance: 150 });
    assert.deepEqual(
      plan.actions.map((a) => a.kind),
      ['prune_tool_outputs', 'shrink_turns'],
    );
    const shrink = plan.actions[1];
    assert.equal(shrink.count, plan.dropped.length);
    assert.ok(plan.dropped.length > 0 && plan.dropped.length < 8);
    for (const dropped of plan.dropped) {
      assert.equal(dropped[0].role, 'assistant');
      assert.ok(dropped.slice(1).every((m) => m.role === 'tool'));
    }
    const after = messagesOf(plan.shape);
    assert.deepEqual(after.slice(0, 2), head(), 'system prompt and the step stay');
    assertPaired(after);
    // Oldest turns went: the newest one is still there with its full output.
    assert.equal((after.at(-2) as { tool_calls: Array<{ id: string }> }).tool_calls[0].id, 'call_7');
    assert.ok(!isPrunedStub(after.at(-1)!));
    // Room is left for the summary, and shrinking goes down to 60 % of the limit.
    assert.equal(plan.tokensAfter, countPromptTokens(after) + 150);
    assert.ok(plan.tokensAfter <= limit * 0.6 || plan.shape.turns.length === 1, `${plan.tokensAfter} of ${limit}`);
    assert.equal(plan.fits, true);
  });

  it('drops even the newest turn when nothing else fits, but never the head', () => {
    const messages = conversation(2, 3000);
    const limit = countPromptTokens(head()) + ALLOWANCE + 500;
    const plan = fit(messages, limit);
    assert.equal(plan.dropped.length, 2);
    assert.deepEqual(messagesOf(plan.shape), head());
    assert.equal(plan.fits, true);
  });

  it('reports a prompt whose head alone is over the limit as not fitting', () => {
    const messages = [...head('x'.repeat(20_000)), ...conversation(2, 100).slice(2)];
    const plan = fit(messages, 1000);
    assert.equal(plan.fits, false);
  });

  it('folds an earlier summary into the next compaction', () => {
    const summary: ChatMessage = { role: 'user', content: '<compacted_history turns="4">\nSummary of earlier turns…\n</compacted_history>' };
    const messages = [...head(), summary, ...conversation(6, 1000).slice(2)];
    const plan = fit(messages, countPromptTokens(head()) + 1300);
    assert.ok(plan.dropped.length > 0);
    assert.equal(plan.shape.summary, summary, 'still in place until stage 4 replaces it');
    const shrink = plan.actions.find((a) => a.kind === 'shrink_turns')!;
    assert.ok(shrink.tokensSaved > plan.dropped.flat().length, 'the old summary is counted as dropped');
  });

  it('after an overflow error, drops at least one turn even when pruning made it fit', () => {
    const messages = conversation(4, 200);
    const plan = fit(messages, countPromptTokens(messages) * 10, { forceShrink: true });
    assert.ok(plan.dropped.length >= 1);
    assert.ok(plan.actions.some((a) => a.kind === 'shrink_turns'));
  });

  it('does not change the messages it was given', () => {
    const messages = conversation(6, 1000, { memory: true });
    const copy = structuredClone(messages);
    fit(messages, 2000);
    assert.deepEqual(messages, copy);
  });
});
