import assert from 'node:assert/strict';
import { mkdtempSync, realpathSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseCliArgs } from '../../../src/cli/cliArgs';
import { loadCliConfigSync } from '../../../src/cli/cliConfig';

// The cortex command cannot reach VS Code's language models (docs/design.md, “Models from VS
// Code”): a config file asking for them is a usage error that says what to use instead.

describe('loadCliConfigSync and cortex.llm.provider', () => {
  it('refuses vscode-lm with a sentence, and accepts openai-compatible', () => {
    const dir = realpathSync(mkdtempSync(join(tmpdir(), 'cortex-cliconfig-')));
    const file = join(dir, 'config.json');
    writeFileSync(file, JSON.stringify({ 'cortex.llm.provider': 'vscode-lm' }));
    assert.throws(
      () => loadCliConfigSync(parseCliArgs(['run', '--workspace', dir, '--config', file, 'x'], dir), dir),
      /cortex\.llm\.provider "vscode-lm" uses the language models of VS Code, which the cortex command has no access to; use "openai-compatible"/,
    );
    writeFileSync(file, JSON.stringify({ 'cortex.llm.provider': 'openai-compatible' }));
    assert.equal(
      loadCliConfigSync(parseCliArgs(['run', '--workspace', dir, '--config', file, 'x'], dir), dir).config['cortex.llm.provider'],
      'openai-compatible',
    );
  });
});
