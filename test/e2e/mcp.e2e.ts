import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { call, json, message, route, toolCalls, toolMessages, toolNames } from '../support/scriptedReplies';
import { EVERYTHING_ENTRY } from '../fixtures/mcp/mcpServers';
import { cortexPanel, e2eEnvironment, newWorkspace, openWorkspace, screenshot, type E2eEnvironment } from './support/e2eEnvironment';
import { currentPage } from './support/hooks';
import { eventually, startTask } from './support/scenario';
import { openQuickPick, waitForNotification } from './support/workbench';

// An MCP server from the workspace's .vscode/mcp.json in the real workbench (docs/design.md, “MCP tools”):
// the person is asked (with the command line) before it starts, and once for its input (a
// password, then kept in secret storage); the server gets that value and none of the editor's
// environment; a policy key lets one tool run while the other waits for approval on the node; the
// chip names the server, the details show server, tool, annotations and the raw result, and
// "Cortex: MCP servers" lists it with its tools without asking again. The model's reasoning folds
// under its turn in the tool history, as plain text.

const STEP = 'Add 2 and 3 with the everything server';
/** The model's reasoning of the first turn: markup in it must show as text. */
const FIRST_THOUGHT = 'I will ask <b>everything</b> for the sum.';

describe('e2e: MCP servers', function () {
  let env: E2eEnvironment;
  before(async () => {
    env = await e2eEnvironment();
  });

  it('a workspace .vscode/mcp.json server starts after consent, its tool runs after approval, and the panel names the server', async () => {
    let toolMessage = '';
    let envMessage = '';
    let offered: string[] = [];
    env.server.setHandler(
      route({
        planner: json({ title: 'Sum with MCP', steps: [STEP], dependencies: {} }),
        executor: (req) => {
          const answers = toolMessages(req);
          if (answers.length === 0) {
            offered = toolNames(req);
            return { ...toolCalls(call('everything_get-env'), call('everything_get-sum', { a: 2, b: 3 })), reasoning: FIRST_THOUGHT };
          }
          envMessage = String(answers[0].content);
          toolMessage = String(answers[1].content);
          return message('2 + 3 = 5', { reasoning: 'The server says 5, so the answer is 5.' });
        },
        aggregator: message('The everything server says 2 + 3 = 5.'),
      }),
    );
    const mcpJson = {
      servers: { everything: { type: 'stdio', command: process.execPath, args: [EVERYTHING_ENTRY, 'stdio'], env: { MCP_TOKEN: '${input:token}' } } },
      inputs: [{ type: 'promptString', id: 'token', description: 'Token for the everything server', password: true }],
    };
    const workspace = newWorkspace(env, 'mcp', { '.vscode/mcp.json': JSON.stringify(mcpJson, null, 2) });
    const page = (currentPage.page = await openWorkspace(env, workspace, { 'cortex.policy.tools': { 'mcp:everything/get-env': 'allow' } }));
    await startTask(page, 'Add 2 and 3');

    // The consent dialog names the server, the file and the exact command line.
    const dialog = page.locator('.monaco-dialog-box');
    await dialog.waitFor({ state: 'visible', timeout: 60_000 });
    const dialogText = await dialog.innerText();
    assert.match(dialogText, /Allow the MCP server "everything" from this workspace's \.vscode\/mcp\.json to start\?/);
    assert.ok(dialogText.includes(`It runs: ${process.execPath} ${EVERYTHING_ENTRY} stdio`), dialogText);
    await screenshot(page, 'e2e-mcp-consent');
    await dialog.getByRole('button', { name: 'Allow', exact: true }).click();

    // Its input is asked once, as a password.
    await page.locator('.quick-input-widget .quick-input-title', { hasText: 'Cortex: MCP input "token"' }).waitFor({ state: 'visible', timeout: 30_000 });
    const input = page.locator('.quick-input-widget .quick-input-box input');
    assert.equal(await input.getAttribute('type'), 'password');
    await input.fill('tok-123');
    await input.press('Enter');

    // MCP tools need approval by default: the button is on the node.
    const panel = await cortexPanel(page);
    const approve = panel.node(STEP).getByRole('button', { name: /^Approve everything_get-sum/ });
    await approve.waitFor({ state: 'visible', timeout: 60_000 });
    await screenshot(page, 'e2e-mcp-approval');
    await approve.click();
    await panel.waitForStatus(STEP, 'completed');
    await waitForNotification(page, /Cortex finished: The everything server says 2 \+ 3 = 5\./, 60_000);
    assert.equal(toolMessage, 'The sum of 2 and 3 is 5.');
    // The server got its input and none of the editor's own environment (only the allowlist).
    const serverEnv = JSON.parse(envMessage) as Record<string, string>;
    assert.equal(serverEnv.MCP_TOKEN, 'tok-123');
    assert.deepEqual(
      Object.keys(serverEnv).filter((key) => /^VSCODE_|^ELECTRON_|TOKEN$|KEY$/.test(key) && key !== 'MCP_TOKEN'),
      [],
    );
    assert.ok(offered.includes('everything_get-sum') && offered.includes('read_file'), offered.join(', '));

    // The chip names server and tool; the details show the server, the annotations and the raw result.
    const chip = panel.node(STEP).locator('.chip-label', { hasText: 'everything › get-sum' });
    await chip.waitFor({ state: 'visible' });
    await panel.node(STEP).click();
    const details = panel.frame.locator('aside.details');
    const callEntry = details.locator('.call-success').nth(1);
    await callEntry.waitFor({ state: 'attached' });
    await eventually(
      page,
      async () => /MCP server\s*everything/.test((await callEntry.textContent()) ?? ''),
      async () => `details: ${(await callEntry.textContent()) ?? ''}`,
    );
    const callText = (await callEntry.textContent()) ?? '';
    assert.match(callText, /MCP tool\s*get-sum/);
    assert.match(callText, /read-only, not destructive, idempotent, closed world/);
    assert.match(callText, /Raw MCP result/);
    assert.match(callText, /The sum of 2 and 3 is 5\./);
    await screenshot(page, 'e2e-mcp-details');

    // The model's reasoning folds under its turn: turn 1 before its first call, turn 2 (the answer)
    // after the calls; closed, plain text.
    const history = details.locator('.call-list > *');
    const firstFold = history.first();
    assert.equal(await firstFold.evaluate((node) => node.className), 'reasoning');
    assert.match((await history.nth(1).getAttribute('class')) ?? '', /call-success/, 'the fold comes right before the first call of turn 1');
    assert.match((await firstFold.locator('summary').textContent()) ?? '', /^Model reasoning · turn 1 · /);
    assert.equal(await firstFold.evaluate((fold) => (fold as HTMLDetailsElement).open), false, 'folded');
    await firstFold.locator('summary').click();
    await firstFold.locator('pre').waitFor({ state: 'visible' });
    assert.equal(await firstFold.locator('pre').textContent(), FIRST_THOUGHT);
    assert.equal(await firstFold.locator('b').count(), 0, "the model's markup is text, never HTML");
    await screenshot(page, 'e2e-mcp-reasoning');
    const answerFold = history.last();
    assert.match((await answerFold.locator('summary').textContent()) ?? '', /^Model reasoning · turn 2 \(its answer\)/);

    // The trace records the server of the call, and the server was stopped with the run.
    const runsDir = join(env.codeServer.userDataDir, 'User', 'globalStorage', 'cortex-dev.cortex-agent', 'runs');
    const trace = readdirSync(runsDir)
      .filter((file) => file.endsWith('.jsonl'))
      .map((file) => join(runsDir, file))
      .find((file) => readFileSync(file, 'utf8').includes(STEP));
    assert.ok(trace, `no trace for the run in ${runsDir}`);
    const events = readFileSync(trace, 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { type: string; message?: string; call?: { audit?: { mcp?: unknown } } });
    assert.deepEqual(events.filter((e) => e.type === 'tool_call_requested')[1]?.call?.audit?.mcp, {
      server: 'everything',
      tool: 'get-sum',
      annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    });
    assert.ok(events.some((e) => e.type === 'log' && e.message === 'Stopped MCP server(s): everything'));

    // "Cortex: MCP servers" lists the allowed server with its state and tools: no second question, no second input.
    // The command starts the server to list its tools.
    const row = await openQuickPick(page, 'Cortex: MCP servers', 'everything', (text) => /stdio · \d+ tool\(s\)/.test(text));
    assert.match(await row.innerText(), /get-sum/);
    assert.equal(await page.locator('.monaco-dialog-box').isVisible(), false);
    assert.doesNotMatch(await page.locator('.quick-input-widget .quick-input-title').innerText(), /MCP input/);
    await screenshot(page, 'e2e-mcp-servers-command');
    await page.keyboard.press('Escape');
    env.server.assertNoRejections();
  });
});
