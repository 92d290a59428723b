import assert from 'node:assert/strict';
import { rememberedText } from '../../../webview/rememberedText';

// The details pane says why a call ran unasked, and what an answer remembered.

describe('details: remembered approvals in words', () => {
  const rule = { tool: 'run_command', prefix: ['npm', 'test'] };

  it('names the earlier answer that approved a call unasked', () => {
    assert.equal(
      rememberedText({ answeredBy: 'remembered', scope: 'run', remembered: rule }),
      'approved without asking by the earlier answer that allowed run_command `npm test …` for this run',
    );
    assert.equal(
      rememberedText({ answeredBy: 'remembered', scope: 'workspace', remembered: rule }),
      'approved without asking by the earlier answer that allowed run_command `npm test …` always in this workspace',
    );
  });

  it('says what an answer remembered, and nothing for a one-call answer', () => {
    assert.equal(
      rememberedText({ answeredBy: 'panel', scope: 'run', remembered: { tool: 'write_file', folder: 'src' } }),
      'this answer also allowed write_file in src/ for this run',
    );
    assert.equal(rememberedText({ answeredBy: 'panel' }), undefined);
    assert.equal(rememberedText({ answeredBy: 'panel', scope: 'call' }), undefined);
  });
});
