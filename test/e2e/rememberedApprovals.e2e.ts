import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Frame, Page } from 'playwright-core';
import { call, json, message, route, sequence, toolCalls } from '../support/scriptedReplies';
import { ARTIFACTS, cortexPanel, e2eEnvironment, newWorkspace, openWorkspace, type E2eEnvironment } from './support/e2eEnvironment';
import { currentPage } from './support/hooks';
import { startTask } from './support/scenario';
import { EXTENSION_ID, openQuickPick, runCommand, waitForNotification } from './support/workbench';

// Remembered answers in the real workbench (docs/design.md, “Remembered approvals”): "Approve for
// this run" on a waiting command lets the next command with the same prefix run without a
// prompt, while a command with added shell syntax is still asked and offers nothing to remember;
// "Always allow in this workspace" keeps a prefix that Cortex: Manage approvals lists and removes.
// The approval bar with the new buttons is saved at 460 and 1280 px
// (test-artifacts/remembered-approval-bar-<width>.png).

/** Resizes the window until the panel's document is `width` CSS px wide (±2). */
async function setPanelWidth(page: Page, frame: Frame, width: number): Promise<void> {
  for (let i = 0; i < 4; i++) {
    const inner = await frame.evaluate(() => window.innerWidth);
    if (Math.abs(inner - width) <= 2) return;
    const viewport = page.viewportSize() ?? { width: 1600, height: 900 };
    await page.setViewportSize({ width: viewport.width + (width - inner), height: 900 });
    await page.waitForTimeout(400);
  }
}

/** A screenshot of the panel alone (its webview element), without the workbench's toasts. */
async function panelShot(page: Page, name: string): Promise<void> {
  await page.mouse.move(1, 1);
  const hideToasts = await page.addStyleTag({ content: '.notifications-toasts { display: none !important; }' });
  await page
    .locator(`iframe.webview[src*="extensionId=${EXTENSION_ID}"]`)
    .first()
    .screenshot({ path: join(ARTIFACTS, `${name}.png`) });
  await hideToasts.evaluate((style) => (style as Element).remove());
}

describe('e2e: remembered approvals', function () {
  let env: E2eEnvironment;
  before(async () => {
    env = await e2eEnvironment();
  });

  it('Approve for this run: the next same-prefix command runs without a prompt; shell syntax still asks; Always allow is listed and removed in Manage approvals', async () => {
    const executor = sequence(
      toolCalls(call('run_command', { command: 'touch one.txt' })),
      toolCalls(call('run_command', { command: 'touch two.txt' })),
      toolCalls(call('run_command', { command: 'touch three.txt && touch four.txt' })),
      toolCalls(call('run_command', { command: 'mkdir out' })),
      message('Created one.txt, two.txt and out.'),
    );
    env.server.setHandler(
      route({ planner: json({ title: 'Files', steps: ['Create the files'], dependencies: {} }), executor, aggregator: message('Files created.') }),
    );
    const workspace = newWorkspace(env, 'remembered');
    const page = (currentPage.page = await openWorkspace(env, workspace));
    await startTask(page, 'Create the files');
    let panel = await cortexPanel(page);
    const bar = () => panel.frame.locator('.approvals-bar');
    const item = () => bar().locator('.approvals-item');

    await item().filter({ hasText: 'touch one.txt' }).waitFor({ state: 'visible', timeout: 60_000 });
    const forRun = bar().getByRole('button', { name: /^Approve this call and, for the rest of this run, run_command `touch …`/ });
    await forRun.waitFor({ state: 'visible' });
    assert.match((await forRun.getAttribute('title')) ?? '', /until this run ends: run_command `touch …`/);
    await bar()
      .getByRole('button', { name: /^Approve this call and always allow run_command `touch …` in this workspace/ })
      .waitFor({ state: 'visible' });
    assert.match(
      await bar().locator('.approvals-remember-note').innerText(),
      /also approve run_command `touch …` \(plain words after it, never shell syntax\)/,
    );
    for (const width of [460, 1280]) {
      await setPanelWidth(page, panel.frame, width);
      panel = await cortexPanel(page);
      await panelShot(page, `remembered-approval-bar-${width}`);
    }
    assert.equal(existsSync(join(workspace, 'one.txt')), false, 'nothing runs before approval');
    await bar()
      .getByRole('button', { name: /^Approve this call and, for the rest of this run/ })
      .click();

    // touch two.txt runs unasked; the next request is the shell line, which offers nothing to remember.
    await item().filter({ hasText: 'touch three.txt && touch four.txt' }).waitFor({ state: 'visible', timeout: 60_000 });
    assert.equal(existsSync(join(workspace, 'one.txt')), true);
    assert.equal(existsSync(join(workspace, 'two.txt')), true, 'the same-prefix command ran without a prompt');
    assert.equal(await item().count(), 1);
    assert.equal(
      await bar()
        .getByRole('button', { name: /for the rest of this run|always allow/ })
        .count(),
      0,
      'shell syntax: only Approve and Deny',
    );
    assert.equal(await bar().locator('.approvals-remember-note').count(), 0);
    await bar()
      .getByRole('button', { name: /^Deny run_command/ })
      .click();

    // mkdir out (`out` reads as a subcommand word, so the prefix is both words): always allowed in this workspace from now on.
    await item().filter({ hasText: 'mkdir out' }).waitFor({ state: 'visible', timeout: 60_000 });
    await bar()
      .getByRole('button', { name: /^Approve this call and always allow run_command `mkdir out …` in this workspace/ })
      .click();
    await waitForNotification(page, /Cortex finished: Files created\./, 60_000);
    assert.equal(existsSync(join(workspace, 'out')), true);
    for (const name of ['three.txt', 'four.txt']) assert.equal(existsSync(join(workspace, name)), false, `${name}: the denied shell line never ran`);

    // Cortex: Manage approvals lists the workspace's prefix; picking it removes it.
    const row = await openQuickPick(page, 'Cortex: Manage approvals', 'mkdir out');
    await row.locator('.quick-input-list-checkbox, input[type=checkbox], .monaco-checkbox').first().click();
    await page.locator('.quick-input-widget .quick-input-box input').press('Enter');
    await waitForNotification(page, /Cortex: removed run_command `mkdir out …`/, 30_000);
    await runCommand(page, 'Cortex: Manage approvals');
    await waitForNotification(page, /no command is always allowed in this workspace/, 30_000);
    env.server.assertNoRejections();
  });
});
