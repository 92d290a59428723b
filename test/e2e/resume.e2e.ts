import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import type { RunEvent } from '../../src/core/plan/events';
import { readTraceSync } from '../support/traceFile';
import { call, message, json, route, toolCalls, toolMessages } from '../support/scriptedReplies';
import type { ScriptedServer } from '../support/scriptedServer';
import { cortexPanel, e2eEnvironment, newWorkspace, openWorkspace, screenshot, type E2eEnvironment, type PanelHandle } from './support/e2eEnvironment';
import { currentPage } from './support/hooks';
import { eventually, startTask } from './support/scenario';
import { openQuickPick, pickQuickItem, runCommand, waitForNotification } from './support/workbench';

// Runs survive a reload (docs/design.md, “Resuming a run”): the window is reloaded while a step's request hangs;
// the restored panel reads "Interrupted" and offers Resume, which continues the run from its trace
// without running the completed step again. "Cortex: Resume run…" does the same from the palette.

const STEPS = ['Write first.txt', 'Write second.txt after first.txt'];
const ANSWER = 'Both files are written.';

/** Step 1 writes first.txt; step 2 writes second.txt, its requests held open while `control.hang`. */
function script(control: { hang: boolean }) {
  return route({
    planner: json({ title: 'Two files', steps: STEPS, dependencies: { '1': [0] } }),
    executor: (req) => {
      const done = toolMessages(req).length > 0;
      if (req.stepId === 's1') return done ? message('first.txt written') : toolCalls(call('write_file', { path: 'first.txt', content: 'first\n' }));
      if (control.hang) return { kind: 'hang' };
      return done ? message('second.txt written') : toolCalls(call('write_file', { path: 'second.txt', content: 'second\n' }));
    },
    aggregator: message(ANSWER),
  });
}

/** The run's trace under the extension's global storage (newest first when several). */
function traceOf(env: E2eEnvironment, task: string): string {
  const runs = join(env.codeServer.userDataDir, 'User', 'globalStorage', 'cortex-dev.cortex-agent', 'runs');
  const files = readdirSync(runs)
    .filter((name) => name.endsWith('.jsonl'))
    .map((name) => join(runs, name))
    .filter((file) => readFileSync(file, 'utf8').includes(JSON.stringify(task)))
    .sort((a, b) => statSync(b).mtimeMs - statSync(a).mtimeMs);
  assert.ok(files[0], `no trace of "${task}" in ${runs}`);
  return files[0];
}

async function headerStatus(panel: PanelHandle): Promise<string> {
  return (
    await panel.frame
      .locator('.run-status-text')
      .innerText()
      .catch(() => '?')
  ).trim();
}

/** Starts the task and waits until step 1 completed and step 2's request hangs. */
async function runUntilHanging(env: E2eEnvironment, page: Page, task: string): Promise<PanelHandle> {
  const before = env.server.chatRequests().length;
  await startTask(page, task);
  const panel = await cortexPanel(page);
  await panel.waitForStatus(STEPS[0], 'completed');
  await panel.waitForStatus(STEPS[1], 'in_progress');
  await eventually(
    page,
    () =>
      env.server
        .chatRequests()
        .slice(before)
        .some((r) => r.purpose === 'executor' && r.stepId === 's2'),
    () => 'step 2 never asked the model',
  );
  return panel;
}

async function reload(page: Page): Promise<void> {
  // The command, not a raw page reload: VS Code web flushes its state first (see runTask.e2e.ts).
  await Promise.all([page.waitForEvent('load', { timeout: 60_000 }), runCommand(page, 'Developer: Reload Window')]);
  await page.locator('.monaco-workbench').waitFor({ state: 'visible', timeout: 60_000 });
}

/** After the resume: the run completed, the completed step made no request, the trace is whole. */
async function assertResumed(env: E2eEnvironment, page: Page, server: ScriptedServer, workspace: string, task: string, mark: number): Promise<void> {
  await waitForNotification(page, new RegExp(`Cortex finished: ${ANSWER.replace(/\./g, '\\.')}`), 60_000);
  const after = server.chatRequests().slice(mark);
  assert.equal(after.filter((r) => r.stepId === 's1').length, 0, 'the completed step made no new request');
  assert.equal(after.filter((r) => r.purpose === 'planner').length, 0, 'the plan was not made again');
  assert.ok(
    after.some((r) => r.stepId === 's2'),
    'step 2 ran again',
  );
  assert.equal(readFileSync(join(workspace, 'first.txt'), 'utf8'), 'first\n');
  assert.equal(readFileSync(join(workspace, 'second.txt'), 'utf8'), 'second\n');
  const trace = traceOf(env, task);
  const { events, warnings } = readTraceSync(trace);
  assert.deepEqual(warnings, []);
  assert.deepEqual(
    events.map((e) => e.seq),
    events.map((_, i) => i),
  );
  assert.equal(events.filter((e) => e.type === 'run_finished').length, 1);
  assert.equal((events.at(-1) as Extract<RunEvent, { type: 'run_finished' }>).status, 'completed');
  const resumed = events.filter((e): e is Extract<RunEvent, { type: 'run_resumed' }> => e.type === 'run_resumed');
  assert.equal(resumed.length, 1);
  assert.deepEqual(resumed[0].restartedStepIds, ['s2']);
  assert.equal(existsSync(`${trace}.lock`), false, 'the lock is released');
}

describe('e2e: resume an interrupted run', function () {
  let env: E2eEnvironment;
  before(async () => {
    env = await e2eEnvironment();
  });

  it('a reload mid-run leaves the panel Interrupted with Resume; Resume completes the run without repeating the completed step', async () => {
    const control = { hang: true };
    env.server.setHandler(script(control));
    const task = 'Write two files, then stop halfway';
    const workspace = newWorkspace(env, 'resume-panel');
    const page = (currentPage.page = await openWorkspace(env, workspace));
    await runUntilHanging(env, page, task);

    await reload(page);
    const restored = await cortexPanel(page);
    await restored.waitForStatus(STEPS[0], 'completed');
    await eventually(
      page,
      async () => (await headerStatus(restored)) === 'Interrupted',
      async () => `the header says "${await headerStatus(restored)}"`,
      60_000,
    );
    const resume = restored.frame.getByRole('button', { name: 'Resume the interrupted run' });
    await resume.waitFor({ state: 'visible', timeout: 30_000 });
    // The step that was under way stands still: nothing runs until Resume.
    const glyphAnimation = () =>
      restored.frame
        .locator(`.node.status-in_progress .node-glyph`)
        .first()
        .evaluate((glyph) => getComputedStyle(glyph).animationName);
    assert.equal(await glyphAnimation(), 'none', 'the interrupted step does not spin');
    await screenshot(page, 'e2e-resume-interrupted');

    control.hang = false;
    const mark = env.server.chatRequests().length;
    await resume.click();
    const live = await cortexPanel(page);
    await live.waitForStatus(STEPS[1], 'completed');
    await eventually(
      page,
      async () => (await headerStatus(live)) === 'Completed',
      async () => `the header says "${await headerStatus(live)}"`,
      60_000,
    );
    await screenshot(page, 'e2e-resume-completed');
    await assertResumed(env, page, env.server, workspace, task, mark);
    env.server.assertNoRejections();
  });

  it('"Cortex: Resume run…" lists the interrupted run of this workspace and resumes it', async () => {
    const control = { hang: true };
    env.server.setHandler(script(control));
    const task = 'Write two files, resumed from the palette';
    const workspace = newWorkspace(env, 'resume-command');
    const page = (currentPage.page = await openWorkspace(env, workspace));
    await runUntilHanging(env, page, task);
    await reload(page);

    control.hang = false;
    const mark = env.server.chatRequests().length;
    await openQuickPick(page, 'Cortex: Resume run…', task);
    assert.match(await pickQuickItem(page, task), /interrupted/);
    await assertResumed(env, page, env.server, workspace, task, mark);
  });
});
