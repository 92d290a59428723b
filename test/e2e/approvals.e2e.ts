import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import type { RunEvent } from '../../src/core/plan/events';
import { call, json, message, route, toolCalls, toolMessages } from '../support/scriptedReplies';
import type { ScriptedRequest } from '../support/scriptedServer';
import { cortexPanel, e2eEnvironment, newWorkspace, openWorkspace, screenshot, type E2eEnvironment, type PanelHandle } from './support/e2eEnvironment';
import { currentPage } from './support/hooks';
import { eventually, startTask, stepOf } from './support/scenario';
import { waitForNotification } from './support/workbench';

// In the real workbench (docs/design.md, “Approvals”, docs/design.md, “The replanner”): approvals on the DAG node (the status bar entry
// and the notification for a hidden panel are in approvalStatus.e2e.ts), a step that fails verification and is replanned until it is
// blocked, the details of the blocked step, the Deny path and the required gate with Retry; a
// stale answer refused at once with its reason, and a cancel withdrawing a pending approval.

/** A write whose arguments are cut off by the token limit: the call stays pending, so the step fails verification. */
const cutOffReport = {
  kind: 'message' as const,
  toolCalls: [{ name: 'write_file', arguments: '{"path":"report.md","content":"# Build report\\n\\nThe build produ' }],
  finishReason: 'length',
};
const answered = (req: ScriptedRequest) => toolMessages(req).length > 0;

/** The run's events as its trace file has them so far (complete lines only), found by the run's task. */
function traceEvents(env: E2eEnvironment, task: string): RunEvent[] {
  const runsDir = join(env.codeServer.userDataDir, 'User', 'globalStorage', 'cortex-dev.cortex-agent', 'runs');
  // Beside each trace are its checkpoints folder and, while it runs, its lock.
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

/** Every LLM request of `events` has its context_cost record (a step audit, or a log for the planner). */
function everyRequestCounted(events: RunEvent[]): boolean {
  const requests = events.filter((e) => e.type === 'llm_request').length;
  const costs = events.filter(
    (e) => (e.type === 'step_audit' && e.kind === 'context_cost') || (e.type === 'log' && (e.data as { kind?: unknown } | undefined)?.kind === 'context_cost'),
  ).length;
  return requests > 0 && costs >= requests;
}

/** The run's trace once `complete` accepts it and it has not grown for a second. */
async function quietTrace(page: Page, env: E2eEnvironment, task: string, complete: (events: RunEvent[]) => boolean): Promise<RunEvent[]> {
  let events: RunEvent[] = [];
  let count = -1;
  let since = Date.now();
  await eventually(
    page,
    () => {
      events = traceEvents(env, task);
      if (events.length !== count) [count, since] = [events.length, Date.now()];
      return complete(events) && Date.now() - since >= 1_000;
    },
    () => `the trace (${count} events) is not complete and quiet`,
  );
  return events;
}

/**
 * Hands the panel `events` as the run, the way the host's reset does. The panel first gets the run
 * without its approval requests, so the buttons are built again from `events`.
 */
async function resetPanel(page: Page, panel: PanelHandle, runId: string, events: RunEvent[]): Promise<void> {
  const post = (reset: unknown) => panel.frame.evaluate((message) => window.postMessage(message, '*'), reset);
  await post({ type: 'host/reset', runId, live: true, events: events.filter((e) => e.type !== 'tool_call_awaiting_approval') });
  const buttons = panel.frame.locator('.node-actions button');
  await eventually(
    page,
    async () => (await buttons.count()) === 0,
    async () => `${await buttons.count()} action button(s) left`,
    5_000,
  );
  await post({ type: 'host/reset', runId, live: true, events });
}

async function approvalButton(panel: PanelHandle, step: string, decision: 'Approve' | 'Deny') {
  const buttonOnNode = panel.node(step).getByRole('button', { name: new RegExp(`^${decision} run_command`) });
  await buttonOnNode.waitFor({ state: 'visible', timeout: 60_000 });
  return buttonOnNode;
}

describe('e2e: approvals, replanning and blocked steps', function () {
  let env: E2eEnvironment;
  before(async () => {
    env = await e2eEnvironment();
  });

  it('approve on the node runs the command; a later step is replanned until blocked; its details show the pending call', async () => {
    let replans = 0;
    env.server.setHandler(
      route({
        planner: json({
          title: 'Build and report',
          steps: ['Run the build command', 'Write the build report', 'Publish the build report'],
          dependencies: { '1': [0], '2': [1] },
        }),
        executor: (req) => {
          const step = stepOf(req);
          if (step === 'Run the build command')
            return answered(req) ? message('The build ran and wrote build.txt.') : toolCalls(call('run_command', { command: 'echo built > build.txt' }));
          if (step.startsWith('Write the build report')) return { ...cutOffReport, delayMs: 300 };
          if (step.startsWith('Publish')) return message('published');
          throw new Error(`unexpected step ${step}`);
        },
        replanner: () => {
          replans++;
          return json({
            action: 'redesign',
            new_steps: [`Write the build report (attempt ${replans})`, `Publish the build report (attempt ${replans})`],
            new_dependencies: { '1': [0] },
          });
        },
        aggregator: message('The build ran; the report could not be written.'),
      }),
    );
    const workspace = newWorkspace(env, 'approve-replan');
    const page = (currentPage.page = await openWorkspace(env, workspace, { 'cortex.policy.tools': { run_command: 'confirm' } }));
    await startTask(page, 'Build the project and write a report');
    const panel = await cortexPanel(page);

    // The approval is on the node; with the panel visible, no notification is added next to it.
    const approve = await approvalButton(panel, 'Run the build command', 'Approve');
    assert.match((await panel.node('Run the build command').getAttribute('class')) ?? '', /\bawaiting\b/);
    assert.equal(existsSync(join(workspace, 'build.txt')), false, 'nothing runs before approval');
    await screenshot(page, 'e2e-approval-pending');
    await approve.click();

    await panel.waitForStatus('Run the build command', 'completed');
    assert.equal(readFileSync(join(workspace, 'build.txt'), 'utf8').trim(), 'built');

    // The cut-off write fails verification; the step and its downstream are replaced (and stay visible).
    const original = panel.node(/^Write the build report$/);
    await eventually(
      page,
      async () => /\breplaced\b/.test((await original.getAttribute('class').catch(() => '')) ?? ''),
      async () => `the original report step was not shown as replaced: ${await original.getAttribute('class').catch(() => '(missing)')}`,
      60_000,
    );
    await panel.waitForStatus('Write the build report (attempt 2)', 'blocked', 90_000);
    await panel.waitForStatus('Publish the build report (attempt 2)', 'blocked');
    await waitForNotification(page, /Cortex run failed/, 60_000);
    assert.equal(replans, 2, 'two rewrites, then blocked');
    await screenshot(page, 'e2e-replanned-blocked');

    // Clicking the blocked step shows its pending call with the arguments the model sent.
    await panel.node('Write the build report (attempt 2)').click();
    const details = panel.frame.locator('aside.details');
    await details.getByText('Write the build report (attempt 2)').first().waitFor({ state: 'visible' });
    const pendingCall = details.locator('.call-pending').first();
    await pendingCall.waitFor({ state: 'attached' });
    const callText = (await pendingCall.textContent()) ?? '';
    assert.match(callText, /write_file/);
    assert.match(callText, /report\.md/);
    assert.match(callText, /incomplete arguments|finish length/);
    assert.equal(existsSync(join(workspace, 'report.md')), false, 'a cut-off write never runs');
    await screenshot(page, 'e2e-blocked-details');
    env.server.assertNoRejections();
  });

  it('deny on the node: the command does not run, the model is told and the step goes on (a workspace cannot allow it)', async () => {
    let toldDenied = false;
    env.server.setHandler(
      route({
        planner: json({ title: 'Clean', steps: ['Clean the build output'], dependencies: {} }),
        executor: (req) => {
          if (!answered(req)) return toolCalls(call('run_command', { command: 'rm -rf build' }));
          toldDenied = /denied/i.test(JSON.stringify(toolMessages(req)));
          return message('Left the build folder alone, as the user denied the command.');
        },
        aggregator: message('Nothing was deleted.'),
      }),
    );
    // A cloned repository trying to allow every command: security settings are read from user/machine scope only.
    const hostile = { 'cortex.policy.tools': { run_command: 'allow' }, 'cortex.policy.commands': { allow: ['.*'], deny: [] } };
    const workspace = newWorkspace(env, 'deny', { 'build/keep.txt': 'keep me\n', '.vscode/settings.json': JSON.stringify(hostile) });
    const page = (currentPage.page = await openWorkspace(env, workspace, { 'cortex.policy.tools': { run_command: 'confirm' } }));
    await startTask(page, 'Clean the build output');
    const panel = await cortexPanel(page);
    await (await approvalButton(panel, 'Clean the build output', 'Deny')).click();
    await panel.waitForStatus('Clean the build output', 'completed');
    assert.equal(toldDenied, true, 'the model got a tool message saying the call was denied');
    assert.equal(readFileSync(join(workspace, 'build', 'keep.txt'), 'utf8'), 'keep me\n', 'the denied command did not run');
    await panel.node('Clean the build output').click();
    await panel.frame.locator('aside.details .call-rejected').first().waitFor({ state: 'attached' });
    await screenshot(page, 'e2e-denied');
  });

  it('a denied required gate blocks the step until Retry; approving then lets the run finish', async () => {
    env.server.setHandler(
      route({
        planner: json({ title: 'Deploy', steps: ['Deploy the site', 'Report the deployment'], dependencies: { '1': [0] } }),
        executor: (req) => {
          const step = stepOf(req);
          if (step === 'Deploy the site')
            return answered(req) ? message('Deployed.') : toolCalls(call('run_command', { command: 'echo deployed > deploy.txt' }));
          return message('Reported the deployment.');
        },
        aggregator: message('Deployed after a retry.'),
      }),
    );
    const workspace = newWorkspace(env, 'gate');
    const page = (currentPage.page = await openWorkspace(env, workspace, { 'cortex.policy.tools': { run_command: 'confirm-required' } }));
    await startTask(page, 'Deploy the site');
    const panel = await cortexPanel(page);
    await (await approvalButton(panel, 'Deploy the site', 'Deny')).click();
    await panel.waitForStatus('Deploy the site', 'blocked');
    const retry = panel.node('Deploy the site').getByRole('button', { name: /^Retry step/ });
    await retry.waitFor({ state: 'visible' });
    assert.equal(existsSync(join(workspace, 'deploy.txt')), false);
    assert.match((await panel.node('Report the deployment').getAttribute('class')) ?? '', /status-not_started/, 'the dependent step waits');
    await screenshot(page, 'e2e-gate-denied');

    await retry.click();
    await (await approvalButton(panel, 'Deploy the site', 'Approve')).click();
    await panel.waitForStatus('Deploy the site', 'completed');
    await panel.waitForStatus('Report the deployment', 'completed');
    await waitForNotification(page, /Cortex finished: Deployed after a retry\./, 60_000);
    assert.equal(readFileSync(join(workspace, 'deploy.txt'), 'utf8').trim(), 'deployed');
    await screenshot(page, 'e2e-gate-retried');
  });

  it('a stale answer is refused at once with its reason and recorded in the trace; the buttons come back and the real answer runs', async () => {
    const task = 'Write the gamma marker';
    env.server.setHandler(
      route({
        planner: json({ title: 'Gamma', steps: ['Write the gamma marker'], dependencies: {} }),
        executor: (req) => (answered(req) ? message('Wrote gamma.txt.') : toolCalls(call('run_command', { command: 'echo gamma > gamma.txt' }))),
        aggregator: message('gamma written.'),
      }),
    );
    const workspace = newWorkspace(env, 'stale-answer');
    const page = (currentPage.page = await openWorkspace(env, workspace, { 'cortex.policy.tools': { run_command: 'confirm' } }));
    await startTask(page, task);
    const panel = await cortexPanel(page);
    await approvalButton(panel, 'Write the gamma marker', 'Approve');

    // The panel is handed the run with an outdated hash for the request, as if the arguments it
    // showed were not the ones waiting: its answer must be refused, not applied. The copy is taken
    // once the waiting run has recorded all it will: each request's context_cost comes when its
    // prompt's token count arrives, which can be after the approval request (the planner's and the
    // step's both were, in a run here). A later event would reach the panel past a gap, and the
    // panel would rightly ask the host for the whole run again.
    const events = await quietTrace(page, env, task, (all) => all.some((e) => e.type === 'tool_call_awaiting_approval') && everyRequestCounted(all));
    const runId = (events[0] as Extract<RunEvent, { type: 'run_started' }>).runId;
    const outdated = events.map((e) => (e.type === 'tool_call_awaiting_approval' ? { ...e, approval: { ...e.approval, argsHash: 'f'.repeat(64) } } : e));
    await resetPanel(page, panel, runId, outdated);
    const approve = await approvalButton(panel, 'Write the gamma marker', 'Approve');
    const clickedAt = Date.now();
    await approve.click();
    const notice = panel.frame.locator('.notice-warning .notice-text', { hasText: 'That approval was not applied' });
    await notice.waitFor({ state: 'visible', timeout: 5_000 });
    assert.equal(await notice.innerText(), 'That approval was not applied: stale answer: the arguments differ from the ones awaiting approval');
    await eventually(
      page,
      async () => (await approve.isEnabled()) && (await approve.innerText()) === 'Approve',
      async () => `the Approve button is still "${await approve.innerText()}" (enabled: ${await approve.isEnabled()})`,
      5_000,
    );
    assert.ok(Date.now() - clickedAt < 10_000, 'the refusal is shown at once, not after a timeout');
    assert.equal(existsSync(join(workspace, 'gamma.txt')), false, 'a refused answer runs nothing');
    await screenshot(page, 'e2e-approval-stale-refused');
    let refusal: Extract<RunEvent, { type: 'approval_refused' }> | undefined;
    await eventually(
      page,
      () => (refusal = traceEvents(env, task).find((e): e is Extract<RunEvent, { type: 'approval_refused' }> => e.type === 'approval_refused')) !== undefined,
      () => 'no approval_refused in the trace',
    );
    assert.equal(refusal!.reason, 'stale_hash');
    assert.equal(refusal!.source, 'panel');
    assert.equal(refusal!.message, 'stale answer: the arguments differ from the ones awaiting approval');

    // With the run as the host has it, the same button approves and the command runs.
    await resetPanel(page, panel, runId, await quietTrace(page, env, task, (all) => all.some((e) => e.type === 'approval_refused')));
    await (await approvalButton(panel, 'Write the gamma marker', 'Approve')).click();
    await panel.waitForStatus('Write the gamma marker', 'completed');
    assert.equal(readFileSync(join(workspace, 'gamma.txt'), 'utf8').trim(), 'gamma');
    await waitForNotification(page, /Cortex finished: gamma written\./, 60_000);
    const answeredEvents = traceEvents(env, task).filter((e) => e.type === 'approval_answered');
    assert.deepEqual(
      answeredEvents.map((e) => e.type === 'approval_answered' && [e.decision, e.source]),
      [['approve', 'panel']],
    );
  });

  it('cancelling the run withdraws its pending approval: the buttons go and the trace says withdrawn', async () => {
    const task = 'Write the delta marker';
    env.server.setHandler(
      route({
        planner: json({ title: 'Delta', steps: ['Write the delta marker'], dependencies: {} }),
        executor: (req) => (answered(req) ? message('Wrote delta.txt.') : toolCalls(call('run_command', { command: 'echo delta > delta.txt' }))),
        aggregator: message('unused'),
      }),
    );
    const workspace = newWorkspace(env, 'cancel-approval');
    const page = (currentPage.page = await openWorkspace(env, workspace, { 'cortex.policy.tools': { run_command: 'confirm' } }));
    await startTask(page, task);
    const panel = await cortexPanel(page);
    await approvalButton(panel, 'Write the delta marker', 'Approve');
    await panel.frame.getByRole('button', { name: 'Cancel the run' }).click();
    await waitForNotification(page, /Cortex run cancelled/, 20_000);
    const buttons = panel.node('Write the delta marker').getByRole('button', { name: /^(Approve|Deny) run_command/ });
    await eventually(
      page,
      async () => (await buttons.count()) === 0,
      async () => `the node still offers ${await buttons.count()} approval button(s)`,
    );
    assert.equal(existsSync(join(workspace, 'delta.txt')), false);
    await screenshot(page, 'e2e-approval-withdrawn');

    const events = traceEvents(env, task);
    const withdrawn = events.filter((e): e is Extract<RunEvent, { type: 'approval_withdrawn' }> => e.type === 'approval_withdrawn');
    assert.deepEqual(
      withdrawn.map((e) => [e.reason, e.message]),
      [['run_cancelled', 'cancelled from the panel']],
    );
    const finished = events.at(-1);
    assert.equal(finished?.type, 'run_finished');
    const callRecord = finished.type === 'run_finished' ? finished.plan.steps[0].toolCalls[0] : undefined;
    assert.equal(callRecord?.status, 'awaiting_approval', 'the call never ran and got no made-up result');
    assert.equal(callRecord?.approval?.state, 'withdrawn');
  });
});
