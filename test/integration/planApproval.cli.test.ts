import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { main } from '../../src/cli/main';
import type { RunEvent } from '../../src/core/plan/events';
import { readTraceSync } from '../support/traceFile';
import { tempWorkspace } from '../support/agentHarness';
import { byStep, call, json, message, route, toolCalls } from '../support/scriptedReplies';
import { useScriptedServer } from '../support/useScriptedServer';

// Approving the plan once, through the CLI (docs/design.md, “Step scopes and plan approval”):
// `cortex plan --out`, `cortex run --plan`, `--approve plan` with in-scope calls, drift, a
// widening replan without a terminal, and plan files that are not valid.

async function cli(argv: string[]) {
  const out = new PassThrough();
  const err = new PassThrough();
  let stdout = '';
  let stderr = '';
  out.on('data', (d) => (stdout += d));
  err.on('data', (d) => (stderr += d));
  const stdin = Object.assign(new PassThrough(), { isTTY: false });
  const code = await main(argv, { stdout: out, stderr: err, stdin, cwd: process.cwd(), env: {} });
  return { code, stdout, stderr };
}

function setup(baseUrl: string) {
  const ws = tempWorkspace();
  const stamp = `${Date.now()}-${Math.random().toString(16).slice(2)}`;
  const trace = join(ws, '..', `${stamp}-trace.jsonl`);
  const config = join(ws, '..', `${stamp}-cfg.json`);
  const planFile = join(ws, '..', `${stamp}-plan.json`);
  writeFileSync(config, JSON.stringify({ 'cortex.llm.baseUrl': baseUrl, 'cortex.llm.model': 'm', 'cortex.llm.maxRetries': 0, 'cortex.sandbox.mode': 'off' }));
  writeFileSync(join(ws, 'run-tests.js'), "console.log('2 tests passed');\n");
  return { ws, trace, planFile, args: ['--workspace', ws, '--config', config, '--trace', trace] };
}

const WRITE_STEP = 'Write src/date.js exporting parseDate';
const TEST_STEP = 'Run the tests of the date module with node run-tests.js';

const PLAN = {
  task: 'add parseDate',
  title: 'Dates',
  steps: [
    { description: WRITE_STEP, expects: [{ changed: 'src/date.js' }], scope: { write: ['src/**'] } },
    { description: TEST_STEP, expects: [{ command: 'node run-tests.js', exit: 0 }], scope: { commands: ['node run-tests.js'] } },
  ],
  dependencies: { 1: [0] },
};

const approvalsOf = (events: RunEvent[]) => events.filter((e) => e.type === 'tool_call_awaiting_approval');
const driftsOf = (events: RunEvent[]) => events.filter((e): e is Extract<RunEvent, { type: 'step_audit' }> => e.type === 'step_audit' && e.kind === 'drift');

describe('cortex CLI: approving the plan once', function () {
  this.timeout(60_000);
  const server = useScriptedServer();

  it('cortex plan --out writes the planner plan with scopes and checks, and runs nothing', async () => {
    const { ws, planFile, args } = setup(server().baseUrl);
    server().setHandler(route({ planner: json({ title: PLAN.title, steps: PLAN.steps, dependencies: PLAN.dependencies }) }));
    const result = await cli(['plan', ...args, '--out', planFile, 'add parseDate']);
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stderr, /wrote the plan "Dates" \(2 steps\) to .*; review it, then run it with: cortex run --plan .* --approve plan/);
    assert.deepEqual(JSON.parse(readFileSync(planFile, 'utf8')), PLAN);
    assert.deepEqual(
      server().requests.map((r) => r.purpose),
      ['planner'],
      'only the planner was asked',
    );
    assert.equal(existsSync(join(ws, 'src')), false, 'nothing ran');
  });

  it('cortex plan: a model that writes no valid plan is exit 1 and no file', async () => {
    const { planFile, args } = setup(server().baseUrl);
    server().setHandler(route({ planner: json({ title: 'T', steps: [{ description: 'x', scope: { write: ['/etc/**'] } }] }) }));
    const result = await cli(['plan', ...args, '--out', planFile, 'add parseDate']);
    assert.equal(result.code, 1);
    assert.match(
      result.stderr,
      /cortex plan: The model did not produce a valid plan: .*steps\[0\]\.scope: "write"\[0\]: the glob "\/etc\/\*\*" must be relative/,
    );
    assert.equal(existsSync(planFile), false);
  });

  it('run --plan --approve plan: no planner, the plan approved by the flag, in-scope write and command run unasked', async () => {
    const { ws, trace, planFile, args } = setup(server().baseUrl);
    writeFileSync(planFile, JSON.stringify(PLAN));
    server().setHandler(
      route({
        executor: byStep({
          [WRITE_STEP]: [
            toolCalls(call('write_file', { path: 'src/date.js', content: 'exports.parseDate = (s) => new Date(s);\n' })),
            message('Wrote src/date.js.'),
          ],
          [TEST_STEP]: [toolCalls(call('run_command', { command: 'node run-tests.js' })), message('The tests pass.')],
        }),
        aggregator: message('Done.'),
      }),
    );
    const result = await cli(['run', ...args, '--plan', planFile, '--approve', 'plan']);
    assert.equal(result.code, 0, result.stderr);
    const events = readTraceSync(trace).events;
    assert.equal(
      server().requests.some((r) => r.purpose === 'planner'),
      false,
      'the planner is not called',
    );
    const requested = events.filter((e) => e.type === 'plan_approval_requested');
    assert.equal(requested.length, 1);
    const answered = events.find((e): e is Extract<RunEvent, { type: 'plan_approval_answered' }> => e.type === 'plan_approval_answered');
    assert.deepEqual([answered?.approved, answered?.source], [true, 'cli --approve plan']);
    assert.equal(approvalsOf(events).length, 0, 'no call asked: the write, the command and the check command are in scope');
    assert.equal(driftsOf(events).length, 0);
    assert.equal(readFileSync(join(ws, 'src/date.js'), 'utf8'), 'exports.parseDate = (s) => new Date(s);\n');
    // The steps carry their scopes in the trace.
    const added = events.filter((e): e is Extract<RunEvent, { type: 'step_added' }> => e.type === 'step_added');
    assert.deepEqual(
      added.map((e) => e.scope),
      [{ write: ['src/**'] }, { commands: ['node run-tests.js'] }],
    );
    assert.ok(
      events.findIndex((e) => e.type === 'plan_approval_answered') < events.findIndex((e) => e.type === 'step_added'),
      'steps join the plan once approved',
    );
  });

  it('the same plan in the call mode asks for the command, denied without a terminal', async () => {
    const { trace, planFile, args } = setup(server().baseUrl);
    writeFileSync(planFile, JSON.stringify(PLAN));
    server().setHandler(
      route({
        executor: byStep({
          [WRITE_STEP]: [toolCalls(call('write_file', { path: 'src/date.js', content: 'x' })), message('Wrote src/date.js.')],
          [TEST_STEP]: [toolCalls(call('run_command', { command: 'node run-tests.js' })), message('Could not run the tests.')],
        }),
        replanner: json({ action: 'give_up', reason: 'denied' }),
        aggregator: message('Done.'),
      }),
    );
    const result = await cli(['run', ...args, '--plan', planFile]);
    assert.equal(result.code, 1);
    const events = readTraceSync(trace).events;
    assert.equal(events.filter((e) => e.type === 'plan_approval_requested').length, 0);
    assert.ok(approvalsOf(events).length >= 1);
  });

  it('drift: an out-of-scope write and an out-of-scope command ask (denied without a terminal) and are recorded', async () => {
    const { ws, trace, planFile, args } = setup(server().baseUrl);
    writeFileSync(planFile, JSON.stringify(PLAN));
    server().setHandler(
      route({
        executor: byStep({
          [WRITE_STEP]: [
            toolCalls(
              call('write_file', { path: 'src/date.js', content: 'exports.parseDate = 1;\n' }),
              call('write_file', { path: 'lib/extra.js', content: 'planted\n' }),
              call('run_command', { command: 'node run-tests.js --fast' }),
            ),
            message('Wrote src/date.js.'),
          ],
          [TEST_STEP]: [toolCalls(call('run_command', { command: 'node run-tests.js; touch pwned' })), message('The tests were not run.')],
        }),
        replanner: json({ action: 'give_up', reason: 'the command was denied' }),
        aggregator: message('Done.'),
      }),
    );
    const result = await cli(['run', ...args, '--plan', planFile, '--approve', 'plan']);
    const events = readTraceSync(trace).events;
    const drifts = driftsOf(events);
    assert.deepEqual(
      drifts.map((d) => [d.stepId, d.data.what]),
      [
        ['s1', 'writes lib/extra.js'],
        ['s1', 'runs `node run-tests.js --fast`'],
        ['s2', 'runs `node run-tests.js; touch pwned`'],
      ],
    );
    assert.deepEqual(drifts[0].data.scope, { write: ['src/**'] });
    // Each drift asked a person; none ran.
    assert.equal(approvalsOf(events).length, 3);
    assert.equal(existsSync(join(ws, 'lib/extra.js')), false);
    assert.equal(existsSync(join(ws, 'pwned')), false);
    assert.equal(existsSync(join(ws, 'src/date.js')), true, 'the in-scope write ran');
    assert.match(result.stderr, /s1 ⚠ drift: writes lib\/extra\.js \(outside the approved scope\)/);
  });

  it('a widening replan without a terminal is denied: the step ends blocked with the reason', async () => {
    const { trace, planFile, args } = setup(server().baseUrl);
    writeFileSync(planFile, JSON.stringify(PLAN));
    server().setHandler(
      route({
        executor: byStep({
          [WRITE_STEP]: [message('I did nothing.')],
        }),
        replanner: json({
          action: 'redesign',
          new_steps: [
            { description: 'Write lib/date.js instead', expects: [{ changed: 'lib/date.js' }], scope: { write: ['lib/**'], commands: ['npm install moment'] } },
          ],
          new_dependencies: {},
        }),
        aggregator: message('Done.'),
      }),
    );
    const result = await cli(['run', ...args, '--plan', planFile, '--approve', 'plan']);
    assert.equal(result.code, 1);
    const events = readTraceSync(trace).events;
    const replanAsk = events.find(
      (e): e is Extract<RunEvent, { type: 'plan_approval_requested' }> => e.type === 'plan_approval_requested' && e.kind === 'replan',
    );
    assert.ok(replanAsk, 'the widening redesign asked');
    assert.deepEqual(replanAsk.widening, [{ index: 0, write: ['lib/**'], commands: ['npm install moment'] }]);
    const answer = events.find(
      (e): e is Extract<RunEvent, { type: 'plan_approval_answered' }> => e.type === 'plan_approval_answered' && e.requestId === replanAsk.requestId,
    );
    assert.deepEqual([answer?.approved, answer?.source], [false, 'cli no-tty']);
    const blocked = events.find(
      (e): e is Extract<RunEvent, { type: 'step_status_changed' }> => e.type === 'step_status_changed' && e.stepId === 's1' && e.status === 'blocked',
    );
    assert.match(blocked?.reason ?? '', /^plan_approval_denied: the redesign needs more than the approved plan \(write lib\/\*\*, run `npm install moment`\)/);
    assert.equal(events.filter((e) => e.type === 'subgraph_replaced').length, 0, 'nothing was redesigned');
  });

  it('a replan within the approved scopes goes on without asking', async () => {
    const { trace, planFile, args } = setup(server().baseUrl);
    writeFileSync(planFile, JSON.stringify(PLAN));
    server().setHandler(
      route({
        executor: byStep({
          [WRITE_STEP]: [message('I did nothing.')],
          'Write src/date.js again': [toolCalls(call('write_file', { path: 'src/date.js', content: 'x\n' })), message('Wrote src/date.js.')],
          'Run the tests of the date module again with node run-tests.js': [
            toolCalls(call('run_command', { command: 'node run-tests.js' })),
            message('Ran them.'),
          ],
        }),
        replanner: json({
          action: 'redesign',
          new_steps: [
            { description: 'Write src/date.js again', expects: [{ changed: 'src/date.js' }], scope: { write: ['src/date.js'] } },
            { description: 'Run the tests of the date module again with node run-tests.js', scope: { commands: ['node run-tests.js'] } },
          ],
          new_dependencies: { 1: [0] },
        }),
        aggregator: message('Done.'),
      }),
    );
    const result = await cli(['run', ...args, '--plan', planFile, '--approve', 'plan']);
    assert.equal(result.code, 0, result.stderr);
    const events = readTraceSync(trace).events;
    assert.equal(events.filter((e) => e.type === 'plan_approval_requested').length, 1, 'only the plan itself was asked');
    assert.equal(approvalsOf(events).length, 0);
  });

  it('cortex run --approve plan with the planner: the plan is approved once', async () => {
    const { trace, args } = setup(server().baseUrl);
    server().setHandler(
      route({
        planner: json({ title: PLAN.title, steps: PLAN.steps, dependencies: PLAN.dependencies }),
        executor: byStep({
          [WRITE_STEP]: [toolCalls(call('write_file', { path: 'src/date.js', content: 'x\n' })), message('Wrote src/date.js.')],
          [TEST_STEP]: [toolCalls(call('run_command', { command: 'node run-tests.js' })), message('Ran them.')],
        }),
        aggregator: message('Done.'),
      }),
    );
    const result = await cli(['run', ...args, '--approve', 'plan', 'add parseDate']);
    assert.equal(result.code, 0, result.stderr);
    const events = readTraceSync(trace).events;
    assert.equal(events.filter((e) => e.type === 'plan_approval_requested').length, 1);
    assert.equal(approvalsOf(events).length, 0);
  });

  it('cortex.approval.mode "plan" without a terminal or flag: the plan is denied and nothing runs', async () => {
    const { ws, trace, args } = setup(server().baseUrl);
    const config = args[args.indexOf('--config') + 1];
    writeFileSync(config, JSON.stringify({ ...JSON.parse(readFileSync(config, 'utf8')), 'cortex.approval.mode': 'plan' }));
    server().setHandler(route({ planner: json({ title: PLAN.title, steps: PLAN.steps, dependencies: PLAN.dependencies }) }));
    const result = await cli(['run', ...args, 'add parseDate']);
    assert.equal(result.code, 1);
    assert.match(result.stderr, /The plan was not approved: no terminal to ask for approval of the plan \(use --approve plan\)/);
    const events = readTraceSync(trace).events;
    assert.equal(events.filter((e) => e.type === 'step_added').length, 0);
    assert.equal(existsSync(join(ws, 'src')), false);
  });

  it('a run interrupted while its plan waited: the resume plans again and asks again', async () => {
    const { ws, trace, args } = setup(server().baseUrl);
    const config = args[args.indexOf('--config') + 1];
    writeFileSync(config, JSON.stringify({ ...JSON.parse(readFileSync(config, 'utf8')), 'cortex.approval.mode': 'plan' }));
    const started = { seq: 0, time: 1, type: 'run_started', runId: 'run-x', task: 'add parseDate', workspace: ws, model: 'm', baseUrl: server().baseUrl };
    const asked = {
      seq: 1,
      time: 2,
      type: 'plan_approval_requested',
      requestId: 'old',
      kind: 'plan',
      steps: [{ description: 'old step', dependsOn: [] }],
      attempt: 1,
    };
    writeFileSync(trace, `${JSON.stringify(started)}\n${JSON.stringify(asked)}\n`);
    server().setHandler(
      route({
        planner: json({ title: PLAN.title, steps: PLAN.steps, dependencies: PLAN.dependencies }),
        executor: byStep({
          [WRITE_STEP]: [toolCalls(call('write_file', { path: 'src/date.js', content: 'x\n' })), message('Wrote src/date.js.')],
          [TEST_STEP]: [toolCalls(call('run_command', { command: 'node run-tests.js' })), message('Ran them.')],
        }),
        aggregator: message('Done.'),
      }),
    );
    const result = await cli(['resume', '--trace', trace, '--workspace', ws, '--config', config, '--approve', 'all']);
    assert.equal(result.code, 0, result.stderr);
    const events = readTraceSync(trace).events;
    const answers = events.filter((e): e is Extract<RunEvent, { type: 'plan_approval_answered' }> => e.type === 'plan_approval_answered');
    assert.equal(answers.length, 1);
    assert.notEqual(answers[0].requestId, 'old');
    const finished = events.find((e): e is Extract<RunEvent, { type: 'run_finished' }> => e.type === 'run_finished');
    assert.deepEqual(
      finished?.plan.planApprovals?.map((request) => request.state),
      ['withdrawn', 'approved'],
    );
  });

  it('cortex resume --approve plan: the approved plan keeps its scopes, so its in-scope command runs unasked (call mode: asked, denied)', async () => {
    const { ws, trace, planFile, args } = setup(server().baseUrl);
    writeFileSync(planFile, JSON.stringify(PLAN));
    server().setHandler(
      route({
        executor: byStep({
          [WRITE_STEP]: [toolCalls(call('write_file', { path: 'src/date.js', content: 'x\n' })), message('Wrote src/date.js.')],
          [TEST_STEP]: [toolCalls(call('run_command', { command: 'node run-tests.js' })), message('The tests pass.')],
        }),
        aggregator: message('Done.'),
      }),
    );
    assert.equal((await cli(['run', ...args, '--plan', planFile, '--approve', 'plan'])).code, 0);
    // Cut the trace right after the approved steps joined the plan: a run interrupted before any step started.
    const lines = readFileSync(trace, 'utf8').trimEnd().split('\n');
    const lastAdded = lines.map((line) => JSON.parse(line).type).lastIndexOf('step_added');
    const cut = `${lines.slice(0, lastAdded + 1).join('\n')}\n`;
    const config = args[args.indexOf('--config') + 1];
    const resumeWith = async (approve: string) => {
      writeFileSync(trace, cut);
      const result = await cli(['resume', '--trace', trace, '--workspace', ws, '--config', config, '--approve', approve]);
      return { result, events: readTraceSync(trace).events.slice(lastAdded + 1) };
    };

    const plan = await resumeWith('plan');
    assert.equal(plan.result.code, 0, plan.result.stderr);
    assert.equal(approvalsOf(plan.events).length, 0, 'the command and the check are inside the approved scope');
    assert.equal(plan.events.filter((e) => e.type === 'plan_approval_requested').length, 0, 'the plan was approved before');
    assert.equal(driftsOf(plan.events).length, 0);

    const none = await resumeWith('none');
    assert.notEqual(none.result.code, 0);
    assert.ok(approvalsOf(none.events).length > 0, 'in the call mode the command asks (denied by --approve none)');
  });

  describe('invalid plan files: exit 2, nothing asked of the model, the error names the step and the field', () => {
    const cases: Array<[string, (file: string, ws: string) => void, RegExp]> = [
      [
        'a scope that leaves the workspace',
        (f) => writeFileSync(f, JSON.stringify({ ...PLAN, steps: [PLAN.steps[0], { ...PLAN.steps[1], scope: { write: ['../x'] } }] })),
        /is not a valid plan: steps\[1\]\.scope: "write"\[0\]: the glob "\.\.\/x" leaves the workspace/,
      ],
      [
        'an unknown key in a scope',
        (f) => writeFileSync(f, JSON.stringify({ ...PLAN, steps: [{ ...PLAN.steps[0], scope: { reads: ['x'] } }] })),
        /steps\[0\]\.scope: unknown key "reads" in a scope/,
      ],
      [
        'a bad check',
        (f) => writeFileSync(f, JSON.stringify({ ...PLAN, steps: [{ ...PLAN.steps[0], expects: [{ changed: '/etc/passwd' }] }] })),
        /steps\[0\]\.expects\[0\]/,
      ],
      ['a dependency cycle', (f) => writeFileSync(f, JSON.stringify({ ...PLAN, dependencies: { 0: [1], 1: [0] } })), /cycle/],
      ['no task', (f) => writeFileSync(f, JSON.stringify({ ...PLAN, task: undefined })), /"task" must be the task/],
      ['not JSON', (f) => writeFileSync(f, 'steps: [write things]'), /is not valid JSON/],
      ['prose around the JSON', (f) => writeFileSync(f, `Here is the plan: ${JSON.stringify(PLAN)}`), /is not valid JSON/],
      ['a file too large', (f) => writeFileSync(f, ' '.repeat(1024 * 1024 + 1)), /more than the 1 MiB one may hold; it was not read/],
      ['a folder', (f) => mkdirSync(f), /is a directory, not a regular file/],
      ['missing', () => undefined, /does not exist/],
    ];
    for (const [name, make, expected] of cases)
      it(name, async () => {
        const { ws, planFile, args } = setup(server().baseUrl);
        make(planFile, ws);
        const result = await cli(['run', ...args, '--plan', planFile, '--approve', 'plan']);
        assert.equal(result.code, 2, result.stderr);
        assert.match(result.stderr, expected);
        assert.equal(server().requests.length, 0);
      });

    it('a symbolic link to a plan is followed (the person named it); the plan inside is still checked', async () => {
      const { ws, planFile, args } = setup(server().baseUrl);
      writeFileSync(planFile, JSON.stringify({ ...PLAN, steps: [{ ...PLAN.steps[0], scope: { write: ['/abs'] } }] }));
      const link = join(ws, '..', `link-${Date.now()}.json`);
      symlinkSync(planFile, link);
      const result = await cli(['run', ...args, '--plan', link]);
      assert.equal(result.code, 2);
      assert.match(result.stderr, /steps\[0\]\.scope: "write"\[0\]: the glob "\/abs" must be relative/);
    });
  });

  it('usage: --plan with a task, --out on run, --approve on plan', async () => {
    assert.match((await cli(['run', '--plan', 'p.json', 'task'])).stderr, /cortex run --plan FILE takes no task/);
    assert.match((await cli(['run', '--out', 'p.json', 'task'])).stderr, /--out is an option of cortex plan/);
    assert.match((await cli(['plan', 'task'])).stderr, /missing --out FILE/);
    assert.match((await cli(['plan', '--out', 'p.json', '--approve', 'plan', 'task'])).stderr, /cortex plan runs nothing/);
    assert.match((await cli(['run', '--approve', 'some', 'task'])).stderr, /--approve must be "all", "none" or "plan"/);
  });
});
