import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Frame, Page } from 'playwright-core';
import { call, json, message, route, toolCalls, toolMessages } from '../support/scriptedReplies';
import { cortexPanel, e2eEnvironment, newWorkspace, openWorkspace, screenshot, type E2eEnvironment } from './support/e2eEnvironment';
import { currentPage } from './support/hooks';
import { panelShot, setPanelWidth } from './support/panelShots';
import { eventually, startTask, stepOf } from './support/scenario';
import { EXTENSION_ID, waitForNotification } from './support/workbench';

// Retry step in real VS Code (docs/design.md, “Retrying a step”): a run whose second step is
// blocked (the model's reply is cut off, the replanner gives up) shows Retry step beside the
// failure, at 460 and 1280 px; clicking it starts a new run in a panel of its own, which names the
// step it retries, does not run the completed step again, and completes.

const NOTES = 'Write notes.txt';
const RELEASE = 'Write release.txt';
const CHANGELOG = 'Update the CHANGELOG';

/** The panel frame whose text matches (two runs, two panels). */
async function panelWithText(page: Page, text: RegExp, timeout = 60_000): Promise<Frame> {
  const deadline = Date.now() + timeout;
  while (Date.now() < deadline) {
    for (const frame of page.frames().filter((f) => f.parentFrame()?.url().includes(`extensionId=${EXTENSION_ID}`))) {
      const body = await frame.evaluate(() => document.body?.innerText ?? '').catch(() => '');
      if (text.test(body)) return frame;
    }
    await page.waitForTimeout(250);
  }
  throw new Error(`no Cortex panel shows ${text} within ${timeout} ms`);
}

describe('e2e: Retry step on a blocked step of a finished run', function () {
  let env: E2eEnvironment;
  before(async () => {
    env = await e2eEnvironment();
  });

  it('shows Retry step beside the failure at 460 and 1280 px; the retry runs in a new panel without running the completed step again', async () => {
    const control = { fixed: false };
    env.server.setHandler(
      route({
        planner: json({ title: 'Release file', steps: [NOTES, RELEASE, CHANGELOG], dependencies: { '1': [0], '2': [1] } }),
        executor: (req) => {
          const step = stepOf(req);
          const done = toolMessages(req).length > 0;
          if (step === NOTES) return done ? message('notes.txt written.') : toolCalls(call('write_file', { path: 'notes.txt', content: 'notes\n' }));
          if (step === RELEASE) {
            if (!control.fixed)
              return { kind: 'message', toolCalls: [{ name: 'write_file', arguments: '{"path":"release.txt","content":"1.4 rel' }], finishReason: 'length' };
            return done ? message('release.txt written.') : toolCalls(call('write_file', { path: 'release.txt', content: '1.4 release\n' }));
          }
          return message('Updated.');
        },
        replanner: json({ action: 'give_up', new_steps: [], new_dependencies: {}, reason: 'the reply keeps getting cut off' }),
        aggregator: message('Done.'),
      }),
    );
    const workspace = newWorkspace(env, 'retry-step');
    const page = (currentPage.page = await openWorkspace(env, workspace));
    await startTask(page, 'Write the release file');
    await waitForNotification(page, /Cortex run failed/, 120_000);

    let panel = await cortexPanel(page);
    for (const width of [460, 1280]) {
      await setPanelWidth(page, panel.frame, width);
      panel = await cortexPanel(page);
      const frame = panel.frame;
      // The run's failure summary offers Retry step for the blocked step, beside Open details.
      const result = frame.locator('.result');
      await result.getByRole('button', { name: /^Retry step: Write release\.txt\./ }).waitFor({ state: 'visible' });
      await result.getByRole('button', { name: /^Open the details of the step that failed: Write release\.txt/ }).click();
      const sentence = frame.locator('aside.details .failure-sentence');
      await sentence.waitFor({ state: 'visible' });
      assert.match(await sentence.innerText(), /^Write release\.txt was blocked: /);
      const retry = frame.locator('aside.details .retry-step-actions button');
      await retry.waitFor({ state: 'visible' });
      assert.equal(await retry.innerText(), 'Retry step');
      if (width === 460) {
        // The list (the default at this width): the blocked row has Retry step and Open details; the completed one has neither.
        const row = frame.locator('.plan-row', { hasText: RELEASE }).first();
        await row.getByRole('button', { name: /^Retry step: Write release\.txt/ }).waitFor({ state: 'visible' });
        await row.getByRole('button', { name: /^Open the details of step s2/ }).waitFor({ state: 'visible' });
        assert.equal(
          await frame
            .locator('.plan-row', { hasText: NOTES })
            .first()
            .getByRole('button', { name: /^Retry step/ })
            .count(),
          0,
        );
      }
      await retry.scrollIntoViewIfNeeded();
      await panelShot(page, `panel-retry-step-${width}`);
    }

    control.fixed = true;
    const mark = env.server.chatRequests().length;
    await panel.frame.locator('aside.details .retry-step-actions button').click();
    const retried = await panelWithText(page, /Retry of step “Write release\.txt” \(s2\) from run run-/);
    await waitForNotification(page, /Cortex finished/, 120_000);
    await eventually(
      page,
      async () => /Completed/.test(await retried.locator('.run-status-text').innerText()),
      async () => `the retry's panel: ${(await retried.locator('body').innerText()).slice(0, 800)}`,
    );
    await screenshot(page, 'e2e-retry-step-done');
    const after = env.server.chatRequests().slice(mark);
    const steps = after.filter((r) => r.purpose === 'executor').map(stepOf);
    assert.equal(steps.includes(NOTES), false, 'the completed step is carried over, not run again');
    assert.deepEqual([...new Set(steps)], [RELEASE, CHANGELOG]);
    assert.equal(after.filter((r) => r.purpose === 'planner').length, 0, 'the plan is not made again');
    assert.equal(readFileSync(join(workspace, 'release.txt'), 'utf8'), '1.4 release\n');
    assert.equal(readFileSync(join(workspace, 'notes.txt'), 'utf8'), 'notes\n');
  });
});
