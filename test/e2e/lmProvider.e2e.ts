import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { call, json, message, route, toolCalls, toolMessages } from '../support/scriptedReplies';
import { cortexLog, cortexPanel, e2eEnvironment, newWorkspace, openWorkspace, screenshot, type E2eEnvironment } from './support/e2eEnvironment';
import { installFixtureExtension } from './support/fixtureExtension';
import { currentPage } from './support/hooks';
import { eventually, startTask } from './support/scenario';
import { runCommand, waitForNotification } from './support/workbench';

// Models from VS Code, no key (docs/design.md, “Models from VS Code”): with cortex.llm.provider =
// vscode-lm, a run's requests go through vscode.lm to a model another extension provides. Here the
// provider is a test-only extension (test/e2e/fixtures/lm-provider) answering from the scripted
// server, so the run's planner, executor (tool calls), replanner and aggregator all travel through
// VS Code's Language Model API, while the approval and the verifier work as with any model.

const STEP = 'Write model.txt naming the model';
const REPLANNED = 'Run echo to write stamp.txt';

describe('e2e: models from VS Code (vscode-lm provider)', function () {
  let env: E2eEnvironment;
  before(async () => {
    env = await e2eEnvironment();
    await installFixtureExtension('lm-provider', env.home);
  });

  it('runs a task through a language model provided by another extension: a tool call, an approval and a replan, without a key', async () => {
    env.server.setHandler(
      route({
        planner: json({
          title: 'Model',
          steps: [
            { description: STEP, expects: [{ changed: 'model.txt' }] },
            { description: 'Run the stamp command', expects: [{ changed: 'stamp.txt' }] },
          ],
          dependencies: { '1': [0] },
        }),
        executor: (req) => {
          const prompt = JSON.stringify(req.body.messages);
          const answered = toolMessages(req).length > 0;
          if (prompt.includes(`Your step:\\n${STEP}`))
            return answered ? message('model.txt written') : toolCalls(call('write_file', { path: 'model.txt', content: 'scripted\n' }));
          // The first design claims the stamp without running anything: the verifier fails it.
          if (prompt.includes('Your step:\\nRun the stamp command')) return message('stamp.txt written');
          return answered ? message('stamp.txt written by the command') : toolCalls(call('run_command', { command: 'echo stamped > stamp.txt' }));
        },
        replanner: json({
          action: 'redesign',
          new_steps: [REPLANNED],
          new_expects: [[{ changed: 'stamp.txt' }]],
          new_dependencies: {},
          reason: 'run it for real',
        }),
        aggregator: message('Wrote model.txt and stamp.txt through VS Code.'),
      }),
    );
    const before = env.server.chatRequests().length;
    const workspace = newWorkspace(env, 'vscode-lm');
    const page = (currentPage.page = await openWorkspace(env, workspace, {
      'chat.disableAIFeatures': false,
      'cortex.llm.provider': 'vscode-lm',
      'cortex.llm.vscodeModel': 'cortex-e2e/scripted',
      // An endpoint that would fail: every request must go through VS Code's models instead.
      'cortex.llm.baseUrl': 'http://127.0.0.1:9/v1',
      'cortexE2e.scriptedBaseUrl': env.server.baseUrl,
      'cortex.policy.tools': { run_command: 'confirm' },
    }));
    await startTask(page, 'Record which model wrote this');
    const panel = await cortexPanel(page);
    await panel.waitForStatus(STEP, 'completed', 90_000);
    // The redesigned step's command waits for the person's approval, as with any model.
    const approve = panel.node(REPLANNED).getByRole('button', { name: /^Approve run_command/ });
    await approve.waitFor({ state: 'visible', timeout: 60_000 });
    await approve.click();
    await panel.waitForStatus(REPLANNED, 'completed', 60_000);
    await waitForNotification(page, /Cortex finished: Wrote model\.txt and stamp\.txt through VS Code\./, 60_000);
    assert.equal(readFileSync(join(workspace, 'model.txt'), 'utf8'), 'scripted\n');
    assert.equal(readFileSync(join(workspace, 'stamp.txt'), 'utf8').trim(), 'stamped');
    const purposes = env.server
      .chatRequests()
      .slice(before)
      .map((r) => r.purpose);
    assert.deepEqual(purposes, ['planner', 'executor', 'executor', 'executor', 'replanner', 'executor', 'executor', 'aggregator']);
    // The trace names the model that answered each request (vendor/id), and the log the provider.
    const traces = findFiles(env.codeServer.userDataDir, /^run-.*\.jsonl$/)
      .map((file) => readFileSync(file, 'utf8'))
      .filter((text) => text.includes(workspace));
    assert.equal(traces.length, 1);
    const requests = traces[0]
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as { type: string; usedModel?: string; purpose?: string })
      .filter((event) => event.type === 'llm_request');
    assert.equal(requests.length, 8);
    assert.ok(
      requests.every((event) => event.usedModel === 'cortex-e2e/scripted-1'),
      requests.map((event) => `${event.purpose} ${event.usedModel}`).join(', '),
    );
    assert.match(cortexLog(env), /started in \S+ \(VS Code language model cortex-e2e\/scripted, key from VS Code language models/);
    await screenshot(page, 'e2e-vscode-lm-done');
  });
  it('fails over to the next VS Code model when the chosen one is over its quota, counts tokens with the model, and the model quick pick lists both', async () => {
    env.server.setHandler(
      route({
        planner: json({ title: 'Failover', steps: ['Say which model answered'], dependencies: {} }),
        executor: message('the fallback model answered'),
        aggregator: message('Answered by the fallback model.'),
      }),
    );
    const workspace = newWorkspace(env, 'vscode-lm-failover');
    const page = (currentPage.page = await openWorkspace(env, workspace, {
      'chat.disableAIFeatures': false,
      'cortex.llm.provider': 'vscode-lm',
      'cortex.llm.vscodeModel': 'cortex-e2e/broken',
      'cortex.llm.vscodeFallbackModels': ['cortex-e2e/scripted'],
      'cortexE2e.scriptedBaseUrl': env.server.baseUrl,
    }));
    await startTask(page, 'Say which model answers');
    await waitForNotification(page, /Cortex finished: Answered by the fallback model\./, 90_000);
    const trace = findFiles(env.codeServer.userDataDir, /^run-.*\.jsonl$/)
      .map((file) => readFileSync(file, 'utf8'))
      .find((text) => text.includes(workspace));
    assert.ok(trace, 'the run wrote its trace');
    const requests = trace
      .split('\n')
      .filter(Boolean)
      .map(
        (line) =>
          JSON.parse(line) as {
            type: string;
            usedModel?: string;
            attempts?: Array<{ model: string; ok: boolean; error?: string }>;
            usage?: { estimated?: boolean; promptTokens: number };
          },
      )
      .filter((event) => event.type === 'llm_request');
    assert.equal(requests.length, 3);
    for (const request of requests) {
      assert.equal(request.usedModel, 'cortex-e2e/scripted-1');
      assert.deepEqual(
        request.attempts?.map((a) => [a.model, a.ok]),
        [
          ['cortex-e2e/broken', false],
          ['cortex-e2e/scripted-1', true],
        ],
      );
      assert.match(request.attempts?.[0].error ?? '', /quota/);
      // Counted by the model's own countTokens, not estimated by Cortex's tokenizer.
      assert.ok(request.usage && !request.usage.estimated && request.usage.promptTokens > 0, JSON.stringify(request.usage));
    }

    // The run says once, in words, which model it left and why.
    const notices = trace
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as { type: string; message?: string })
      .filter((event) => event.type === 'log' && event.message?.includes('— using'));
    assert.equal(notices.length, 1, JSON.stringify(notices));
    assert.match(notices[0].message!, /^model cortex-e2e\/broken failed \(.*quota.*\) in VS Code — using cortex-e2e\/scripted-1$/);

    // "Cortex: Choose model…" lists the models VS Code offers and writes the pick.
    // The quick pick closes when focus moves (the finished run's panel may take it just then): opened again, at most twice more.
    const input = page.locator('.quick-input-widget');
    for (let attempt = 1; ; attempt++) {
      await runCommand(page, 'Cortex: Choose model…');
      await input.getByText('Scripted model', { exact: true }).waitFor({ timeout: 20_000 });
      await input.getByText('Over-quota model', { exact: true }).waitFor();
      await screenshot(page, 'e2e-vscode-lm-model-pick');
      try {
        await input.getByText('Scripted model', { exact: true }).click({ timeout: 5_000 });
        break;
      } catch (error) {
        if (attempt === 3) throw error;
      }
    }
    await waitForNotification(page, /Cortex now uses Scripted model \(cortex\.llm\.vscodeModel = cortex-e2e\/scripted\/scripted-1\)/, 20_000);
  });

  it("cancelling ends the run promptly while its request through VS Code's model hangs", async () => {
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
    const workspace = newWorkspace(env, 'vscode-lm-cancel');
    const page = (currentPage.page = await openWorkspace(env, workspace, {
      'chat.disableAIFeatures': false,
      'cortex.llm.provider': 'vscode-lm',
      'cortex.llm.vscodeModel': 'cortex-e2e/scripted',
      'cortexE2e.scriptedBaseUrl': env.server.baseUrl,
    }));
    await startTask(page, 'Think for a very long time');
    const panel = await cortexPanel(page);
    await panel.waitForStatus('Think for a very long time', 'in_progress');
    await eventually(
      page,
      () => executorCalls === 1,
      () => `executor called ${executorCalls} times`,
    );
    const cancelledAt = Date.now();
    await panel.frame.getByRole('button', { name: 'Cancel the run' }).click();
    await waitForNotification(page, /Cortex run cancelled/, 20_000);
    assert.ok(Date.now() - cancelledAt < 15_000, 'the run ended promptly');
    assert.equal(executorCalls, 1, 'nothing was retried after the cancel');
  });
});

function findFiles(dir: string, name: RegExp): string[] {
  const found: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) found.push(...findFiles(path, name));
    else if (name.test(entry.name)) found.push(path);
  }
  return found;
}
