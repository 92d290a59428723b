import assert from 'node:assert/strict';
import { modelSelector } from '../../../src/host/vscodeModelSelector';

// cortex.llm.vscodeModel (docs/design.md, “Models from VS Code”): vendor/family, vendor/family/id, or an id.

describe('modelSelector', () => {
  it('reads vendor/family, vendor/family/id, a bare id, and empty as any model', () => {
    assert.deepEqual(modelSelector('copilot/gpt-4o'), { vendor: 'copilot', family: 'gpt-4o' });
    assert.deepEqual(modelSelector('copilot/gpt-4o/gpt-4o-2024'), { vendor: 'copilot', family: 'gpt-4o', id: 'gpt-4o-2024' });
    assert.deepEqual(modelSelector('claude-sonnet'), { id: 'claude-sonnet' });
    assert.deepEqual(modelSelector(''), {});
    assert.deepEqual(modelSelector('copilot/'), { vendor: 'copilot' });
  });
});
