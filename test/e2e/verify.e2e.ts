import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { call, json, message, route, toolCalls } from '../support/scriptedReplies';
import { cortexPanel, e2eEnvironment, newWorkspace, openWorkspace, screenshot, type E2eEnvironment } from './support/e2eEnvironment';
import { currentPage } from './support/hooks';
import { eventually, startTask, stepOf } from './support/scenario';
import { waitForNotification } from './support/workbench';

// Steps that prove their work, in real VS Code (docs/design.md, “The verifier and how a step
// ends”): a step that claims a file it never wrote fails; its node carries the failed proof badge
// and its details show the failed check with the claim's sentence. A step that did what it says
// is verified.

const FABRICATED = 'Add a unit test for parseDate in test/date.test.js';
const HONEST = 'Write hello.txt with a greeting';
const CLAIM = 'I added test/date.test.js with three cases.';

describe('e2e: a step that claims work it did not do', function () {
  let env: E2eEnvironment;
  before(async () => {
    env = await e2eEnvironment();
  });

  it('shows the failed proof badge, the failed check and the sentence in its details', async () => {
    env.server.setHandler(
      route({
        planner: json({ title: 'Proof', steps: [FABRICATED, { description: HONEST, expects: [{ changed: 'hello.txt' }] }], dependencies: {} }),
        executor: (req) => {
          const step = stepOf(req);
          if (step === FABRICATED) return message(CLAIM);
          if (step !== HONEST) throw new Error(`unexpected step ${step}`);
          if (JSON.stringify(req.body.messages).includes('"role":"tool"')) return message('I created hello.txt.');
          return toolCalls(call('write_file', { path: 'hello.txt', content: 'hello\n' }));
        },
        replanner: json({ action: 'give_up', new_steps: [], new_dependencies: {}, reason: 'the test file was never written' }),
        aggregator: message('One step could not be proven.'),
      }),
    );
    const workspace = newWorkspace(env, 'proof');
    const page = (currentPage.page = await openWorkspace(env, workspace));
    await startTask(page, 'Add a parseDate test and a greeting');
    const panel = await cortexPanel(page);
    await panel.waitForStatus(HONEST, 'completed');
    await panel.waitForStatus(FABRICATED, 'blocked');
    await waitForNotification(page, /Cortex/, 60_000);
    assert.equal(existsSync(join(workspace, 'test', 'date.test.js')), false, 'the claimed file was never written');

    // The nodes' proof badges.
    await panel.node(FABRICATED).locator('.proof-badge.proof-failed').waitFor({ state: 'visible' });
    await panel.node(HONEST).locator('.proof-badge.proof-verified').waitFor({ state: 'visible' });

    // The details: the failed check, marked ✗, with the sentence it quotes.
    await panel.node(FABRICATED).locator('.node-desc').click();
    const verdict = panel.frame.locator('aside.details .details-verdict');
    const failed = verdict.locator('.proof-check-failed');
    await eventually(
      page,
      async () => (await failed.count()) === 1,
      async () => `verdict section: ${await verdict.innerText().catch(() => '?')}`,
    );
    assert.equal(await failed.locator('.proof-claim').innerText(), CLAIM);
    assert.match(await failed.locator('.proof-check-title').innerText(), /Unbacked claim/);
    assert.match(await failed.locator('.proof-check-detail').innerText(), /this step recorded no change of test\/date\.test\.js/);
    assert.match(await verdict.innerText(), /unbacked_claim/);
    await screenshot(page, 'e2e-proof-details');

    // The honest step's details: its check held, with the call that proves it.
    await panel.node(HONEST).locator('.node-desc').click();
    const held = verdict.locator('.proof-check-held');
    await eventually(
      page,
      async () => (await held.count()) === 2,
      async () => `verdict section: ${await verdict.innerText().catch(() => '?')}`,
    );
    assert.match(await held.first().innerText(), /changed hello\.txt/);
    await held
      .first()
      .getByRole('button', { name: /Show call/ })
      .waitFor({ state: 'visible' });
  });
});
