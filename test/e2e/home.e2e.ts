import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { call, json, message, route, toolCalls, toolMessages } from '../support/scriptedReplies';
import { startScriptedServer } from '../support/scriptedServer';
import { cortexLog, cortexPanel, e2eEnvironment, newWorkspace, openWorkspace, screenshot, type E2eEnvironment } from './support/e2eEnvironment';
import { currentPage } from './support/hooks';
import { startTask } from './support/scenario';
import { answerInput, clickNotificationButton, editorTab, runCommand, waitForNotification } from './support/workbench';

// Where a person finds Cortex and gets unstuck: an endpoint error's notification offers the fix
// (Set API key, Open endpoint settings, Retry) and Retry runs the task again with the new key; the
// Cortex view in the activity bar starts a run and lists it, in the dark and the light theme.

const HELLO = () =>
  route({ planner: json({ title: 'Hello', steps: ['Say hello'], dependencies: {} }), executor: message('hello'), aggregator: message('Said hello.') });

/** The Cortex view's row whose text matches. */
function viewRow(page: Page, text: RegExp) {
  return page.locator('.part.sidebar .monaco-list-row', { hasText: text }).first();
}

async function openCortexView(page: Page): Promise<void> {
  await page.locator('.part.activitybar .action-item a[aria-label^="Cortex"]').first().click();
  await viewRow(page, /Run agent task/).waitFor({ state: 'visible', timeout: 60_000 });
}

describe('e2e: endpoint errors and the Cortex view', function () {
  let env: E2eEnvironment;
  before(async () => {
    env = await e2eEnvironment();
  });

  it('a 401 offers Set API key, Open endpoint settings and Retry, and Retry works once the key is set', async () => {
    const keyed = await startScriptedServer(HELLO(), { apiKey: 'sk-e2e-retry' });
    try {
      const workspace = newWorkspace(env, 'retry');
      // A loopback endpoint needs no key, so the run starts without one and the server says 401.
      const page = (currentPage.page = await openWorkspace(env, workspace, { 'cortex.llm.baseUrl': keyed.baseUrl }));
      await startTask(page, 'Say hello');
      await waitForNotification(page, /Cortex run failed: The endpoint rejected the API key \(401\)/, 60_000);
      const toast = page
        .locator('.notifications-toasts .notification-toast')
        .filter({ hasText: /Cortex run failed/ })
        .first();
      for (const button of ['Set API key', 'Open endpoint settings', 'Retry'])
        await toast.getByRole('button', { name: button, exact: true }).waitFor({ state: 'visible' });
      await page.waitForTimeout(600); // the toast's slide-in, for the screenshot
      await screenshot(page, 'e2e-endpoint-401');
      assert.ok(
        keyed.refusals.some((r) => r.status === 401),
        'the request without a key was refused',
      );

      await clickNotificationButton(page, /Cortex run failed/, 'Set API key');
      await answerInput(page, 'sk-e2e-retry', 'Cortex: Set API key');
      await waitForNotification(page, /Retry “Say hello” with the new key\?/);
      await clickNotificationButton(page, /Retry “Say hello” with the new key\?/, 'Retry');
      await waitForNotification(page, /Cortex finished: Said hello\./, 60_000);
      assert.ok(
        keyed.chatRequests().some((r) => r.headers.authorization === 'Bearer sk-e2e-retry'),
        'the retried run sent the key',
      );
      assert.match(cortexLog(env), /Retry of run \S+: restart/);
    } finally {
      await keyed.close();
    }
  });

  it('lists a waiting approval with its command; a click shows the run panel, where it is answered', async () => {
    env.server.setHandler(
      route({
        planner: json({ title: 'Build', steps: ['Make the dist folder'], dependencies: {} }),
        executor: (req) => (toolMessages(req).length > 0 ? message('Created dist.') : toolCalls(call('run_command', { command: 'mkdir dist' }))),
        aggregator: message('Made dist.'),
      }),
    );
    const workspace = newWorkspace(env, 'home-approval');
    const page = (currentPage.page = await openWorkspace(env, workspace, { 'cortex.policy.tools': { run_command: 'confirm' } }));
    await openCortexView(page);
    await viewRow(page, /Run agent task/).click();
    await answerInput(page, 'Make the dist folder', 'Cortex: Run agent task');
    const approval = viewRow(page, /mkdir dist/);
    await approval.waitFor({ state: 'visible', timeout: 60_000 });
    await viewRow(page, /1 approval waiting/).waitFor({ state: 'visible' });
    await screenshot(page, 'e2e-cortex-view-approval');
    // The panel is closed; the approval's row brings it back with the request to answer.
    await runCommand(page, 'View: Close All Editors');
    await editorTab(page, /Cortex: Make the dist folder/).waitFor({ state: 'hidden' });
    await approval.click();
    const panel = await cortexPanel(page);
    await panel.frame
      .getByRole('button', { name: /^Approve/ })
      .first()
      .click();
    await waitForNotification(page, /Cortex finished: Made dist\./, 60_000);
    await approval.waitFor({ state: 'hidden' });
    await viewRow(page, /Make the dist folder/).waitFor({ state: 'visible' });
  });

  for (const theme of ['Default Dark Modern', 'Default Light Modern'] as const) {
    const shade = theme.includes('Dark') ? 'dark' : 'light';
    it(`the Cortex view starts a run and lists it (${shade} theme)`, async () => {
      env.server.setHandler(HELLO());
      const workspace = newWorkspace(env, `home-${shade}`);
      const page = (currentPage.page = await openWorkspace(env, workspace, { 'workbench.colorTheme': theme }));
      await openCortexView(page);
      await viewRow(page, /Model: scripted-model/).waitFor({ state: 'visible' });
      // The dark run starts from the view's item; the light one from the keybinding, with the view open.
      if (shade === 'dark') await viewRow(page, /Run agent task/).click();
      else await page.keyboard.press('Control+Alt+J');
      await answerInput(page, 'Say hello', 'Cortex: Run agent task');
      const panel = await cortexPanel(page);
      await panel.waitForStatus('Say hello', 'completed', 60_000);
      await waitForNotification(page, /Cortex finished: Said hello\./, 60_000);
      const row = viewRow(page, /Say hello/);
      await row.waitFor({ state: 'visible' });
      await page
        .locator('.part.sidebar .monaco-list-row', { hasText: /completed/ })
        .first()
        .waitFor({ state: 'visible', timeout: 15_000 });
      await screenshot(page, `e2e-cortex-view-${shade}`);
      // Opening a recent run from the view shows its plan.
      await row.click();
      await panel.waitForStatus('Say hello', 'completed');
    });
  }
});
