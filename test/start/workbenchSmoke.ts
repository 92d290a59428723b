// Smoke check of a running `npm start` (code-server): the URL answers, the workbench loads in
// Chromium with the folder trusted, Cortex greets with its walkthrough, and the command palette
// lists every Cortex command from package.json. Usage: workbenchSmoke.ts URL
// Exits 0 with "N passed, 0 failed", or 1 naming the first check that failed.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { findInPalette, launchBrowser, openWorkbench } from '../e2e/support/workbench';

const url = process.argv[2];
const root = join(__dirname, '..', '..');
const commandTitles: string[] = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).contributes.commands.map(
  (command: { category?: string; title: string }) => `${command.category ? `${command.category}: ` : ''}${command.title}`,
);

async function checkTrusted(page: Page): Promise<void> {
  const restricted = page.locator('.statusbar-item', { hasText: /Restricted Mode/ });
  // Give the trust indicator time to appear before concluding it is absent.
  await page.waitForTimeout(2_000);
  if ((await restricted.count()) > 0 || /Restricted Mode/.test(await page.title())) {
    throw new Error('the folder opened in Restricted Mode (the agent would be read-only)');
  }
}

async function checkGreeting(page: Page): Promise<void> {
  // The walkthrough itself is open (its steps show), not only listed on the Welcome page.
  const walkthrough = page.locator('.gettingStartedContainer .gettingStartedSlideDetails', { hasText: 'Get started with Cortex' });
  await walkthrough
    .first()
    .waitFor({ state: 'visible', timeout: 60_000 })
    .catch(async () => {
      throw new Error(
        `no Cortex walkthrough after the workbench loaded; editor tabs: ${JSON.stringify(await page.locator('.tabs-container .tab').allInnerTexts())}`,
      );
    });
}

async function checkCommands(page: Page): Promise<void> {
  // The walkthrough's media is a webview that keeps keyboard focus (F1 would not reach the
  // workbench): give the focus back to the workbench, as a person clicking the explorer does.
  await page.locator('.part.sidebar .composite.title').first().click();
  for (const title of commandTitles) await findInPalette(page, title);
  await page.keyboard.press('Escape');
}

async function main(): Promise<number> {
  if (!url) throw new Error('usage: workbenchSmoke.ts URL');
  const response = await fetch(url);
  if (!response.ok) throw new Error(`${url} answered ${response.status}`);
  const browser = await launchBrowser();
  const checks: Array<[string, (page: Page) => Promise<void>]> = [
    ['the folder is trusted', checkTrusted],
    ['Cortex greets with its walkthrough', checkGreeting],
    [`the palette lists the ${commandTitles.length} Cortex commands`, checkCommands],
  ];
  let passed = 1; // the URL answered
  console.log(`start smoke: ${url} answered ${response.status}`);
  try {
    const page = await openWorkbench(browser, url);
    passed++;
    console.log('start smoke: the workbench loaded');
    for (const [name, check] of checks) {
      await check(page);
      passed++;
      console.log(`start smoke: ${name}`);
    }
    await page.screenshot({ path: join(root, 'test-artifacts', 'npm-start.png') });
  } finally {
    await browser.close();
  }
  console.log(`\n${passed} passed, 0 failed`);
  return 0;
}

main().then(
  (code) => process.exit(code),
  (error: Error) => {
    console.error(`start smoke FAILED: ${error.message}`);
    console.log('\n0 passed, 1 failed');
    process.exit(1);
  },
);
