import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { call, json, message, route, toolCalls } from '../support/scriptedReplies';
import { cortexPanel, e2eEnvironment, newWorkspace, openWorkspace, screenshot, type E2eEnvironment } from './support/e2eEnvironment';
import { currentPage } from './support/hooks';
import { eventually, startTask, stepOf } from './support/scenario';
import {
  answerInput,
  clickNotificationButton,
  findInPalette,
  findPanelFrame,
  openQuickPick,
  pickQuickItem,
  runCommand,
  waitForNotification,
} from './support/workbench';

// Running a task as a person sees it: the command palette runs a task, the panel shows the live plan, the
// files the (scripted) model wrote are on disk, and the panel survives a window reload.

const TASK = 'Create greeting files hello.txt and bye.txt';
const STEPS = ['Write hello.txt with a greeting', 'Write bye.txt that mentions hello.txt'];

describe('e2e: run a task from the command palette', function () {
  let env: E2eEnvironment;
  before(async () => {
    env = await e2eEnvironment();
  });

  it('lists every Cortex command in the palette', async () => {
    const workspace = newWorkspace(env, 'palette');
    const page = (currentPage.page = await openWorkspace(env, workspace));
    for (const title of [
      'Cortex: Run agent task',
      'Cortex: Set API key',
      'Cortex: Clear API key',
      'Cortex: Open run trace…',
      'Cortex: Show plan panel',
      'Cortex: Cancel run',
    ]) {
      await findInPalette(page, title);
    }
    await page.keyboard.press('Escape');
  });

  it('plans, executes and shows the steps live; the files land in the workspace', async () => {
    env.server.setHandler(
      route({
        planner: json({ title: 'Greeting files', steps: STEPS, dependencies: { '1': [0] } }),
        executor: (req) => {
          const step = stepOf(req);
          const done = JSON.stringify(req.body.messages).includes('"role":"tool"');
          if (step === STEPS[0])
            return done ? message('hello.txt written') : toolCalls(call('write_file', { path: 'hello.txt', content: 'hello from cortex\n' }));
          if (step === STEPS[1])
            return done
              ? message('bye.txt written')
              : { ...toolCalls(call('write_file', { path: 'bye.txt', content: 'bye (see hello.txt)\n' })), delayMs: 800 };
          throw new Error(`unexpected step ${step}`);
        },
        aggregator: message('Wrote hello.txt and bye.txt.'),
      }),
    );
    const before = env.server.chatRequests().length;
    const workspace = newWorkspace(env, 'greetings', { 'AGENTS.md': 'Greet politely.\n' });
    const page = (currentPage.page = await openWorkspace(env, workspace));
    // The panel's strict CSP (nonce script, no inline, no eval) must not block anything it needs.
    const cspViolations: string[] = [];
    page.on('console', (entry) => {
      if (/Content Security Policy|Refused to (load|execute|apply|evaluate)/i.test(entry.text())) cspViolations.push(entry.text());
    });
    await startTask(page, TASK);

    const panel = await cortexPanel(page);
    for (const step of STEPS) await panel.node(step).waitFor({ state: 'visible', timeout: 60_000 });
    await panel.waitForStatus(STEPS[0], 'completed');
    await panel.waitForStatus(STEPS[1], 'completed');
    await waitForNotification(page, /Cortex finished: Wrote hello\.txt and bye\.txt\./, 60_000);
    await screenshot(page, 'e2e-panel');
    assert.deepEqual(cspViolations, [], 'no CSP violations in the workbench or the panel');
    // The run's details (no step selected) name the project instructions it used.
    assert.match(await panel.frame.locator('.details').innerText(), /Project instructions\s+AGENTS\.md \(16 B\)/i);

    assert.equal(readFileSync(join(workspace, 'hello.txt'), 'utf8'), 'hello from cortex\n');
    assert.equal(readFileSync(join(workspace, 'bye.txt'), 'utf8'), 'bye (see hello.txt)\n');
    const planner = env.server
      .chatRequests()
      .slice(before)
      .find((r) => r.purpose === 'planner');
    assert.ok(planner, 'the planner was asked');
    assert.match(JSON.stringify(planner.body.messages), new RegExp(TASK), 'the task reaches the planner (after the project instructions)');
    env.server.assertNoRejections();

    // The panel is restored after "Developer: Reload Window" from the run's trace file (serializer +
    // saved state). A raw page reload can lose VS Code web's last storage flush; the command does not.
    await Promise.all([page.waitForEvent('load', { timeout: 60_000 }), runCommand(page, 'Developer: Reload Window')]);
    await page.locator('.monaco-workbench').waitFor({ state: 'visible', timeout: 60_000 });
    const restored = await cortexPanel(page);
    await restored.waitForStatus(STEPS[0], 'completed', 60_000);
    await restored.waitForStatus(STEPS[1], 'completed', 60_000);
    await screenshot(page, 'e2e-panel-restored');

    // "Open run trace…" lists the run; picking it opens (reveals) its panel.
    await openQuickPick(page, 'Cortex: Open run trace…', TASK);
    await pickQuickItem(page, TASK);
    const frame = await findPanelFrame(page);
    assert.match(await frame.locator('body').innerText(), /Write hello\.txt with a greeting/);
  });

  it('reports invalid settings with an Open Settings button and does not start', async () => {
    const workspace = newWorkspace(env, 'bad-settings');
    const page = (currentPage.page = await openWorkspace(env, workspace, { 'cortex.llm.maxRetries': -1 }));
    const before = env.server.chatRequests().length;
    // The task is asked first (nothing may take the keyboard from its box), then the settings are read.
    await startTask(page, 'Say hello');
    await waitForNotification(page, /Cortex settings are invalid: cortex\.llm\.maxRetries/);
    await screenshot(page, 'e2e-invalid-settings');
    await clickNotificationButton(page, /Cortex settings are invalid/, 'Open Settings');
    await page.locator('.settings-editor').waitFor({ state: 'visible' });
    assert.equal(env.server.chatRequests().length, before, 'nothing was sent to the model');
    // The task that did not start is offered again by the next box.
    await runCommand(page, 'Cortex: Run agent task');
    await page.locator('.quick-input-widget .quick-input-title', { hasText: 'Cortex: Run agent task' }).waitFor({ state: 'visible' });
    assert.equal(await page.locator('.quick-input-widget .quick-input-box input').inputValue(), 'Say hello');
  });

  it('refuses an empty task in the input box', async () => {
    const workspace = newWorkspace(env, 'empty-task');
    const page = (currentPage.page = await openWorkspace(env, workspace));
    await runCommand(page, 'Cortex: Run agent task');
    await answerInput(page, '   ', 'Cortex: Run agent task');
    await eventually(
      page,
      async () =>
        /Describe the task for the agent/.test(
          await page
            .locator('.quick-input-widget')
            .innerText()
            .catch(() => ''),
        ),
      async () =>
        `no validation message; quick input says ${await page
          .locator('.quick-input-widget')
          .innerText()
          .catch(() => '?')}`,
    );
    await page.keyboard.press('Escape');
    assert.equal(existsSync(join(workspace, 'hello.txt')), false);
  });
});
