import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { call, json, message, route, toolCalls, toolMessages } from '../support/scriptedReplies';
import type { ScriptedRequest } from '../support/scriptedServer';
import { cortexPanel, e2eEnvironment, newWorkspace, openWorkspace, screenshot, type E2eEnvironment, type PanelHandle } from './support/e2eEnvironment';
import { currentPage } from './support/hooks';
import { eventually, startTask, stepOf } from './support/scenario';
import {
  clickNotificationButton,
  editorTab,
  isActiveTab,
  isWebviewFocused,
  notificationTexts,
  runCommand,
  statusBarEntry,
  waitForNotification,
} from './support/workbench';

// Where waiting approvals show up besides the panel: the status bar counts them ("$(bell) 2
// approvals waiting"; a click reveals and focuses the panel) and a notification is offered only
// for a request that arrives while the run's panel is hidden.

const answered = (req: ScriptedRequest) => toolMessages(req).length > 0;
const ASKS_APPROVAL = /Cortex wants to run/;

async function approveOnNode(panel: PanelHandle, step: string): Promise<void> {
  const button = panel.node(step).getByRole('button', { name: /^Approve run_command/ });
  await button.waitFor({ state: 'visible', timeout: 60_000 });
  await button.click();
}

/**
 * Opens an untitled editor over the panel in the panel's own group (a double click on the empty
 * part of a tab bar does that), so the panel is open but hidden.
 */
async function hidePanel(page: Page, tab: ReturnType<Page['locator']>): Promise<void> {
  const tabBar = page.locator('.editor-group-container', { has: tab }).locator('.tabs-container');
  const box = await tabBar.boundingBox();
  if (!box) throw new Error('the panel tab has no tab bar');
  await tabBar.dblclick({ position: { x: box.width - 8, y: box.height / 2 } });
  await eventually(
    page,
    async () => (await tab.getAttribute('aria-selected')) === 'false',
    async () => `the panel tab is still selected: ${JSON.stringify(await page.locator('.tabs-container .tab').allInnerTexts())}`,
  );
}

describe('e2e: approvals waiting in the status bar', function () {
  let env: E2eEnvironment;
  before(async () => {
    env = await e2eEnvironment();
  });

  it('counts waiting approvals, a click reveals and focuses the hidden panel, and the entry goes once they are answered', async () => {
    env.server.setHandler(
      route({
        planner: json({ title: 'Markers', steps: ['Write the alpha marker', 'Write the beta marker'], dependencies: {} }),
        executor: (req) => {
          const name = stepOf(req).includes('alpha') ? 'alpha' : 'beta';
          return answered(req) ? message(`Wrote ${name}.txt.`) : toolCalls(call('run_command', { command: `echo ${name} > ${name}.txt` }));
        },
        aggregator: message('Both markers written.'),
      }),
    );
    const workspace = newWorkspace(env, 'approval-status');
    const page = (currentPage.page = await openWorkspace(env, workspace, { 'cortex.policy.tools': { run_command: 'confirm' } }));
    await startTask(page, 'Write the two markers');
    await cortexPanel(page);
    const entry = statusBarEntry(page, /approvals? waiting/);
    await eventually(
      page,
      async () => /2 approvals waiting/.test((await entry.innerText().catch(() => '')) ?? ''),
      async () => `status bar: ${JSON.stringify(await page.locator('.part.statusbar .statusbar-item').allInnerTexts())}`,
      60_000,
    );
    // The panel is visible and shows the buttons: no notification next to it.
    await page.waitForTimeout(1_000);
    assert.deepEqual(
      (await notificationTexts(page)).filter((text) => ASKS_APPROVAL.test(text)),
      [],
      'no approval notification while the panel is visible',
    );
    await screenshot(page, 'e2e-approvals-status');

    const tab = editorTab(page, /^Cortex: Write the two markers/);
    await hidePanel(page, tab);
    assert.equal(await isActiveTab(tab), false);
    assert.equal(await isWebviewFocused(page), false, 'the untitled editor has the focus');
    await entry.click();
    await eventually(
      page,
      () => isActiveTab(tab),
      async () => `the panel was not revealed; tabs: ${JSON.stringify(await page.locator('.tabs-container .tab').allInnerTexts())}`,
    );
    await eventually(
      page,
      () => isWebviewFocused(page),
      async () => `the panel does not have the focus (active element: ${await page.evaluate(() => document.activeElement?.outerHTML.slice(0, 200))})`,
    );

    // A hidden webview is torn down and rebuilt when shown again: find its new frame.
    const revealed = await cortexPanel(page);
    await approveOnNode(revealed, 'Write the alpha marker');
    await eventually(
      page,
      async () => /1 approval waiting/.test(await entry.innerText().catch(() => '')),
      async () => `status bar: ${JSON.stringify(await page.locator('.part.statusbar .statusbar-item').allInnerTexts())}`,
    );
    await approveOnNode(revealed, 'Write the beta marker');
    await entry.waitFor({ state: 'detached', timeout: 30_000 }).catch(async () => {
      throw new Error(`the approvals entry is still shown: ${JSON.stringify(await entry.allInnerTexts())}`);
    });
    await waitForNotification(page, /Cortex finished: Both markers written\./, 60_000);
    assert.equal(readFileSync(join(workspace, 'alpha.txt'), 'utf8').trim(), 'alpha');
    assert.equal(readFileSync(join(workspace, 'beta.txt'), 'utf8').trim(), 'beta');
  });

  it('a request arriving while the panel is hidden gets a notification; approving there runs it and clears the entry', async () => {
    env.server.setHandler(
      route({
        // Slow replies leave time to hide the panel before the approval is requested.
        planner: json({ title: 'Dist', steps: ['Create the dist folder'], dependencies: {} }, { delayMs: 1_500 }),
        executor: (req) => (answered(req) ? message('Created dist.') : { ...toolCalls(call('run_command', { command: 'mkdir dist' })), delayMs: 4_000 }),
        aggregator: message('dist exists.'),
      }),
    );
    const workspace = newWorkspace(env, 'approval-hidden');
    const page = (currentPage.page = await openWorkspace(env, workspace, { 'cortex.policy.tools': { run_command: 'confirm' } }));
    await startTask(page, 'Create the dist folder');
    await cortexPanel(page);
    const entry = statusBarEntry(page, /approvals? waiting/);
    await hidePanel(page, editorTab(page, /^Cortex: Create the dist folder/));
    assert.equal(await entry.count(), 0, 'the panel was hidden before the approval was requested');

    await waitForNotification(page, /Cortex wants to run .*mkdir dist/, 60_000);
    assert.match(await entry.innerText(), /1 approval waiting/);
    await screenshot(page, 'e2e-approval-notification-hidden-panel');
    await clickNotificationButton(page, /Cortex wants to run .*mkdir dist/, 'Approve');
    await waitForNotification(page, /Cortex finished: dist exists\./, 60_000);
    assert.equal(existsSync(join(workspace, 'dist')), true);
    assert.equal(await entry.count(), 0, 'no approval waits any more');
    // The panel, shown again, no longer offers the answered approval.
    await runCommand(page, 'Cortex: Show plan panel');
    const panel = await cortexPanel(page);
    await panel.waitForStatus('Create the dist folder', 'completed');
    assert.equal(
      await panel
        .node('Create the dist folder')
        .getByRole('button', { name: /^Approve/ })
        .count(),
      0,
      'the node still offers Approve',
    );
  });
});
