import assert from 'node:assert/strict';
import { parseConfig, type ConfigKey } from '../../../src/core/config/configSchema';
import { isLocalEndpoint, mapSettings, type SettingInspection } from '../../../src/host/settingsMapping';

const inspector = (scopes: Partial<Record<ConfigKey, SettingInspection>>) => (key: ConfigKey) => scopes[key];

describe('mapSettings', () => {
  it('gives parseConfig nothing when the user set nothing, so schema defaults apply', () => {
    const { input, ignoredWorkspaceKeys } = mapSettings(inspector({ 'cortex.llm.model': { defaultValue: 'gpt-4o-mini' } }));
    assert.deepEqual(ignoredWorkspaceKeys, []);
    assert.equal(parseConfig(input)['cortex.llm.model'], 'gpt-4o-mini');
    assert.equal(input['cortex.llm.model'], undefined);
  });

  it('prefers folder over workspace over user values for ordinary settings', () => {
    const { input } = mapSettings(
      inspector({
        'cortex.llm.model': { globalValue: 'user-model', workspaceValue: 'ws-model', workspaceFolderValue: 'folder-model' },
        'cortex.llm.maxRetries': { globalValue: 5, workspaceValue: 3 },
        'cortex.replan.maxAttempts': { globalValue: 1 },
      }),
    );
    const config = parseConfig(input);
    assert.equal(config['cortex.llm.model'], 'folder-model');
    assert.equal(config['cortex.llm.maxRetries'], 3);
    assert.equal(config['cortex.replan.maxAttempts'], 1);
  });

  it('reads security settings from user scope only and reports ignored workspace values', () => {
    const { input, ignoredWorkspaceKeys } = mapSettings(
      inspector({
        'cortex.policy.tools': { globalValue: { run_command: 'confirm-required' }, workspaceValue: { run_command: 'allow' } },
        'cortex.policy.commands': { workspaceFolderValue: { allow: ['.*'], deny: [] } },
      }),
    );
    const config = parseConfig(input);
    assert.deepEqual(config['cortex.policy.tools'], { run_command: 'confirm-required' });
    assert.deepEqual(config['cortex.policy.commands'], { allow: [], deny: [] });
    assert.deepEqual(ignoredWorkspaceKeys.sort(), ['cortex.policy.commands', 'cortex.policy.tools']);
  });

  it('passes invalid values through so parseConfig names them', () => {
    const { input } = mapSettings(inspector({ 'cortex.llm.maxRetries': { globalValue: -1 }, 'cortex.llm.baseUrl': { workspaceValue: 'ftp://x' } }));
    assert.throws(
      () => parseConfig(input),
      (error: Error) => /cortex\.llm\.maxRetries/.test(error.message) && /cortex\.llm\.baseUrl/.test(error.message),
    );
  });
});

describe('isLocalEndpoint', () => {
  it('recognises loopback endpoints', () => {
    for (const url of ['http://127.0.0.1:11434/v1', 'http://localhost:1234/v1', 'http://[::1]:8080/v1', 'http://127.1.2.3/v1', 'http://api.localhost/v1'])
      assert.equal(isLocalEndpoint(url), true, url);
  });
  it('treats everything else (and garbage) as remote', () => {
    for (const url of ['https://api.openai.com/v1', 'http://192.168.1.5:11434/v1', 'http://127.0.0.1.evil.com/v1', 'not a url', 'http://localhost.evil.com/v1'])
      assert.equal(isLocalEndpoint(url), false, url);
  });
});
