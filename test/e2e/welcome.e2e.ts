import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import type { Page } from 'playwright-core';
import { cortexLogFile, e2eEnvironment, newWorkspace, openWorkspace, screenshot, type E2eEnvironment } from './support/e2eEnvironment';
import { currentPage } from './support/hooks';
import { eventually } from './support/scenario';
import { pickQuickItem, runCommand, waitForNotification } from './support/workbench';
import { json, message, route } from '../support/scriptedReplies';

// The first start in a profile greets with the "Get started with Cortex" walkthrough; the next
// start does not. In VS Code in the browser a profile's state lives in the browser, so a fresh
// page is a first start and "Developer: Reload Window" is the next start of the same profile.

const STEPS = ['Set the endpoint', 'Set the API key', 'Run a first task'];

/** The walkthrough's page in the Welcome editor (its title and steps), when shown. */
function walkthrough(page: Page) {
  return page.locator('.gettingStartedContainer .gettingStartedSlideDetails', { hasText: 'Get started with Cortex' });
}

/** Waits for a Cortex log written after `previous` (a new extension host session) that says it activated. */
async function waitForActivation(page: Page, env: E2eEnvironment, previous: string | undefined): Promise<string> {
  let text = '';
  await eventually(
    page,
    () => {
      const file = cortexLogFile(env);
      text = file && file !== previous ? readFileSync(file, 'utf8') : '';
      return /Cortex activated/.test(text);
    },
    () => `Cortex did not activate (newest log ${cortexLogFile(env)}, previous ${previous})`,
    60_000,
  );
  return cortexLogFile(env)!;
}

describe('e2e: first start', function () {
  let env: E2eEnvironment;
  before(async () => {
    env = await e2eEnvironment();
  });

  it('opens the Cortex walkthrough on the first start in a profile, and not on the next', async () => {
    const before = cortexLogFile(env);
    const workspace = newWorkspace(env, 'welcome');
    const page = (currentPage.page = await openWorkspace(env, workspace, { 'workbench.welcomePage.walkthroughs.openOnInstall': true }));
    await walkthrough(page)
      .waitFor({ state: 'visible', timeout: 60_000 })
      .catch(async () => {
        throw new Error(
          `no Cortex walkthrough after the first load; editor tabs: ${JSON.stringify(await page.locator('.tabs-container .tab').allInnerTexts())}`,
        );
      });
    for (const step of STEPS) await walkthrough(page).locator('.getting-started-step', { hasText: step }).first().waitFor({ state: 'visible' });
    const firstLog = await waitForActivation(page, env, before);
    assert.match(readFileSync(firstLog, 'utf8'), /First start in this profile: opened the walkthrough cortex-dev\.cortex-agent#cortex\.gettingStarted/);
    await screenshot(page, 'e2e-walkthrough');

    // Closed, so a restored editor cannot pass for a reopened walkthrough.
    await runCommand(page, 'View: Close All Editors');
    await walkthrough(page).waitFor({ state: 'hidden' });
    await Promise.all([page.waitForEvent('load', { timeout: 60_000 }), runCommand(page, 'Developer: Reload Window')]);
    await page.locator('.monaco-workbench').waitFor({ state: 'visible', timeout: 60_000 });
    const secondLog = await waitForActivation(page, env, firstLog);
    // The greeting runs right after activation: give it time to (wrongly) open the walkthrough.
    await page.waitForTimeout(3_000);
    assert.equal(await walkthrough(page).isVisible(), false, 'the walkthrough was reopened on the second start');
    assert.doesNotMatch(readFileSync(secondLog, 'utf8'), /opened the walkthrough/);
  });
});

/** aria-checked of each step's tick in the walkthrough page. */
async function ticks(page: Page): Promise<Record<string, string | null>> {
  const result: Record<string, string | null> = {};
  for (const step of ['setEndpoint', 'setApiKey', 'runFirstTask'])
    result[step] = await page.locator(`[data-done-step-id$="cortex.${step}"]`).first().getAttribute('aria-checked');
  return result;
}

describe('e2e: the task typed on a first start', function () {
  let env: E2eEnvironment;
  before(async () => {
    env = await e2eEnvironment();
  });

  it('keeps its focus and its text while the walkthrough opens, and runs', async () => {
    env.server.setHandler(
      route({ planner: json({ title: 'Hello', steps: ['Say hello'], dependencies: {} }), executor: message('hello'), aggregator: message('Said hello.') }),
    );
    const workspace = newWorkspace(env, 'first-task');
    const page = (currentPage.page = await openWorkspace(env, workspace, { 'workbench.welcomePage.walkthroughs.openOnInstall': true }));
    // As soon as the walkthrough shows, as a new user would: its page is still building and takes
    // the focus when done (a palette opened before it shows is closed by VS Code itself).
    await walkthrough(page).waitFor({ state: 'visible', timeout: 60_000 });
    const shownAt = Date.now();
    await runCommand(page, 'Cortex: Run agent task');
    await page.locator('.quick-input-widget .quick-input-title', { hasText: 'Cortex: Run agent task' }).waitFor({ state: 'visible' });
    const task = 'Say hello';
    // Typed key by key (not filled in): every keystroke must land in the box.
    for (const key of task) {
      await page.keyboard.type(key);
      await page.waitForTimeout(120);
    }
    await page.waitForTimeout(1_000);
    const input = page.locator('.quick-input-widget .quick-input-box input');
    assert.equal(await input.inputValue(), task, 'the box kept every keystroke');
    assert.equal(await input.evaluate((element) => element === document.activeElement), true, 'the box still has the focus');
    await screenshot(page, 'e2e-first-task-box');
    await page.keyboard.press('Enter');
    await waitForNotification(page, /Cortex finished: Said hello\./, 60_000);
    // Cortex sets the endpoint's key 6 s after start-up, once VS Code has registered the steps.
    await page.waitForTimeout(Math.max(0, shownAt + 7_000 - Date.now()));
    await runCommand(page, 'View: Close All Editors');
    await walkthrough(page).waitFor({ state: 'hidden' });
    await runCommand(page, 'Welcome: Open Walkthrough...');
    await pickQuickItem(page, 'Get started with Cortex');
    await walkthrough(page).waitFor({ state: 'visible' });
    // The endpoint set in the user settings before the first start ticks its step; the key was never
    // set; the first task is ticked by a run that completed. (Read from a reopened walkthrough: an
    // open page does not always redraw its ticks.)
    await eventually(
      page,
      async () => (await ticks(page)).runFirstTask === 'true',
      async () => `walkthrough ticks: ${JSON.stringify(await ticks(page))}`,
    );
    assert.deepEqual(await ticks(page), { setEndpoint: 'true', setApiKey: 'false', runFirstTask: 'true' });
  });
});
