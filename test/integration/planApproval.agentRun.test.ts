import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eventsOf, runAgainst, tempWorkspace } from '../support/agentHarness';
import { byStep, call, contentText, json, message, route, toolCalls } from '../support/scriptedReplies';
import type { ScriptedRequest } from '../support/scriptedServer';
import { useScriptedServer } from '../support/useScriptedServer';

// Plan approval in the run (docs/design.md, “Step scopes and plan approval”): a denial with
// feedback goes to the planner (at most twice), a check command in the step's scope is covered, a
// command's changes outside the step's write globs are drift and listed as such.

const settings = { 'cortex.approval.mode': 'plan', 'cortex.sandbox.mode': 'off' };

function planReply(description: string, scope: Record<string, unknown>, expects?: unknown[]) {
  return json({ title: 'T', steps: [{ description, scope, ...(expects ? { expects } : {}) }], dependencies: {} });
}

describe('plan approval in the agent run', function () {
  this.timeout(60_000);
  const server = useScriptedServer();

  it('a denial with feedback goes to the planner for a new plan; the approved one runs', async () => {
    const plannerRequests: ScriptedRequest[] = [];
    let plans = 0;
    server().setHandler(
      route({
        planner: (req) => {
          plannerRequests.push(req);
          return plans++ === 0 ? planReply('Write everything at once', { write: ['**'] }) : planReply('Write src/a.txt only', { write: ['src/a.txt'] });
        },
        executor: byStep({ 'Write src/a.txt only': [toolCalls(call('write_file', { path: 'src/a.txt', content: 'a' })), message('Wrote src/a.txt.')] }),
        aggregator: message('Done.'),
      }),
    );
    const answers: string[] = [];
    const { result, events } = await runAgainst(server(), {
      settings,
      onPlanApproval: (request, broker) => {
        answers.push(request.steps[0].description);
        if (request.attempt === 1) broker.answer({ requestId: request.requestId, approved: false, feedback: 'only src/a.txt, please', source: 'test' });
        else broker.answer({ requestId: request.requestId, approved: true, source: 'test' });
      },
    });
    assert.equal(result.status, 'completed', result.error);
    assert.deepEqual(answers, ['Write everything at once', 'Write src/a.txt only']);
    const second = plannerRequests[1].body.messages as Array<{ role: string; content: unknown }>;
    assert.match(contentText(second.at(-1)!.content), /did not approve it\. Their feedback:\nonly src\/a\.txt, please/);
    assert.match(contentText(second.at(-2)!.content), /Write everything at once/);
    assert.deepEqual(
      eventsOf(events, 'step_added').map((e) => e.description),
      ['Write src/a.txt only'],
    );
    assert.equal(eventsOf(events, 'tool_call_awaiting_approval').length, 0);
  });

  it('at most two rewrites: a third denial ends the run before any step', async () => {
    let plans = 0;
    server().setHandler(route({ planner: () => planReply(`Plan ${++plans}`, { write: ['**'] }) }));
    const { result, events } = await runAgainst(server(), {
      settings,
      onPlanApproval: (request, broker) => broker.answer({ requestId: request.requestId, approved: false, feedback: `no (${request.attempt})` }),
    });
    assert.equal(result.status, 'failed');
    assert.equal(plans, 3);
    assert.equal(result.error, 'The plan was not approved: no (3)');
    assert.equal(eventsOf(events, 'step_added').length, 0);
    // A second answer to an answered request is refused and changes nothing.
  });

  it('a write through a symbolic link that leads outside the scope is drift and asks', async () => {
    const workspace = tempWorkspace();
    mkdirSync(join(workspace, 'src'));
    mkdirSync(join(workspace, 'lib'));
    writeFileSync(join(workspace, 'lib', 'target.js'), 'original\n');
    symlinkSync(join('..', 'lib', 'target.js'), join(workspace, 'src', 'link.js'));
    server().setHandler(
      route({
        planner: planReply('Update src/link.js', { write: ['src/**'] }),
        executor: byStep({
          'Update src/link.js': [toolCalls(call('write_file', { path: 'src/link.js', content: 'changed\n' })), message('Tried to update it.')],
        }),
        replanner: json({ action: 'give_up' }),
        aggregator: message('Done.'),
      }),
    );
    const asked: string[] = [];
    const { events } = await runAgainst(server(), {
      workspace,
      settings,
      onPlanApproval: (request, broker) => broker.answer({ requestId: request.requestId, approved: true }),
      onApproval: (request, broker) => {
        asked.push(request.reason);
        broker.answer({ requestId: request.requestId, callId: request.callId, argsHash: request.argsHash, decision: 'deny' });
      },
    });
    assert.equal(asked.length, 1);
    assert.match(asked[0], /outside the step's approved scope: it writes src\/link\.js/);
    assert.equal(eventsOf(events, 'step_audit').filter((e) => e.kind === 'drift').length, 1);
    assert.equal(readFileSync(join(workspace, 'lib', 'target.js'), 'utf8'), 'original\n');
  });

  it('a check command listed in the scope is covered; a command that changes a file outside the write globs is drift', async () => {
    const workspace = tempWorkspace();
    writeFileSync(
      join(workspace, 'gen.js'),
      "require('fs').mkdirSync('out', {recursive: true}); require('fs').writeFileSync('out/x.txt', 'x'); require('fs').writeFileSync('stray.txt', 's');\n",
    );
    writeFileSync(join(workspace, 'check.js'), "process.exit(require('fs').existsSync(process.argv[2]) ? 0 : 1);\n");
    server().setHandler(
      route({
        planner: planReply('Generate out/ with node gen.js', { write: ['out/**'], commands: ['node gen.js', 'node check.js'] }, [
          { command: 'node check.js out/x.txt', exit: 0 },
        ]),
        executor: byStep({ 'Generate out/ with node gen.js': [toolCalls(call('run_command', { command: 'node gen.js' })), message('Generated out/x.txt.')] }),
        aggregator: message('Done.'),
      }),
    );
    const { result, events, log } = await runAgainst(server(), {
      workspace,
      settings,
      checkpointsDir: mkdtempSync(join(tmpdir(), 'cortex-cp-')),
      onPlanApproval: (request, broker) => broker.answer({ requestId: request.requestId, approved: true }),
    });
    assert.equal(result.status, 'completed', result.error);
    assert.equal(eventsOf(events, 'tool_call_awaiting_approval').length, 0, 'the command and the check command ran unasked');
    const drift = eventsOf(events, 'step_audit').filter((e) => e.kind === 'drift');
    assert.equal(drift.length, 1);
    assert.deepEqual(drift[0].data.paths, ['stray.txt']);
    assert.match(String(drift[0].data.what), /^changed stray\.txt \(through a command\)$/);
    assert.ok(existsSync(join(workspace, 'stray.txt')), 'a command change cannot be known before it runs: it is reported');
    const step = log.state.steps.get('s1')!;
    assert.ok(step.changes?.some((change) => change.path === 'stray.txt'));
  });
});
