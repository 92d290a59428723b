import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { call, message, route, toolCalls } from '../support/scriptedReplies';
import { cortexPanel, e2eEnvironment, newWorkspace, openWorkspace, screenshot, type E2eEnvironment } from './support/e2eEnvironment';
import { currentPage } from './support/hooks';
import { startTask, stepOf } from './support/scenario';
import { waitForNotification } from './support/workbench';

// Streamed planning in real VS Code (docs/design.md, “The planner”): while a slow planner is still
// writing its plan, the panel already shows the first step, which runs and completes before the
// last step's entry has even arrived.

const FIRST = 'Write first.txt with one line';
const SECOND = 'Write second.txt after first.txt';
const LAST = 'Summarise the two files for the user';

describe('e2e: a plan that streams', function () {
  let env: E2eEnvironment;
  before(async () => {
    env = await e2eEnvironment();
  });

  it('shows and runs the first step while the rest of the plan is still being written', async () => {
    const plan = {
      title: 'Streamed files',
      steps: [
        { description: FIRST, dependsOn: [], expects: [{ changed: 'first.txt' }] },
        { description: SECOND, dependsOn: [0], expects: [{ changed: 'second.txt' }] },
        { description: LAST, dependsOn: [0, 1], expects: [] },
      ],
    };
    env.server.setHandler(
      route({
        // About 60 fragments 150 ms apart: the last entry arrives some 6 s after the first.
        planner: { kind: 'message', content: JSON.stringify(plan), fragmentSize: 6, chunkDelayMs: 150 },
        executor: (req) => {
          const step = stepOf(req);
          const done = JSON.stringify(req.body.messages).includes('"role":"tool"');
          if (step === FIRST) return done ? message('first.txt written') : toolCalls(call('write_file', { path: 'first.txt', content: 'one\n' }));
          if (step === SECOND) return done ? message('second.txt written') : toolCalls(call('write_file', { path: 'second.txt', content: 'two\n' }));
          if (step === LAST) return message('Two files were written.');
          throw new Error(`unexpected step ${step}`);
        },
        aggregator: message('Wrote first.txt and second.txt.'),
      }),
    );
    const workspace = newWorkspace(env, 'plan-stream');
    const page = (currentPage.page = await openWorkspace(env, workspace));
    await startTask(page, 'Write two files while the plan streams');
    const panel = await cortexPanel(page);
    await panel.waitForStatus(FIRST, 'completed');
    // The plan is still streaming: its last step has not arrived yet.
    assert.equal(await panel.node(LAST).count(), 0, 'the last step is not in the panel while the plan still streams');
    assert.match(await panel.frame.locator('body').innerText(), /1\/\d steps so far, plan still arriving/);
    await screenshot(page, 'e2e-plan-stream');
    await panel.node(LAST).waitFor({ state: 'visible', timeout: 60_000 });
    await panel.waitForStatus(LAST, 'completed');
    await waitForNotification(page, /Cortex finished: Wrote first\.txt and second\.txt\./, 60_000);
    assert.match(await panel.frame.locator('body').innerText(), /3\/3 steps(?! so far)/);
    assert.equal(readFileSync(join(workspace, 'second.txt'), 'utf8'), 'two\n');
  });
});
