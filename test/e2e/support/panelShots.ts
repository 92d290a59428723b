import assert from 'node:assert/strict';
import { join } from 'node:path';
import type { Frame, Page } from 'playwright-core';
import { ARTIFACTS } from './e2eEnvironment';
import { EXTENSION_ID } from './workbench';

// The panel at a given width, and a screenshot of it alone: for the scenarios that show the panel
// at the sizes it really gets (460 px beside an open file, 1280 px on its own).

/** Resizes the window until the panel's document is `width` CSS px wide (±2). */
export async function setPanelWidth(page: Page, frame: Frame, width: number): Promise<void> {
  for (let i = 0; i < 4; i++) {
    const inner = await frame.evaluate(() => window.innerWidth);
    if (Math.abs(inner - width) <= 2) return;
    const viewport = page.viewportSize() ?? { width: 1600, height: 900 };
    await page.setViewportSize({ width: viewport.width + (width - inner), height: 900 });
    await page.waitForTimeout(400);
  }
  const inner = await frame.evaluate(() => window.innerWidth);
  assert.ok(Math.abs(inner - width) <= 2, `the panel is ${inner} px wide, not ${width}`);
}

/** A screenshot of the panel alone (its webview element), without the workbench's toasts over it. */
export async function panelShot(page: Page, name: string, index = 0): Promise<void> {
  await page.mouse.move(1, 1);
  const hideToasts = await page.addStyleTag({ content: '.notifications-toasts { display: none !important; }' });
  await page
    .locator(`iframe.webview[src*="extensionId=${EXTENSION_ID}"]`)
    .nth(index)
    .screenshot({ path: join(ARTIFACTS, `${name}.png`) });
  await hideToasts.evaluate((style) => (style as Element).remove());
}
