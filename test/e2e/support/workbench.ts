import { existsSync } from 'node:fs';
import { chromium, type Browser, type Frame, type Page } from 'playwright-core';

// Driving the real VS Code workbench (code-server) in Debian's Chromium the way a person does:
// command palette, input boxes, notifications, and the webview's nested iframes.

export const EXTENSION_ID = 'cortex-dev.cortex-agent';
export const CHROMIUM = process.env.CORTEX_CHROMIUM ?? '/usr/bin/chromium';
const CHROMIUM_FLAGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-dev-shm-usage',
];

export async function launchBrowser(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) throw new Error(`Chromium is missing at ${CHROMIUM}: apt-get install -y chromium (or set CORTEX_CHROMIUM)`);
  return chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_FLAGS, headless: true });
}

/** Opens the workbench on `url` and waits until it is usable. */
export async function openWorkbench(browser: Browser, url: string): Promise<Page> {
  // A fresh context per window: VS Code web caches settings and state in browser storage.
  const context = await browser.newContext({ viewport: { width: 1600, height: 1000 } });
  const page = await context.newPage();
  page.on('close', () => void context.close().catch(() => undefined));
  page.setDefaultTimeout(30_000);
  await page.goto(url, { waitUntil: 'domcontentloaded' });
  await page.locator('.monaco-workbench').waitFor({ state: 'visible', timeout: 60_000 });
  // The explorer (or the empty-window view) is rendered once the workbench has restored.
  await page.locator('.part.sidebar, .part.editor').first().waitFor({ state: 'visible' });
  return page;
}

/**
 * F1 → type the title → waits for the command's row and returns it (Escape closes the palette).
 * Right after start-up the extension host may not have registered the extension's commands yet,
 * so the palette is re-queried until the command shows.
 */
export async function findInPalette(page: Page, title: string, timeout = 45_000): Promise<ReturnType<Page['locator']>> {
  await page.keyboard.press('Escape');
  await page.keyboard.press('F1');
  const input = page.locator('.quick-input-widget .quick-input-box input');
  await input.waitFor({ state: 'visible' });
  await input.fill(`>${title}`);
  const row = page.locator('.quick-input-widget .monaco-list-row', { hasText: title }).first();
  const deadline = Date.now() + timeout;
  for (;;) {
    try {
      await row.waitFor({ state: 'visible', timeout: 3_000 });
      return row;
    } catch {
      if (Date.now() > deadline) {
        const offered = await page.locator('.quick-input-widget .monaco-list-row').allInnerTexts();
        throw new Error(`the command palette has no "${title}"; it offered: ${JSON.stringify(offered.slice(0, 10))}`);
      }
      if (!(await input.isVisible())) await page.keyboard.press('F1');
      await input.fill('>');
      await input.fill(`>${title}`);
    }
  }
}

/** F1 → type the title → pick it. Throws listing what the palette offered if it is not there. */
export async function runCommand(page: Page, title: string): Promise<void> {
  await (await findInPalette(page, title)).click();
}

/**
 * Types into the open quick input (input box / quick pick) and presses Enter. With `title`, first
 * waits for the input whose title it is (so the command palette's own box is never typed into).
 */
export async function answerInput(page: Page, text: string, title?: string): Promise<void> {
  if (title) await page.locator('.quick-input-widget .quick-input-title', { hasText: title }).waitFor({ state: 'visible' });
  const input = page.locator('.quick-input-widget .quick-input-box input');
  await input.waitFor({ state: 'visible' });
  await input.fill(text);
  await input.press('Enter');
}

/**
 * Runs `command` and waits until its quick pick shows, visibly, a row with `rowText` for which
 * `ready(rowText)` holds; returns that row. A quick pick closes when it loses focus, and the
 * workbench can hand focus back to what had it before the command palette (a webview) just after
 * the command's own pick opened: when the pick is gone for a few seconds, the command runs again.
 */
export async function openQuickPick(
  page: Page,
  command: string,
  rowText: string,
  ready: (text: string) => boolean = () => true,
  timeout = 90_000,
): Promise<ReturnType<Page['locator']>> {
  const widget = page.locator('.quick-input-widget');
  const row = widget.locator('.monaco-list-row', { hasText: rowText }).first();
  const deadline = Date.now() + timeout;
  let seen = '(no row)';
  for (let attempt = 1; attempt <= 3 && Date.now() < deadline; attempt++) {
    await runCommand(page, command);
    let hiddenSince: number | undefined;
    while (Date.now() < deadline) {
      if (await widget.isVisible()) {
        hiddenSince = undefined;
        if (await row.isVisible()) {
          seen = await row.innerText().catch(() => seen);
          if (ready(seen)) return row;
        }
      } else if ((hiddenSince ??= Date.now()) < Date.now() - 3_000) break;
      await page.waitForTimeout(200);
    }
  }
  throw new Error(`"${command}": no visible row with "${rowText}" that is ready within ${timeout} ms (last seen: ${seen})`);
}

/**
 * Picks the quick-pick item whose row shows `text`, with the keyboard: the list is filtered by the
 * text and Enter accepts the focused first row. (A mouse click can wait forever for a row that
 * the workbench keeps re-rendering while the pick is filled.) Returns the picked row's text.
 */
export async function pickQuickItem(page: Page, text: string, timeout = 30_000): Promise<string> {
  const row = page.locator('.quick-input-widget .monaco-list-row', { hasText: text }).first();
  await row.waitFor({ state: 'visible', timeout });
  const input = page.locator('.quick-input-widget .quick-input-box input');
  await input.fill(text);
  const first = page.locator('.quick-input-widget .monaco-list-row[data-index="0"]');
  await first.filter({ hasText: text }).waitFor({ state: 'visible', timeout });
  const picked = await first.innerText();
  await input.press('Enter');
  return picked;
}

/** Texts of the visible notification toasts. */
export async function notificationTexts(page: Page): Promise<string[]> {
  return page.locator('.notifications-toasts .notification-toast').allInnerTexts();
}

/** Waits for a toast whose text matches, and returns its text. */
export async function waitForNotification(page: Page, pattern: RegExp, timeout = 30_000): Promise<string> {
  const deadline = Date.now() + timeout;
  while (Date.now() < deadline) {
    const match = (await notificationTexts(page)).find((text) => pattern.test(text));
    if (match) return match;
    await page.waitForTimeout(200);
  }
  throw new Error(`no notification matching ${pattern} within ${timeout} ms; visible: ${JSON.stringify(await notificationTexts(page))}`);
}

/** Clicks a button of the toast whose text matches. */
export async function clickNotificationButton(page: Page, pattern: RegExp, button: string): Promise<void> {
  const toast = page.locator('.notifications-toasts .notification-toast').filter({ hasText: pattern }).first();
  await toast.getByRole('button', { name: button, exact: true }).click();
}

/**
 * The Cortex panel's content frame. Webviews are an iframe (pre/index.html, whose URL names the
 * owning extension) holding the content iframe; we return the content frame of a Cortex webview
 * once its document has rendered something.
 */
export async function findPanelFrame(page: Page, timeout = 30_000): Promise<Frame> {
  const deadline = Date.now() + timeout;
  while (Date.now() < deadline) {
    const candidates = page.frames().filter((frame) => frame.parentFrame()?.url().includes(`extensionId=${EXTENSION_ID}`));
    for (const frame of candidates.reverse()) {
      const rendered = await frame.evaluate(() => (document.body?.children.length ?? 0) > 0).catch(() => false);
      if (rendered) return frame;
    }
    await page.waitForTimeout(250);
  }
  throw new Error(`no Cortex webview frame within ${timeout} ms; frames: ${JSON.stringify(page.frames().map((f) => f.url().slice(0, 160)))}`);
}

/** The status bar entry whose text matches (e.g. Cortex's "2 approvals waiting"). */
export function statusBarEntry(page: Page, text: RegExp): ReturnType<Page['locator']> {
  return page.locator('.part.statusbar .statusbar-item', { hasText: text });
}

/** The editor tab whose title matches. */
export function editorTab(page: Page, title: RegExp): ReturnType<Page['locator']> {
  return page.locator('.tabs-container .tab', { hasText: title }).first();
}

/** True if the tab is the visible one of its group and that group is the active (focused) one. */
export async function isActiveTab(tab: ReturnType<Page['locator']>): Promise<boolean> {
  return tab
    .evaluate(
      (element) => element.getAttribute('aria-selected') === 'true' && element.closest('.editor-group-container')?.classList.contains('active') === true,
    )
    .catch(() => false);
}

/** True while the keyboard focus is inside a webview (the workbench's active element is a webview iframe). */
export async function isWebviewFocused(page: Page): Promise<boolean> {
  return page.evaluate(() => {
    const active = document.activeElement;
    return active?.tagName === 'IFRAME' && active.classList.contains('webview');
  });
}
