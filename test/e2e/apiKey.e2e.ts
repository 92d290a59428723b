import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { json, message, route } from '../support/scriptedReplies';
import { startScriptedServer } from '../support/scriptedServer';
import { cortexLog, cortexPanel, e2eEnvironment, newWorkspace, openWorkspace, type E2eEnvironment } from './support/e2eEnvironment';
import { currentPage } from './support/hooks';
import { eventually, startTask } from './support/scenario';
import { answerInput, clickNotificationButton, runCommand, waitForNotification } from './support/workbench';

// The API key lives in VS Code's SecretStorage: a remote endpoint without a key is refused before
// any request, "Cortex: Set API key" stores one, and the run then sends it as the Bearer token.

const settingsChanges = (env: E2eEnvironment) => (cortexLog(env).match(/Settings changed and are valid/g) ?? []).length;

describe('e2e: API key in secret storage', function () {
  let env: E2eEnvironment;
  before(async () => {
    env = await e2eEnvironment();
  });

  it('asks for a key for a remote endpoint, stores it as a secret and sends it', async () => {
    const workspace = newWorkspace(env, 'api-key');
    const page = (currentPage.page = await openWorkspace(env, workspace, { 'cortex.llm.baseUrl': 'https://api.openai.invalid/v1' }));
    await startTask(page, 'Say hello');
    await waitForNotification(page, /Cortex has no API key for https:\/\/api\.openai\.invalid\/v1/);
    await clickNotificationButton(page, /Cortex has no API key/, 'Set API key');
    const input = page.locator('.quick-input-widget .quick-input-box input');
    await page.locator('.quick-input-widget .quick-input-title', { hasText: 'Cortex: Set API key' }).waitFor({ state: 'visible' });
    assert.equal(await input.getAttribute('type'), 'password', 'the key is typed into a password box');
    await answerInput(page, 'sk-e2e-secret', 'Cortex: Set API key');
    await waitForNotification(page, /Cortex API key saved in secret storage/);
    // The typed task goes on once the key is set (here to an endpoint that does not exist).
    await waitForNotification(page, /Cortex run failed: .*api\.openai\.invalid/, 60_000);
    await runCommand(page, 'View: Close All Editors'); // so the next run's panel is the only one

    // A loopback server that insists on that key (it would answer 401 otherwise).
    const keyed = await startScriptedServer(
      route({ planner: json({ title: 'K', steps: ['Say hello'], dependencies: {} }), executor: message('hello'), aggregator: message('Said hello.') }),
      { apiKey: 'sk-e2e-secret' },
    );
    try {
      // Same window (code-server keeps secrets in the browser's storage): point the setting at the
      // keyed server and wait until the extension has seen the change.
      const changesBefore = settingsChanges(env);
      mkdirSync(join(workspace, '.vscode'), { recursive: true });
      writeFileSync(join(workspace, '.vscode', 'settings.json'), JSON.stringify({ 'cortex.llm.baseUrl': keyed.baseUrl }));
      await eventually(
        page,
        () => settingsChanges(env) > changesBefore,
        () => 'the extension did not see the settings change',
      );
      await startTask(page, 'Say hello');
      const panel = await cortexPanel(page);
      await panel.waitForStatus('Say hello', 'completed');
      await waitForNotification(page, /Cortex finished: Said hello\./);
      assert.equal(keyed.refusals.length, 0, `refused: ${JSON.stringify(keyed.refusals.map((r) => r.message))}`);
      assert.ok(keyed.chatRequests().every((r) => r.headers.authorization === 'Bearer sk-e2e-secret'));

      // Clearing the key: the keyed server now refuses the run with 401.
      await runCommand(page, 'Cortex: Clear API key');
      await waitForNotification(page, /Cortex API key removed/);
      await startTask(page, 'Say hello');
      await waitForNotification(page, /Cortex run failed: The endpoint rejected the API key \(401\)/, 60_000);
      assert.ok(
        keyed.refusals.some((r) => r.status === 401),
        'the request without a key was refused',
      );
    } finally {
      await keyed.close();
    }
  });
});
