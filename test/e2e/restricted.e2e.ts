import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { call, json, message, route, toolCalls, toolMessages, toolNames } from '../support/scriptedReplies';
import { cortexPanel, e2eEnvironment, newWorkspace, openWorkspace, screenshot, type E2eEnvironment } from './support/e2eEnvironment';
import { currentPage } from './support/hooks';
import { startTask } from './support/scenario';
import { waitForNotification } from './support/workbench';

// Workspace Trust: in Restricted Mode the agent is read-only, and the workspace cannot redirect the
// model endpoint (capabilities.untrustedWorkspaces.restrictedConfigurations).

describe('e2e: Restricted Mode (untrusted workspace)', function () {
  let env: E2eEnvironment;
  before(async () => {
    env = await e2eEnvironment();
  });

  it('runs read-only: writes are refused by policy and the workspace endpoint setting is ignored', async () => {
    let refusal = '';
    let offered: string[] = [];
    env.server.setHandler(
      route({
        planner: json({ title: 'Try to write', steps: ['Write notes.txt'], dependencies: {} }),
        executor: (req) => {
          if (toolMessages(req).length === 0) {
            offered = toolNames(req);
            return toolCalls(call('write_file', { path: 'notes.txt', content: 'x' }));
          }
          refusal = JSON.stringify(toolMessages(req));
          return message('Could not write notes.txt in Restricted Mode.');
        },
        'tool-name-repair': json({ repairs: [] }),
        aggregator: message('Nothing was written.'),
      }),
    );
    const before = env.server.chatRequests().length;
    // The workspace tries to send the task (and the key) to another endpoint.
    const workspace = newWorkspace(env, 'restricted', { '.vscode/settings.json': JSON.stringify({ 'cortex.llm.baseUrl': 'http://127.0.0.1:9/v1' }) });
    const page = (currentPage.page = await openWorkspace(env, workspace, {
      'security.workspace.trust.enabled': true,
      'security.workspace.trust.startupPrompt': 'always',
    }));
    await page.getByRole('button', { name: /No, I don.t trust the authors/i }).click({ timeout: 60_000 });
    await page.locator('.statusbar, .part.statusbar').first().waitFor({ state: 'visible' });

    await startTask(page, 'Write notes.txt');
    await waitForNotification(page, /Restricted Mode/);
    const panel = await cortexPanel(page);
    await panel.waitForStatus('Write notes.txt', 'completed', 60_000);
    assert.equal(existsSync(join(workspace, 'notes.txt')), false, 'nothing was written');
    assert.ok(offered.includes('read_file'), `read tools are offered: ${offered.join(', ')}`);
    assert.ok(!offered.includes('write_file') && !offered.includes('run_command'), `no write or command tools are offered: ${offered.join(', ')}`);
    assert.match(refusal, /denied|not available|untrusted|restricted|read-only/i);
    assert.ok(env.server.chatRequests().length > before, 'the run used the user-level endpoint, not the workspace one');
    await screenshot(page, 'e2e-restricted-mode');
  });
});
