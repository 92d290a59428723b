import assert from 'node:assert/strict';
import { error, json, message, route } from '../support/scriptedReplies';
import { cortexPanel, e2eEnvironment, newWorkspace, openWorkspace, screenshot, type E2eEnvironment } from './support/e2eEnvironment';
import { currentPage } from './support/hooks';
import { eventually, startTask } from './support/scenario';
import { waitForNotification } from './support/workbench';

// A rate-limited request waits what the endpoint asks before its retry (docs/design.md, "LLM
// requests: retries and failover"); the panel's header counts the wait down, so the run does not
// look stuck, and the countdown goes when the retry is done.

const WAIT_SECONDS = 8;

describe('e2e: a rate-limit wait in the panel', function () {
  let env: E2eEnvironment;
  before(async () => {
    env = await e2eEnvironment();
  });

  it('a 429 with Retry-After shows a countdown in the run header that goes down and is gone after the retry', async () => {
    let executorCalls = 0;
    env.server.setHandler(
      route({
        planner: json({ title: 'Slow endpoint', steps: ['Say hello'], dependencies: {} }),
        executor: () =>
          executorCalls++ === 0 ? error(429, 'Rate limit reached for requests', { headers: { 'retry-after': String(WAIT_SECONDS) } }) : message('hello'),
        aggregator: message('Said hello after the wait.'),
      }),
    );
    const workspace = newWorkspace(env, 'rate-limit');
    // The e2e settings turn retries off; this scenario needs them.
    const page = (currentPage.page = await openWorkspace(env, workspace, { 'cortex.llm.maxRetries': 2 }));
    await startTask(page, 'Say hello');
    const panel = await cortexPanel(page);
    const banner = panel.frame.locator('.rate-limit-wait');
    await banner.waitFor({ state: 'visible', timeout: 30_000 });
    const secondsShown = async () => {
      const text = await banner.innerText();
      const found = /^Rate limited by the endpoint: retrying in (\d+) s \(retry 1 of 2\)$/.exec(text.trim());
      assert.ok(found, `banner text: ${JSON.stringify(text)}`);
      return Number(found[1]);
    };
    const first = await secondsShown();
    assert.ok(first <= WAIT_SECONDS && first >= WAIT_SECONDS - 4, `starts near ${WAIT_SECONDS} s: ${first}`);
    await screenshot(page, 'e2e-rate-limit-countdown');
    await eventually(
      page,
      async () => (await banner.isVisible()) && (await secondsShown()) <= first - 2,
      async () => `the countdown did not go down from ${first} s (now ${await banner.innerText().catch(() => 'gone')})`,
      15_000,
    );
    await waitForNotification(page, /Cortex finished: Said hello after the wait\./, 60_000);
    await banner.waitFor({ state: 'hidden', timeout: 5_000 });
    assert.equal(executorCalls, 2, 'one refused request and its retry');
  });
});
