import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Frame, Page } from 'playwright-core';
import { call, json, message, route, toolCalls, toolMessages } from '../support/scriptedReplies';
import { startScriptedServer, type ScriptedRequest } from '../support/scriptedServer';
import { cortexPanel, e2eEnvironment, newWorkspace, openWorkspace, screenshot, type E2eEnvironment } from './support/e2eEnvironment';
import { currentPage } from './support/hooks';
import { panelShot, setPanelWidth } from './support/panelShots';
import { eventually, startTask, stepOf } from './support/scenario';
import { answerInput, EXTENSION_ID, waitForNotification } from './support/workbench';

// The panel at the sizes it really gets: 460 and 626 px (beside an open file or the walkthrough),
// 900 and 1280 px, in the dark, the light and the high-contrast theme. What a person must see without zooming or
// scrolling sideways: every step's text after a 10-step run, the command of a single waiting
// approval with Approve and Deny, a failed step in a sentence, and the fixes for an endpoint error
// (whose Retry, once the key is set, runs the task to the end).
// Each state is saved as a screenshot of the panel in test-artifacts/panel-<state>-<width>-<theme>.png
// (dark, light and high contrast).

const WIDTHS = [460, 626, 900, 1280] as const;
type Theme = 'dark' | 'light' | 'high-contrast';
const THEMES: Theme[] = ['dark', 'light', 'high-contrast'];
/** The theme follows the browser's colour scheme (see setTheme). */
const THEME_SETTINGS = {
  'window.autoDetectColorScheme': true,
  'workbench.preferredDarkColorTheme': 'Default Dark Modern',
  'workbench.preferredLightColorTheme': 'Default Light Modern',
};
const answered = (req: ScriptedRequest) => toolMessages(req).length > 0;

const TEN_STEPS = [
  'Read package.json and note the current version',
  'List the commits since the last tag',
  'Group the commits into features and fixes',
  'Write the release notes draft',
  'Bump the version in package.json',
  'Write release.txt with the notes',
  'Update the CHANGELOG with the new section',
  'Run the unit tests',
  'Commit the release changes',
  'Tag the release v1.4.0',
];

/**
 * Switches the workbench theme through the browser's colour scheme (the scenario's settings turn on
 * `window.autoDetectColorScheme`), and waits until the panel has it.
 */
async function setTheme(page: Page, frame: Frame, theme: Theme): Promise<void> {
  // High contrast: the OS setting (forced colours), which VS Code follows (window.autoDetectHighContrast).
  await page.emulateMedia(theme === 'high-contrast' ? { colorScheme: 'dark', forcedColors: 'active' } : { colorScheme: theme, forcedColors: 'none' });
  await frame.waitForFunction((t) => document.body.classList.contains(`vscode-${t}`), theme, { timeout: 30_000 });
  await page.waitForTimeout(300);
}

/** Visible inside the panel's viewport, with a box a person can read or click (not a sliver). */
async function assertOnScreen(frame: Frame, locator: ReturnType<Frame['locator']>, what: string): Promise<void> {
  await locator.waitFor({ state: 'visible', timeout: 30_000 });
  // The box in the panel's own coordinates (Playwright's boundingBox is the page's).
  const box = await locator.evaluate((el) => {
    const r = el.getBoundingClientRect();
    return { x: r.x, y: r.y, width: r.width, height: r.height };
  });
  const view = await frame.evaluate(() => ({ w: window.innerWidth, h: window.innerHeight }));
  assert.ok(box, `${what}: no box`);
  assert.ok(box.height >= 12 && box.width >= 20, `${what} is too small to read: ${JSON.stringify(box)}`);
  assert.ok(
    box.y >= 0 && box.y + box.height <= view.h + 1 && box.x >= 0 && box.x + box.width <= view.w + 1,
    `${what} is outside the panel: ${JSON.stringify(box)} in ${JSON.stringify(view)}`,
  );
}

/** For each width and theme: the checks, then a screenshot. */
async function atEachSize(page: Page, state: string, check: (frame: Frame, width: number) => Promise<void>): Promise<void> {
  let panel = await cortexPanel(page);
  for (const theme of THEMES) {
    await setTheme(page, panel.frame, theme);
    for (const width of WIDTHS) {
      await setPanelWidth(page, panel.frame, width);
      panel = await cortexPanel(page);
      await check(panel.frame, width);
      await panelShot(page, `panel-${state}-${width}-${theme}`);
    }
  }
}

describe('e2e: the panel at 460, 626, 900 and 1280 px, dark, light and high contrast', function () {
  let env: E2eEnvironment;
  before(async () => {
    env = await e2eEnvironment();
  });

  it('after a 10-step run every step description is visible text, in the list and on the graph', async () => {
    env.server.setHandler(
      route({
        planner: json({
          title: 'Prepare the 1.4 release',
          steps: TEN_STEPS,
          dependencies: { '1': [0], '2': [1], '3': [2], '4': [0], '5': [3], '6': [5], '7': [4], '8': [6, 7], '9': [8] },
        }),
        executor: (req) => message(`Done: ${stepOf(req)}.`),
        aggregator: message('The release is prepared.'),
      }),
    );
    const workspace = newWorkspace(env, 'panel-ten');
    const page = (currentPage.page = await openWorkspace(env, workspace, THEME_SETTINGS));
    await startTask(page, 'Prepare the 1.4 release');
    await waitForNotification(page, /Cortex finished: The release is prepared\./, 120_000);
    await atEachSize(page, 'ten-steps', async (frame, width) => {
      // More than 8 steps: the list is the default view at both widths.
      assert.equal(await frame.locator('.view-tab[aria-pressed="true"]').innerText(), 'List', `the list is the default at ${width} px`);
      for (const text of TEN_STEPS) {
        const row = frame.locator('.plan-row-text', { hasText: text });
        await row.scrollIntoViewIfNeeded();
        await assertOnScreen(frame, row, `row "${text}" at ${width} px`);
      }
      // The graph shows every step's text too, whatever zoom it fits at.
      await frame.getByRole('button', { name: 'Show the plan as a graph' }).click();
      for (const text of TEN_STEPS) {
        const node = frame.locator('.node', { hasText: text }).first();
        const visibleText = await node.evaluate((el) => (el as HTMLElement).innerText);
        assert.ok(visibleText.includes(text), `node of "${text}" at ${width} px shows only ${JSON.stringify(visibleText)}`);
      }
      await frame.waitForTimeout(200);
      await panelShot(page, `panel-ten-steps-graph-${width}-${await theme(frame)}`);
      await frame.getByRole('button', { name: 'Show the plan as a list' }).click();
      await frame.locator('.list-pane').evaluate((el) => el.scrollTo(0, 0));
    });
  });

  it('a single waiting run_command shows its command with Approve and Deny at every size; Approve runs it', async () => {
    env.server.setHandler(
      route({
        planner: json({ title: 'Ready marker', steps: ['Write the ready marker with a shell command'], dependencies: {} }),
        executor: (req) => (answered(req) ? message('Wrote ready.txt.') : toolCalls(call('run_command', { command: 'echo ready > ready.txt' }))),
        aggregator: message('ready.txt written.'),
      }),
    );
    const settings = { ...THEME_SETTINGS, 'cortex.policy.tools': { run_command: 'confirm' } };
    const workspace = newWorkspace(env, 'panel-one-approval');
    const page = (currentPage.page = await openWorkspace(env, workspace, settings));
    await startTask(page, 'Write the ready marker');
    const first = await cortexPanel(page);
    await first.frame.locator('.approvals-bar .approvals-item').waitFor({ state: 'visible', timeout: 60_000 });
    await atEachSize(page, 'one-approval', async (frame, width) => {
      const bar = frame.locator('.approvals-bar');
      assert.equal(await bar.locator('.approvals-item').count(), 1);
      await assertOnScreen(frame, bar.locator('.approvals-subject', { hasText: 'echo ready > ready.txt' }), `the command at ${width} px`);
      await assertOnScreen(frame, bar.getByRole('button', { name: 'Approve run_command echo ready > ready.txt' }), `Approve at ${width} px`);
      await assertOnScreen(frame, bar.getByRole('button', { name: 'Deny run_command echo ready > ready.txt' }), `Deny at ${width} px`);
      assert.match(await bar.locator('.approvals-reason').innerText(), /^Cortex asks because .*If you deny it/);
    });
    assert.equal(existsSync(join(workspace, 'ready.txt')), false, 'nothing runs before approval');
    const panel = await cortexPanel(page);
    await panel.frame
      .locator('.approvals-bar')
      .getByRole('button', { name: /^Approve run_command/ })
      .click();
    await waitForNotification(page, /Cortex finished: ready\.txt written\./, 60_000);
    assert.equal(readFileSync(join(workspace, 'ready.txt'), 'utf8').trim(), 'ready');
    await panel.frame.locator('.approvals-bar').waitFor({ state: 'hidden' });
  });

  it('a failed step says what happened in a sentence with its description, and Open details shows it', async () => {
    env.server.setHandler(
      route({
        planner: json({ title: 'Release file', steps: ['Write release.txt', 'Update the CHANGELOG'], dependencies: { '1': [0] } }),
        executor: (req) => {
          if (stepOf(req) === 'Write release.txt')
            return { kind: 'message', toolCalls: [{ name: 'write_file', arguments: '{"path":"release.txt","content":"1.4 rel' }], finishReason: 'length' };
          return message('Updated.');
        },
        replanner: json({ action: 'give_up', new_steps: [], new_dependencies: {}, reason: 'the reply keeps getting cut off' }),
        aggregator: message('release.txt could not be written.'),
      }),
    );
    const workspace = newWorkspace(env, 'panel-failed');
    const page = (currentPage.page = await openWorkspace(env, workspace, THEME_SETTINGS));
    await startTask(page, 'Write the release file');
    await waitForNotification(page, /Cortex run failed/, 120_000);
    await atEachSize(page, 'failed-step', async (frame, width) => {
      const sentence = frame.locator('.result .result-error');
      await assertOnScreen(frame, sentence, `the run's failure sentence at ${width} px`);
      const text = await sentence.innerText();
      assert.match(text, /Write release\.txt was blocked: the model's reply was cut off while writing release\.txt; the replanner gave up\./, text);
      assert.doesNotMatch(text, /\bs1\b|replan_limit_reached|upstream_blocked/, 'no ids or reason codes');
      assert.match(text, /Update the CHANGELOG/);
      await frame.getByRole('button', { name: /^Open the details of the step that failed: Write release\.txt/ }).click();
      const details = frame.locator('aside.details .failure-sentence');
      await details.waitFor({ state: 'visible' });
      assert.match(await details.innerText(), /^Write release\.txt (was blocked|failed): /);
    });
  });

  it('an endpoint 401 shows Set API key and Retry in the panel (never "Planning…"); Set API key asks for the key, and Retry then runs the task to the end', async () => {
    const keyed = await startScriptedServer(
      route({ planner: json({ title: 'K', steps: ['Say hello'], dependencies: {} }), executor: message('hello'), aggregator: message('Said hello.') }),
      { apiKey: 'sk-needed' },
    );
    try {
      const settings = { ...THEME_SETTINGS, 'cortex.llm.baseUrl': keyed.baseUrl };
      const workspace = newWorkspace(env, 'panel-401');
      const page = (currentPage.page = await openWorkspace(env, workspace, settings));
      await startTask(page, 'Say hello');
      await waitForNotification(page, /Cortex run failed/, 60_000);
      assert.ok(
        keyed.refusals.some((r) => r.status === 401),
        'the endpoint refused the request with 401',
      );
      await atEachSize(page, 'endpoint-401', async (frame, width) => {
        await assertOnScreen(frame, frame.getByRole('button', { name: 'Set the API key for the model endpoint' }), `Set API key at ${width} px`);
        await assertOnScreen(frame, frame.getByRole('button', { name: 'Run the task again' }), `Retry at ${width} px`);
        assert.match(await frame.locator('.result .result-error').innerText(), /401/);
        const body = await frame.locator('body').innerText();
        assert.doesNotMatch(body, /Planning…/, 'the panel follows the run');
        assert.match(body, /The run failed before it had a plan\./);
      });
      const panel = await cortexPanel(page);
      await panel.frame.getByRole('button', { name: 'Set the API key for the model endpoint' }).click();
      await answerInput(page, 'sk-needed', 'Cortex: Set API key');
      await eventually(
        page,
        async () => !(await page.locator('.quick-input-widget .quick-input-title', { hasText: 'Cortex: Set API key' }).isVisible()),
        () => 'the key input did not close',
      );
      // The panel's own Retry (not the notification's offer to retry with the new key).
      await panel.frame.getByRole('button', { name: 'Run the task again' }).click();
      await waitForNotification(page, /Cortex finished: Said hello\./, 60_000);
      assert.ok(
        keyed.chatRequests().some((r) => r.headers.authorization === 'Bearer sk-needed'),
        'the retried run sent the key',
      );
      // The retried run is a new run in a panel of its own, which shows it completed.
      const panelTexts = async () =>
        Promise.all(
          page
            .frames()
            .filter((frame) => frame.parentFrame()?.url().includes(`extensionId=${EXTENSION_ID}`))
            .map((frame) => frame.evaluate(() => document.body?.innerText ?? '').catch(() => '')),
        );
      await eventually(
        page,
        async () => (await panelTexts()).some((text) => /Completed/.test(text) && text.includes('Said hello.')),
        async () => `no panel shows the retried run completed: ${JSON.stringify(await panelTexts())}`,
      );
      await screenshot(page, 'panel-endpoint-401-retried');
    } finally {
      await keyed.close();
    }
  });
});

async function theme(frame: Frame): Promise<string> {
  return frame.evaluate(() => ['high-contrast', 'light', 'dark'].find((t) => document.body.classList.contains(`vscode-${t}`)) ?? 'unknown');
}
