import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { call, message, json, route, toolCalls } from '../support/scriptedReplies';
import { cortexPanel, e2eEnvironment, newWorkspace, openWorkspace, screenshot, type E2eEnvironment } from './support/e2eEnvironment';
import { currentPage } from './support/hooks';
import { eventually, startTask, stepOf } from './support/scenario';
import { editorTab, isWebviewFocused, waitForNotification } from './support/workbench';

// Every change reviewable and reversible, in real VS Code (docs/design.md, “Checkpoints and revert”): a run writes two
// files; the step's details list them with their line counts; a click opens VS Code's diff
// editor over the saved contents without taking the focus from the panel; "Revert step" says
// what it will restore, asks (modal), and puts the disk back as it was.

const STEP = 'Update the notes and write a todo list';

describe('e2e: checkpoints — review and revert a step', function () {
  let env: E2eEnvironment;
  before(async () => {
    env = await e2eEnvironment();
  });

  it('shows the changed files and their diff, and Revert step restores the disk', async () => {
    env.server.setHandler(
      route({
        planner: json({ title: 'Notes', steps: [STEP], dependencies: {} }),
        executor: (req) => {
          if (stepOf(req) !== STEP) throw new Error(`unexpected step ${stepOf(req)}`);
          if (JSON.stringify(req.body.messages).includes('"role":"tool"')) return message('notes updated, todo written');
          return toolCalls(
            call('write_file', { path: 'notes.txt', content: 'line one\nline two, revised\n' }),
            call('write_file', { path: 'todo.txt', content: 'buy milk\nwrite tests\n' }),
          );
        },
        aggregator: message('Updated notes.txt and wrote todo.txt.'),
      }),
    );
    const workspace = newWorkspace(env, 'checkpoints', { 'notes.txt': 'line one\nline two\n' });
    const page = (currentPage.page = await openWorkspace(env, workspace));
    await startTask(page, 'Update my notes and add a todo list');
    const panel = await cortexPanel(page);
    await panel.waitForStatus(STEP, 'completed');
    await waitForNotification(page, /Cortex finished/, 60_000);
    assert.equal(readFileSync(join(workspace, 'notes.txt'), 'utf8'), 'line one\nline two, revised\n');

    // The step's details list what it changed, with line counts.
    await panel.node(STEP).click();
    const details = panel.frame.locator('aside.details');
    const changes = details.locator('.details-changes');
    await changes.locator('.change-list').waitFor({ state: 'visible' });
    await eventually(
      page,
      async () => (await changes.locator('.change').count()) === 2,
      async () => `changes section: ${await changes.innerText().catch(() => '?')}`,
    );
    const rows = await changes.locator('.change').allInnerTexts();
    assert.ok(
      rows.some((row) => /modified\s+notes\.txt\s+\+1 -1/i.test(row)),
      JSON.stringify(rows),
    );
    assert.ok(
      rows.some((row) => /new\s+todo\.txt\s+\+2 -0/i.test(row)),
      JSON.stringify(rows),
    );
    await screenshot(page, 'e2e-checkpoints-details');

    // A click opens VS Code's diff editor (before ↔ after) and the panel keeps the focus.
    await changes.getByRole('button', { name: 'Open the diff of notes.txt' }).click();
    const tab = editorTab(page, /notes\.txt \(step s1\)/);
    await tab.waitFor({ state: 'visible', timeout: 30_000 });
    const diff = page.locator('.monaco-diff-editor').first();
    await diff.waitFor({ state: 'visible' });
    await eventually(
      page,
      async () => {
        // The editor renders spaces as no-break spaces.
        const text = (await diff.innerText().catch(() => '')).replace(/\u00a0/g, ' ');
        return text.includes('line two, revised') && text.includes('line two');
      },
      async () => `diff editor shows: ${(await diff.innerText().catch(() => '?')).slice(0, 500)}`,
    );
    assert.equal(await isWebviewFocused(page), true, 'the panel kept the focus');
    await screenshot(page, 'e2e-checkpoints-diff');

    // Revert step: the modal says what it will do; after Revert the disk is as before the run.
    await changes.getByRole('button', { name: `Revert the changes of step s1 and the steps after it` }).click();
    const dialog = page.locator('.monaco-dialog-box');
    await dialog.waitFor({ state: 'visible', timeout: 30_000 });
    const dialogText = await dialog.innerText();
    assert.match(dialogText, /Revert the changes of step s1\?/);
    assert.match(dialogText, /restore notes\.txt/);
    assert.match(dialogText, /remove todo\.txt/);
    await screenshot(page, 'e2e-checkpoints-revert-dialog');
    await dialog.getByRole('button', { name: 'Revert', exact: true }).click();
    await waitForNotification(page, /Reverted step s1: 2 paths put back/, 30_000);
    assert.equal(readFileSync(join(workspace, 'notes.txt'), 'utf8'), 'line one\nline two\n');
    assert.equal(existsSync(join(workspace, 'todo.txt')), false);
    // The details mark both changes as reverted.
    await eventually(
      page,
      async () => (await changes.locator('.change-reverted').count()) === 2,
      async () => `changes section after the revert: ${await changes.innerText().catch(() => '?')}`,
    );
    await screenshot(page, 'e2e-checkpoints-reverted');
  });
});
