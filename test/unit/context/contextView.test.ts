import assert from 'node:assert/strict';
import { MAX_DECISION_ROWS, stepContextView, stepTokensTag } from '../../../webview/contextView';
import { stepView } from '../../../webview/stepView';
import { llmRequest, logWithStep } from '../../support/runEventFixtures';

// What the panel shows of a step's tokens and context budget (docs/design.md, “Context budget and memory” and “Usage and cost”).

describe('panel: tokens and context of a step', () => {
  it('shows nothing for a step without requests', () => {
    const log = logWithStep();
    assert.equal(stepContextView(log.state.steps.get('s1')!), undefined);
    assert.equal(stepTokensTag(log.state.steps.get('s1')!), undefined);
    assert.ok(!stepView(log.state, log.state.steps.get('s1')!, false).tags.some((t) => t.kind === 'tokens'));
  });

  it("puts the step's tokens on its node, with usage and cost on hover and in the aria label", () => {
    const log = logWithStep();
    log.append(llmRequest({ purpose: 'executor', stepId: 's1', usage: { promptTokens: 11_000, completionTokens: 1300, cost: 0.012 } }));
    const s = log.state.steps.get('s1')!;
    const view = stepView(log.state, s, false);
    assert.deepEqual(
      view.tags.find((t) => t.kind === 'tokens'),
      { text: '12k tok', title: 'Tokens of this step: 12k tokens (11k in, 1.3k out), $0.012', kind: 'tokens' },
    );
    assert.match(view.ariaLabel, /Tokens of this step: 12k tokens/);
    log.append(llmRequest({ purpose: 'compact', stepId: 's1', usage: { promptTokens: 100, completionTokens: 10, estimated: true } }));
    assert.equal(stepTokensTag(s)!.text, '~12k tok');
  });

  it('lists each budget decision, the memories injected, and keeps the generic audit list for the rest', () => {
    const log = logWithStep();
    log.append({
      type: 'step_audit',
      stepId: 's1',
      kind: 'memory_injected',
      data: { count: 1, tokens: 40, memories: [{ id: 'm1', text: 'Build with make', tags: ['build'], score: 3 }] },
    });
    log.append({
      type: 'step_audit',
      stepId: 's1',
      kind: 'context_cost',
      data: { purpose: 'executor', budget: 7000, tokensBefore: 2000, tokensAfter: 2000, actions: [] },
    });
    log.append({
      type: 'step_audit',
      stepId: 's1',
      kind: 'context_cost',
      data: {
        purpose: 'executor',
        budget: 7000,
        tokensBefore: 7100,
        tokensAfter: 4400,
        actions: [
          { kind: 'prune_tool_outputs', count: 2, tokensSaved: 1500 },
          { kind: 'shrink_turns', count: 1, tokensSaved: 1267 },
          { kind: 'compact', count: 1, tokensSaved: -67 },
        ],
      },
    });
    log.append({
      type: 'step_audit',
      stepId: 's1',
      kind: 'context_cost',
      data: { purpose: 'executor', budget: 7000, tokensBefore: 9000, tokensAfter: 9000, actions: [], exhausted: true },
    });
    const view = stepContextView(log.state.steps.get('s1')!)!;
    assert.equal(view.summary, '3 requests: 1 pruned, 1 compacted, context exhausted');
    assert.deepEqual(view.rows, [
      { purpose: 'executor', tokens: '2.0k of 7.0k', actions: 'fits' },
      { purpose: 'executor', tokens: '7.1k → 4.4k of 7.0k', actions: 'pruned 2 outputs (-1.5k), dropped 1 turn (-1.3k), compacted into a summary (+67)' },
      { purpose: 'executor', tokens: '9.0k of 7.0k', actions: 'fits', flag: 'exhausted' },
    ]);
    assert.deepEqual(view.memories, [{ id: 'm1', text: 'Build with make', tags: ['build'], score: 3 }]);
  });

  it('lists only the last decisions of a long step and counts the others', () => {
    const log = logWithStep();
    for (let i = 0; i < MAX_DECISION_ROWS + 12; i++)
      log.append({
        type: 'step_audit',
        stepId: 's1',
        kind: 'context_cost',
        data: { purpose: 'executor', budget: 100, tokensBefore: i, tokensAfter: i, actions: [] },
      });
    const view = stepContextView(log.state.steps.get('s1')!)!;
    assert.equal(view.rows.length, MAX_DECISION_ROWS);
    assert.equal(view.hiddenRows, 12);
    assert.equal(view.rows.at(-1)!.tokens, `${MAX_DECISION_ROWS + 11} of 100`);
  });
});
