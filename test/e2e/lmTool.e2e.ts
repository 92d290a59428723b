import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { call, json, message, route, toolCalls, toolMessages } from '../support/scriptedReplies';
import { cortexPanel, e2eEnvironment, newWorkspace, openWorkspace, screenshot, type E2eEnvironment } from './support/e2eEnvironment';
import { currentPage } from './support/hooks';
import { installFixtureExtension } from './support/fixtureExtension';
import { eventually } from './support/scenario';
import { runCommand } from './support/workbench';

// Cortex as a tool of other agents, in real VS Code (docs/design.md, “Cortex as a tool of other
// agents”): a test-only extension (test/e2e/fixtures/lm-tool-caller) calls cortex_runVerifiedPlan
// through vscode.lm.invokeTool, as Copilot's agent mode does; VS Code asks the person with Cortex's
// confirmation, the run goes on in Cortex's panel against the scripted endpoint, and the caller gets
// the compact report back.

const STEP = 'Write notes.txt with two lines';

describe('e2e: Cortex as a language model tool', function () {
  let env: E2eEnvironment;
  before(async () => {
    env = await e2eEnvironment();
    await installFixtureExtension('lm-tool-caller', env.home);
  });

  it('is registered; invokeTool asks first, runs a scripted plan in the panel and returns the report', async () => {
    env.server.setHandler(
      route({
        planner: json({ title: 'Notes', steps: [{ description: STEP, expects: [{ changed: 'notes.txt' }] }], dependencies: {} }),
        executor: (req) =>
          toolMessages(req).length ? message('notes.txt written') : toolCalls(call('write_file', { path: 'notes.txt', content: 'one\ntwo\n' })),
        aggregator: message('Wrote notes.txt.'),
      }),
    );
    const workspace = newWorkspace(env, 'lm-tool');
    const resultFile = join(env.home, `lm-tool-result-${Date.now()}.json`);
    const checkFile = join(env.home, `lm-check-result-${Date.now()}.json`);
    const page = (currentPage.page = await openWorkspace(env, workspace, {
      'chat.disableAIFeatures': false,
      // The run, then cortex_checkRun on the newest run of the workspace once the run has ended.
      'cortexE2e.call': [
        { tool: 'cortex_runVerifiedPlan', input: { task: 'Write the notes file', scope: 'notes.txt' }, resultFile },
        { tool: 'cortex_checkRun', input: {}, resultFile: checkFile },
      ],
    }));
    const read = () => (existsSync(resultFile) ? (JSON.parse(readFileSync(resultFile, 'utf8')) as Record<string, any>) : undefined);
    await runCommand(page, 'Cortex e2e: invoke language model tool');

    // VS Code asks with the tool's confirmation (a dialog, the call coming from outside a chat).
    const dialog = page.locator('.monaco-dialog-box');
    await dialog.waitFor({ state: 'visible', timeout: 60_000 });
    const dialogText = await dialog.innerText();
    assert.match(dialogText, /Run a verified Cortex plan\?/);
    assert.match(dialogText, /Cortex will plan “Write the notes file” within notes\.txt as checked steps in lm-tool-/);
    await screenshot(page, 'e2e-lm-tool-confirmation');
    const registered = read();
    assert.ok(registered, 'the caller wrote the tools it saw');
    const tool = registered.tools.find((t: { name: string }) => t.name === 'cortex_runVerifiedPlan');
    assert.ok(tool, `cortex_runVerifiedPlan is registered: ${registered.tools.map((t: { name: string }) => t.name).join(', ')}`);
    assert.deepEqual(tool.inputSchema.required, ['task']);
    await dialog
      .getByRole('button', { name: /^(Yes|OK|Confirm|Continue|Allow)$/ })
      .first()
      .click();

    // The run is Cortex's own: its panel shows the plan.
    const panel = await cortexPanel(page);
    await panel.waitForStatus(STEP, 'completed');
    await eventually(
      page,
      () => read()?.state === 'done' || read()?.state === 'error',
      () => `tool result: ${JSON.stringify(read())}`,
      90_000,
    );
    const outcome = read()!;
    assert.equal(outcome.state, 'done', outcome.error);
    const text = outcome.text as string;
    assert.match(text, /^Cortex run run-\S+ completed: 1 step\(s\) in the final plan; proof: 1 verified, 0 unverified, 0 failed\./);
    assert.match(text, /\n- s1 \[verified\] Write notes\.txt with two lines\n {2}evidence: 2\/2 checks passed — changed notes\.txt/);
    assert.match(text, /\nChanged files: notes\.txt \(created \+2 -0\)\n/);
    assert.match(text, /\nAnswer: Wrote notes\.txt\.\n/);
    assert.match(text, /\nTrace: \S+\.jsonl \(its panel is open in VS Code/);
    assert.equal(readFileSync(join(workspace, 'notes.txt'), 'utf8'), 'one\ntwo\n');
    // The scope reached the planner as part of the task.
    const planner = env.server.requests.filter((r) => r.purpose === 'planner').at(-1)!;
    assert.match(JSON.stringify(planner.body), /Scope: keep the work within notes\.txt/);
    await screenshot(page, 'e2e-lm-tool-done');

    // cortex_checkRun reports the same run from its trace, asking nothing first.
    const readCheck = () => (existsSync(checkFile) ? (JSON.parse(readFileSync(checkFile, 'utf8')) as Record<string, any>) : undefined);
    await eventually(
      page,
      () => readCheck()?.state === 'done' || readCheck()?.state === 'error',
      () => `check result: ${JSON.stringify(readCheck())}`,
      30_000,
    );
    const check = readCheck()!;
    assert.equal(check.state, 'done', check.error);
    const runId = /^Cortex run (run-\S+) completed/.exec(text)![1];
    assert.match(check.text, new RegExp(`^Cortex run ${runId} completed: 1 step\\(s\\) in the final plan; proof: 1 verified, 0 unverified, 0 failed\\.`));
    assert.match(check.text, /\n- s1 \[verified\] Write notes\.txt with two lines\n/);
    assert.ok(check.tools.some((t: { name: string }) => t.name === 'cortex_checkRun'));
  });
});
