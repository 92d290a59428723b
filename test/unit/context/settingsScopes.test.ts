import assert from 'node:assert/strict';
import { parseConfig, type ConfigKey } from '../../../src/core/config/configSchema';
import { mapSettings, type SettingInspection } from '../../../src/host/settingsMapping';

// A cloned repository's .vscode/settings.json must not lift the user's spending caps or make
// spending look free (docs/design.md, “Usage and cost”).

const inspector = (scopes: Partial<Record<ConfigKey, SettingInspection>>) => (key: ConfigKey) => scopes[key];

describe('settings scopes of the spending caps and prices', () => {
  it('takes the lowest cap of any scope; a workspace cannot raise or remove it', () => {
    const { input } = mapSettings(
      inspector({
        'cortex.limits.maxRunTokens': { globalValue: 100_000, workspaceValue: 5_000_000 },
        'cortex.limits.maxRunCost': { globalValue: 2, workspaceValue: null },
      }),
    );
    const config = parseConfig(input);
    assert.equal(config['cortex.limits.maxRunTokens'], 100_000);
    assert.equal(config['cortex.limits.maxRunCost'], 2);
    assert.equal(
      parseConfig(mapSettings(inspector({ 'cortex.limits.maxRunCost': { globalValue: 2, workspaceFolderValue: 0.5 } })).input)['cortex.limits.maxRunCost'],
      0.5,
      'lowering is fine',
    );
    assert.equal(parseConfig(mapSettings(inspector({ 'cortex.limits.maxRunTokens': { workspaceValue: null } })).input)['cortex.limits.maxRunTokens'], null);
    assert.equal(mapSettings(inspector({ 'cortex.limits.maxRunTokens': {} })).input['cortex.limits.maxRunTokens'], undefined, 'unset: the schema default');
    assert.throws(
      () => parseConfig(mapSettings(inspector({ 'cortex.limits.maxRunTokens': { globalValue: 10, workspaceValue: 'lots' } })).input),
      /cortex.limits.maxRunTokens/,
    );
  });

  it("keeps the user's prices over a workspace's, which may only add models", () => {
    const { input } = mapSettings(
      inspector({
        'cortex.llm.pricing': {
          globalValue: { 'gpt-4o': { inputPerMTok: 2.5, outputPerMTok: 10 } },
          workspaceValue: { 'gpt-4o': { inputPerMTok: 0, outputPerMTok: 0 }, 'local-model': { inputPerMTok: 0, outputPerMTok: 0 } },
        },
      }),
    );
    assert.deepEqual(parseConfig(input)['cortex.llm.pricing'], {
      'gpt-4o': { inputPerMTok: 2.5, outputPerMTok: 10 },
      'local-model': { inputPerMTok: 0, outputPerMTok: 0 },
    });
    assert.throws(() => parseConfig(mapSettings(inspector({ 'cortex.llm.pricing': { globalValue: {}, workspaceValue: 'free' } })).input), /cortex.llm.pricing/);
  });
});
