import assert from 'node:assert/strict';
import { json, route } from '../support/scriptedReplies';
import { cortexPanel, e2eEnvironment, newWorkspace, openWorkspace, screenshot, type E2eEnvironment } from './support/e2eEnvironment';
import { currentPage } from './support/hooks';
import { eventually, startTask } from './support/scenario';
import { notificationTexts, statusBarEntry, waitForNotification } from './support/workbench';

// Cancelling a run whose model request never answers: from the Cortex status bar entry's tooltip
// and from the panel's Cancel button. Both must abort the in-flight request and end the run
// promptly. With the panel visible the progress is in the status bar, never a toast over the panel.

describe('e2e: cancel a run', function () {
  let env: E2eEnvironment;
  before(async () => {
    env = await e2eEnvironment();
  });

  for (const via of ['the status bar', 'the panel'] as const) {
    it(`cancelling from ${via} aborts the hanging model request`, async () => {
      let executorCalls = 0;
      env.server.setHandler(
        route({
          planner: json({ title: 'Slow', steps: ['Think for a very long time'], dependencies: {} }),
          executor: () => {
            executorCalls++;
            return { kind: 'hang' };
          },
        }),
      );
      const workspace = newWorkspace(env, 'cancel');
      const page = (currentPage.page = await openWorkspace(env, workspace));
      await startTask(page, 'Think for a very long time');
      const panel = await cortexPanel(page);
      await panel.waitForStatus('Think for a very long time', 'in_progress');
      await eventually(
        page,
        () => executorCalls === 1,
        () => `executor called ${executorCalls} times`,
      );
      assert.deepEqual(
        (await notificationTexts(page)).filter((text) => /Think for a very long time/.test(text)),
        [],
        'no progress toast covers the visible panel',
      );
      const cancelledAt = Date.now();
      if (via === 'the panel') await panel.frame.getByRole('button', { name: 'Cancel the run' }).click();
      else {
        // The entry's text is its spinner glyph and "Cortex" (the window progress beside it says "Cortex: <task>").
        await statusBarEntry(page, /^[^:]*Cortex\s*$/)
          .first()
          .hover();
        await page.locator('.monaco-hover').getByRole('link', { name: 'Cancel run' }).click();
      }
      await waitForNotification(page, /Cortex run cancelled/, 20_000);
      assert.ok(Date.now() - cancelledAt < 15_000, 'the run ended promptly');
      await eventually(
        page,
        async () => /Cancelled/.test(await panel.frame.locator('body').innerText()),
        () => 'the panel does not say Cancelled',
      );
      assert.equal(executorCalls, 1, 'nothing was retried after the cancel');
      await screenshot(page, `e2e-cancelled-from-${via === 'the panel' ? 'panel' : 'status-bar'}`);
    });
  }
});
