import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { RunEvent } from '../../src/core/plan/events';
import { call, json, message, route, toolCalls, toolMessages } from '../support/scriptedReplies';
import type { ScriptedRequest } from '../support/scriptedServer';
import { cortexPanel, e2eEnvironment, newWorkspace, openWorkspace, screenshot, type E2eEnvironment } from './support/e2eEnvironment';
import { currentPage } from './support/hooks';
import { panelShot, setPanelWidth } from './support/panelShots';
import { eventually, startTask, stepOf } from './support/scenario';

// In the real workbench (docs/design.md, “Step scopes and plan approval”): with cortex.approval.mode
// "plan" the run waits for the plan in the panel, with each step's scope and checks; Approve plan
// (by keyboard); an in-scope command then runs without a prompt; a drifted write asks on its node,
// and the node shows the drift badge and the header the drift count.

const answered = (req: ScriptedRequest) => toolMessages(req).length > 0;
const TEST_STEP = 'Run the tests with node run-tests.js';
const WRITE_STEP = 'Write src/date.js exporting parseDate';

function traceEvents(env: E2eEnvironment, task: string): RunEvent[] {
  const runsDir = join(env.codeServer.userDataDir, 'User', 'globalStorage', 'cortex-dev.cortex-agent', 'runs');
  const file = readdirSync(runsDir)
    .filter((name) => name.endsWith('.jsonl'))
    .map((name) => join(runsDir, name))
    .find((path) => readFileSync(path, 'utf8').split('\n', 1)[0].includes(JSON.stringify(task)));
  assert.ok(file, `no trace of "${task}" in ${runsDir}`);
  const text = readFileSync(file, 'utf8');
  return text
    .slice(0, text.lastIndexOf('\n') + 1)
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as RunEvent);
}

describe('e2e: approving the plan once', function () {
  let env: E2eEnvironment;
  before(async () => {
    env = await e2eEnvironment();
  });

  it('Approve plan, an in-scope command runs without a prompt, a drifted write asks and shows the drift badge', async () => {
    env.server.setHandler(
      route({
        planner: json({
          title: 'Dates',
          steps: [
            { description: TEST_STEP, scope: { write: ['ran.txt'], commands: ['node run-tests.js'] }, expects: [{ command: 'node run-tests.js', exit: 0 }] },
            { description: WRITE_STEP, scope: { write: ['src/**'] }, expects: [{ changed: 'src/date.js' }] },
          ],
          dependencies: { 1: [0] },
        }),
        executor: (req) => {
          const step = stepOf(req);
          if (step === TEST_STEP) return answered(req) ? message('The tests pass.') : toolCalls(call('run_command', { command: 'node run-tests.js' }));
          if (step === WRITE_STEP)
            return answered(req)
              ? message('Wrote src/date.js.')
              : toolCalls(
                  call('write_file', { path: 'src/date.js', content: 'exports.parseDate = (s) => new Date(s);\n' }),
                  call('write_file', { path: 'lib/drift.js', content: 'outside the plan\n' }),
                );
          throw new Error(`unexpected step ${step}`);
        },
        aggregator: message('Done.'),
      }),
    );
    const workspace = newWorkspace(env, 'plan-approval', { 'run-tests.js': "require('fs').writeFileSync('ran.txt', 'ran');\n" });
    // The theme follows the browser's colour scheme, for the list's screenshots in both themes.
    const page = (currentPage.page = await openWorkspace(env, workspace, {
      'cortex.approval.mode': 'plan',
      'window.autoDetectColorScheme': true,
      'workbench.preferredDarkColorTheme': 'Default Dark Modern',
      'workbench.preferredLightColorTheme': 'Default Light Modern',
    }));
    const task = 'Add parseDate with the plan approved once';
    await startTask(page, task);
    const panel = await cortexPanel(page);

    // The plan waits in the panel, with each step's scope and checks; nothing has run.
    const card = panel.frame.locator('.plan-approval');
    await card.waitFor({ state: 'visible', timeout: 60_000 });
    const text = (await card.textContent()) ?? '';
    for (const expected of ['Approve the plan: Dates', TEST_STEP, 'node run-tests.js', WRITE_STEP, 'src/**', 'changed src/date.js'])
      assert.ok(text.includes(expected), `the plan card shows ${expected}: ${text}`);
    assert.equal(existsSync(join(workspace, 'ran.txt')), false, 'nothing runs before the plan is approved');
    await screenshot(page, 'e2e-plan-approval');

    // Approve plan with the keyboard.
    const approve = card.getByRole('button', { name: 'Approve the plan' });
    await approve.focus();
    await page.keyboard.press('Enter');
    await card.waitFor({ state: 'hidden', timeout: 30_000 });

    // The in-scope command (and its check) ran without a prompt.
    await panel.waitForStatus(TEST_STEP, 'completed');
    assert.equal(readFileSync(join(workspace, 'ran.txt'), 'utf8'), 'ran');

    // The drifted write asks on its node, with the drift badge; the header counts it.
    const node = panel.node(WRITE_STEP);
    const deny = node.getByRole('button', { name: /^Deny write_file/ });
    await deny.waitFor({ state: 'visible', timeout: 60_000 });
    await node.locator('.drift-badge').waitFor({ state: 'visible', timeout: 10_000 });
    assert.match((await panel.frame.locator('.run-drift').textContent()) ?? '', /1 drift/);
    // Its details show the step's scope and the drift.
    await node.locator('.node-desc').click();
    const details = panel.frame.locator('aside.details');
    await eventually(
      page,
      async () => /Drift \(1\)[\s\S]*writes lib\/drift\.js/i.test(await details.innerText()),
      async () => `details: ${await details.innerText().catch(() => '?')}`,
    );
    assert.match(await details.innerText(), /Scope\s+Writes\s+src\/\*\*/i);
    await screenshot(page, 'e2e-plan-drift');
    // The list view shows the same badge on the step's row.
    await panel.frame.locator('.view-tab', { hasText: 'List' }).click();
    const row = panel.frame.locator('.plan-row', { hasText: WRITE_STEP });
    await row.locator('.drift-badge').waitFor({ state: 'visible', timeout: 10_000 });
    assert.match((await row.locator('.drift-badge').getAttribute('aria-label')) ?? '', /drift: 1 call or change outside the step's approved scope/);
    await screenshot(page, 'e2e-plan-drift-list');
    // The row with its badge at the widths a panel really gets, dark and light.
    const viewport = page.viewportSize();
    for (const theme of ['dark', 'light'] as const) {
      await page.emulateMedia({ colorScheme: theme });
      await panel.frame.waitForFunction((t) => document.body.classList.contains(`vscode-${t}`), theme, { timeout: 30_000 });
      for (const width of [460, 1280]) {
        await setPanelWidth(page, panel.frame, width);
        await row.locator('.drift-badge').waitFor({ state: 'visible', timeout: 10_000 });
        await panelShot(page, `panel-drift-list-${width}-${theme}`);
      }
    }
    if (viewport) await page.setViewportSize(viewport);
    await panel.frame.locator('.view-tab', { hasText: 'Graph' }).click();
    await deny.click();
    await panel.waitForStatus(WRITE_STEP, 'completed');
    assert.equal(existsSync(join(workspace, 'lib', 'drift.js')), false, 'the drifted write did not run');
    assert.ok(existsSync(join(workspace, 'src', 'date.js')), 'the in-scope write ran without a prompt');

    let events: RunEvent[] = [];
    await eventually(
      page,
      () => (events = traceEvents(env, task)).some((e) => e.type === 'run_finished'),
      () => 'the run did not finish',
    );
    const asked = events.filter((e): e is Extract<RunEvent, { type: 'tool_call_awaiting_approval' }> => e.type === 'tool_call_awaiting_approval');
    assert.equal(asked.length, 1, 'one prompt: the drift');
    const answer = events.find((e): e is Extract<RunEvent, { type: 'plan_approval_answered' }> => e.type === 'plan_approval_answered');
    assert.deepEqual([answer?.approved, answer?.source], [true, 'panel']);
  });
});
