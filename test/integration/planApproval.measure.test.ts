import assert from 'node:assert/strict';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { main } from '../../src/cli/main';
import type { RunEvent } from '../../src/core/plan/events';
import { readTraceSync } from '../support/traceFile';
import { tempWorkspace } from '../support/agentHarness';
import { call, contentText, json, message, route, toolCalls, assistantTurns } from '../support/scriptedReplies';
import type { Handler, Reply } from '../support/scriptedServer';
import { useScriptedServer } from '../support/useScriptedServer';

// What approving the plan once saves (docs/design.md, “Step scopes and plan approval”): a
// realistic 12-step task (reads, writes in three folders, two test commands with their checks, one
// install command) run through the CLI against the scripted server, counting the approval prompts
// a person answers in the `call` mode and in the `plan` mode, then again with one planted
// out-of-scope write and one out-of-scope command: both must be caught as drift and neither may
// run unasked. The counts are printed.

interface StepScript {
  description: string;
  scope?: { write?: string[]; commands?: string[] };
  expects?: unknown[];
  calls: Array<ReturnType<typeof call>>;
}

const UNIT = 'node run-tests.js unit';
const INTEGRATION = 'node run-tests.js integration';
const INSTALL = 'node tools/install.js left-pad';

function steps(planted: boolean): StepScript[] {
  return [
    { description: 'Read package.json to learn the layout', expects: [{ called: 'read_file' }], calls: [call('read_file', { path: 'package.json' })] },
    { description: 'Search the code for uses of parseDate', expects: [{ called: 'search_text' }], calls: [call('search_text', { pattern: 'parseDate' })] },
    {
      description: 'Write src/date.js with parseDate',
      scope: { write: ['src/**'] },
      calls: [call('write_file', { path: 'src/date.js', content: 'exports.parseDate = (s) => new Date(s);\n' })],
    },
    {
      description: 'Write src/format.js with formatDate',
      scope: { write: ['src/**'] },
      calls: [
        call('write_file', { path: 'src/format.js', content: 'exports.formatDate = (d) => d.toISOString();\n' }),
        ...(planted ? [call('write_file', { path: 'lib/planted.js', content: 'planted\n' })] : []),
      ],
    },
    {
      description: 'Write test/date.test.js for parseDate',
      scope: { write: ['test/**'] },
      calls: [call('write_file', { path: 'test/date.test.js', content: '// date\n' })],
    },
    {
      description: 'Write test/format.test.js for formatDate',
      scope: { write: ['test/**'] },
      calls: [call('write_file', { path: 'test/format.test.js', content: '// format\n' })],
    },
    {
      description: 'Install left-pad with the install tool',
      scope: { write: ['vendor/**'], commands: [INSTALL] },
      calls: [call('run_command', { command: INSTALL })],
    },
    { description: 'Run the unit tests', scope: { commands: [UNIT] }, expects: [{ command: UNIT, exit: 0 }], calls: [call('run_command', { command: UNIT })] },
    {
      description: 'Write docs/dates.md describing the date helpers',
      scope: { write: ['docs/**'] },
      calls: [
        call('write_file', { path: 'docs/dates.md', content: '# Dates\n' }),
        ...(planted ? [call('run_command', { command: 'node tools/install.js evil-pkg' })] : []),
      ],
    },
    {
      description: 'Run the integration tests',
      scope: { commands: [INTEGRATION] },
      expects: [{ command: INTEGRATION, exit: 0 }],
      calls: [call('run_command', { command: INTEGRATION })],
    },
    {
      description: 'Add an entry to docs/CHANGELOG.md',
      scope: { write: ['docs/**'] },
      calls: [call('write_file', { path: 'docs/CHANGELOG.md', content: '- date helpers\n' })],
    },
    { description: 'Summarise the change for the user', expects: [], calls: [] },
  ];
}

const DEPENDENCIES = { 2: [0, 1], 3: [0], 4: [2], 5: [3], 6: [0], 7: [4, 5, 6], 8: [2, 3], 9: [7], 10: [8, 9], 11: [10] };

/** Executor replies by the step's own description (the line after "Your step:"). */
function executor(script: StepScript[]): Handler {
  return (req): Reply => {
    const first = contentText((req.body.messages as Array<{ role: string; content: unknown }>).find((m) => m.role === 'user')?.content);
    const description = /Your step:\n(.*)/.exec(first)?.[1];
    const step = script.find((s) => s.description === description);
    if (!step) throw new Error(`no scripted step for ${JSON.stringify(description)}`);
    if (assistantTurns(req) === 0 && step.calls.length > 0) return toolCalls(...step.calls);
    return message(`Done: ${step.description}.`);
  };
}

function workspace(): string {
  const ws = tempWorkspace();
  writeFileSync(join(ws, 'package.json'), '{"name": "dates"}\n');
  writeFileSync(join(ws, 'run-tests.js'), 'console.log(`${process.argv[2]} tests passed`);\n');
  mkdirSync(join(ws, 'tools'));
  writeFileSync(
    join(ws, 'tools/install.js'),
    "const fs = require('fs'); const name = process.argv[2]; fs.mkdirSync(`vendor/${name}`, { recursive: true }); fs.writeFileSync(`vendor/${name}/index.js`, '// ' + name + '\\n');\n",
  );
  return ws;
}

async function measure(baseUrl: string, mode: 'call' | 'call, writes confirmed' | 'plan') {
  const ws = workspace();
  const stamp = `${Date.now()}-${Math.random().toString(16).slice(2)}`;
  const trace = join(ws, '..', `${stamp}-trace.jsonl`);
  const config = join(ws, '..', `${stamp}-cfg.json`);
  writeFileSync(
    config,
    JSON.stringify({
      'cortex.llm.baseUrl': baseUrl,
      'cortex.llm.model': 'm',
      'cortex.llm.maxRetries': 0,
      'cortex.sandbox.mode': 'off',
      ...(mode === 'call, writes confirmed' ? { 'cortex.policy.tools': { write_file: 'confirm' } } : {}),
    }),
  );
  const out = new PassThrough();
  const err = new PassThrough();
  let stderr = '';
  out.resume();
  err.on('data', (d) => (stderr += d));
  const stdin = Object.assign(new PassThrough(), { isTTY: false });
  // The call mode: everything asked is approved (a person clicking Approve each time); the plan
  // mode: the plan is approved by the flag, and what drifts is asked (denied: no terminal).
  const approve = mode === 'plan' ? 'plan' : 'all';
  const code = await main(['run', '--workspace', ws, '--config', config, '--trace', trace, '--approve', approve, 'add date helpers'], {
    stdout: out,
    stderr: err,
    stdin,
    cwd: process.cwd(),
    env: {},
  });
  const events = readTraceSync(trace).events;
  const prompts = events.filter((e) => e.type === 'tool_call_awaiting_approval' || e.type === 'plan_approval_requested').length;
  const drifts = events.filter((e): e is Extract<RunEvent, { type: 'step_audit' }> => e.type === 'step_audit' && e.kind === 'drift');
  return { code, stderr, ws, events, prompts, drifts };
}

describe('approving the plan once: prompts of a 12-step task', function () {
  this.timeout(120_000);
  const server = useScriptedServer();
  const script = (planted: boolean) => {
    const plan = steps(planted);
    server().setHandler(
      route({
        planner: json({ title: 'Date helpers', steps: plan.map(({ calls: _calls, ...step }) => step), dependencies: DEPENDENCIES }),
        executor: executor(plan),
        aggregator: message('Date helpers added.'),
      }),
    );
  };

  it('call mode: one prompt per command and check (and per write when writes ask); plan mode: one; plan mode with two drifts: three, nothing out of scope ran', async () => {
    script(false);
    const call = await measure(server().baseUrl, 'call');
    assert.equal(call.code, 0, call.stderr);
    script(false);
    const cautious = await measure(server().baseUrl, 'call, writes confirmed');
    assert.equal(cautious.code, 0, cautious.stderr);
    script(false);
    const plan = await measure(server().baseUrl, 'plan');
    assert.equal(plan.code, 0, plan.stderr);
    script(true);
    const drifted = await measure(server().baseUrl, 'plan');

    console.log(
      `      prompts for the 12-step task: call mode ${call.prompts}, call mode with writes confirmed ${cautious.prompts}, plan mode ${plan.prompts}, plan mode with 2 planted drifts ${drifted.prompts} (${drifted.drifts.length} drift)`,
    );
    // 3 commands + 2 check commands; + 6 writes when writes ask.
    assert.equal(call.prompts, 5);
    assert.equal(cautious.prompts, 11);
    assert.equal(plan.prompts, 1);
    assert.equal(plan.drifts.length, 0);
    // The same work was done in both modes.
    for (const file of [
      'src/date.js',
      'src/format.js',
      'test/date.test.js',
      'test/format.test.js',
      'docs/dates.md',
      'docs/CHANGELOG.md',
      'vendor/left-pad/index.js',
    ])
      assert.ok(existsSync(join(plan.ws, file)) && existsSync(join(call.ws, file)), file);

    assert.equal(drifted.prompts, 1 + 2, 'one for the plan, one per drift');
    assert.deepEqual(
      drifted.drifts.map((d) => d.data.what),
      ['writes lib/planted.js', 'runs `node tools/install.js evil-pkg`'],
    );
    assert.equal(existsSync(join(drifted.ws, 'lib/planted.js')), false, 'the out-of-scope write did not run unasked');
    assert.equal(existsSync(join(drifted.ws, 'vendor/evil-pkg')), false, 'the out-of-scope command did not run unasked');
    assert.ok(existsSync(join(drifted.ws, 'vendor/left-pad/index.js')), 'the in-scope install ran');
  });
});
