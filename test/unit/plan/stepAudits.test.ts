import assert from 'node:assert/strict';
import { auditsOfKind, readStepAudit, stepAuditEvent } from '../../../src/core/plan/stepAudits';
import { logWithStep } from '../../support/runEventFixtures';

describe('step audits: one union for the core and the panel', () => {
  it('reads an audit the reducer kept as its kind, with every field its producer wrote', () => {
    const log = logWithStep();
    log.append(
      stepAuditEvent('s1', { kind: 'context_cost', data: { purpose: 'executor', budget: 10, tokensBefore: 5, tokensAfter: 5, actions: [], model: 'm' } }),
    );
    const [audit] = log.state.steps.get('s1')!.audits;
    const read = readStepAudit(audit);
    assert.equal(read?.kind, 'context_cost');
    assert.equal(read.kind === 'context_cost' && read.budget, 10);
    assert.equal(read.model, 'm', 'fields the schema does not name are kept');
  });

  it('gives nothing for a malformed audit or a kind that is not a feature audit', () => {
    assert.equal(readStepAudit({ kind: 'memory_injected', seq: 3, count: 1, tokens: 4, memories: [{ id: 7 }] }), undefined);
    assert.equal(readStepAudit({ kind: 'llm_retry', seq: 3 }), undefined);
    assert.deepEqual(auditsOfKind([{ kind: 'mcp_result', callId: 'c1', raw: '{}' }, { kind: 'mcp_result', callId: 2 }, { kind: 'tool_batch' }], 'mcp_result'), [
      { kind: 'mcp_result', callId: 'c1', raw: '{}' },
    ]);
  });
});
