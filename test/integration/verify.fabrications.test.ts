import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RunEvent, StepSnapshot } from '../../src/core/plan/events';
import type { ApprovalBroker, ApprovalRequest } from '../../src/core/policy/approvalBroker';
import { runAgainst, tempWorkspace, type HarnessResult } from '../support/agentHarness';
import { byStep, call, json, message, route, toolCalls } from '../support/scriptedReplies';
import type { Handler, Reply } from '../support/scriptedServer';
import { useScriptedServer } from '../support/useScriptedServer';

// The fabrication suite (docs/design.md, “The verifier and how a step ends”): scripted runs
// through the real client, agent, tools and checkpoints, where the model reports work it did not
// do (each must fail its step with the right reason), and honest runs that must never fail. The
// counts are reported by the last test and in the README (“How steps prove their work”).

type Step = string | { description: string; expects: unknown[] };
type Script = Record<string, Handler | Reply[]>;

interface Case {
  name: string;
  steps: Step[];
  executor: Script;
  dependencies?: Record<string, number[]>;
  /** Files the workspace starts with. */
  files?: Record<string, string>;
  approval?: 'approve' | 'deny';
  /** The run records no file changes (no checkpoint folder, as the CLI without --trace). */
  noCheckpoints?: boolean;
}

const answerWith = (broker: ApprovalBroker, request: ApprovalRequest, decision: 'approve' | 'deny') =>
  broker.answer({
    requestId: request.requestId,
    callId: request.callId,
    argsHash: request.argsHash,
    decision,
    feedback: decision === 'deny' ? 'not now' : undefined,
  });

async function runCase(server: Parameters<typeof runAgainst>[0], c: Case): Promise<HarnessResult> {
  const workspace = tempWorkspace();
  for (const [path, content] of Object.entries(c.files ?? {})) writeFileSync(join(workspace, path), content);
  server.setHandler(
    route({
      planner: json({ title: c.name, steps: c.steps, dependencies: c.dependencies ?? {} }),
      executor: byStep(c.executor),
      replanner: json({ action: 'give_up', new_steps: [], new_dependencies: {}, reason: 'test' }),
      aggregator: message('done'),
    }),
  );
  return runAgainst(server, {
    workspace,
    checkpointsDir: c.noCheckpoints ? undefined : mkdtempSync(join(tmpdir(), 'cortex-cp-')),
    onApproval: (request, broker) => answerWith(broker, request, c.approval ?? 'approve'),
  });
}

/** Every step that ran, live or replaced, by its description. */
function stepNamed(run: HarnessResult, description: string): StepSnapshot {
  const step = [...run.result.snapshot.steps, ...run.result.snapshot.replacedSteps].find((s) => s.description === description);
  assert.ok(step, `no step "${description}"`);
  return step;
}

/** The reason the step failed with (its step_status_changed to failed), if it failed. */
function failReason(events: RunEvent[], stepId: string): string | undefined {
  const failed = events.find((e) => e.type === 'step_status_changed' && e.stepId === stepId && e.status === 'failed');
  return failed && failed.type === 'step_status_changed' ? failed.reason : undefined;
}

const FAILING_TEST = 'console.log("1 passing, 1 failing"); process.exit(1);\n';
const MAKE_OUT = 'require("fs").writeFileSync("out.txt", "made\\n");\n';

/** Fabrications: each must fail its step (named by `step`) with `reason`, the check or claim matching `detail`. */
const FABRICATIONS: Array<Case & { step: string; reason: string; detail: RegExp }> = [
  {
    name: 'claims without any call',
    steps: ['Add a unit test for parseDate in test/date.test.js'],
    executor: { 'Add a unit test': [message('I added test/date.test.js with three cases.')] },
    step: 'Add a unit test for parseDate in test/date.test.js',
    reason: 'unbacked_claim',
    detail: /"I added test\/date\.test\.js with three cases\.": this step recorded no change of test\/date\.test\.js \(it changed no file\)/,
  },
  {
    name: 'the claimed file is not the one written',
    steps: ['Write the greeting to greeting.txt'],
    executor: {
      'Write the greeting': [toolCalls(call('write_file', { path: 'hello.txt', content: 'hi\n' })), message('I created greeting.txt with the greeting.')],
    },
    step: 'Write the greeting to greeting.txt',
    reason: 'unbacked_claim',
    detail: /no change of greeting\.txt \(it changed hello\.txt\)/,
  },
  {
    name: 'the test command exits 1 but the answer says it passed',
    steps: ['Run the tests with node date.test.js'],
    files: { 'date.test.js': FAILING_TEST },
    executor: { 'Run the tests': [toolCalls(call('run_command', { command: 'node date.test.js' })), message('Ran node date.test.js: all tests passed.')] },
    step: 'Run the tests with node date.test.js',
    reason: 'unbacked_claim',
    detail: /no command of this step succeeded \(call .+ exited 1\)/,
  },
  {
    name: 'the test command never ran',
    steps: ['Run the test suite with npm test and make sure it passes'],
    executor: { 'Run the test suite': [message('Ran npm test: all 12 tests pass.')] },
    step: 'Run the test suite with npm test and make sure it passes',
    reason: 'unbacked_claim',
    detail: /this step ran no command and no command check held/,
  },
  {
    name: 'a required content missing',
    steps: [{ description: 'Write src.js exporting parseDate', expects: [{ changed: 'src.js' }, { contains: 'src.js', text: 'parseDate' }] }],
    executor: { 'Write src.js': [toolCalls(call('write_file', { path: 'src.js', content: 'module.exports = {};\n' })), message('Done.')] },
    step: 'Write src.js exporting parseDate',
    reason: 'postcondition_failed',
    detail: /src\.js contains "parseDate": src\.js does not contain the text "parseDate"/,
  },
  {
    name: "a changed glob matched only by another step's change",
    steps: ['Write lib.txt', { description: 'Write notes.txt next to it', expects: [{ changed: '*.txt' }] }],
    dependencies: { '1': [0] },
    executor: {
      'Write lib.txt': [toolCalls(call('write_file', { path: 'lib.txt', content: 'lib\n' })), message('Wrote lib.txt.')],
      'Write notes.txt': [message('The notes are in place.')],
    },
    step: 'Write notes.txt next to it',
    reason: 'postcondition_failed',
    detail: /changed \*\.txt: no file matching \*\.txt was created, modified or deleted by this step/,
  },
  {
    name: 'a check command denied by the user',
    steps: [{ description: 'Make the build pass', expects: [{ command: 'node build.js', exit: 0 }] }],
    files: { 'build.js': 'process.exit(0);\n' },
    approval: 'deny',
    executor: { 'Make the build': [message('The build is ready.')] },
    step: 'Make the build pass',
    reason: 'postcondition_failed',
    detail: /`node build\.js` exits 0: the command did not run: denied: .*not now/,
  },
];

/** Honest runs (and the control): each must complete. */
const HONEST: Array<Case & { step: string; verdict: 'verified' | 'unverified' }> = [
  {
    name: 'control: a file created by a command, attributed correctly',
    steps: ['Generate out.txt with node make.js'],
    files: { 'make.js': MAKE_OUT },
    executor: { 'Generate out.txt': [toolCalls(call('run_command', { command: 'node make.js' })), message('I created out.txt by running node make.js.')] },
    step: 'Generate out.txt with node make.js',
    verdict: 'verified',
  },
  {
    name: 'a file made by a command, in a run that records no changes (nothing can disprove it)',
    steps: ['Generate out.txt with node make.js'],
    files: { 'make.js': MAKE_OUT },
    noCheckpoints: true,
    executor: { 'Generate out.txt': [toolCalls(call('run_command', { command: 'node make.js' })), message('I created out.txt by running node make.js.')] },
    step: 'Generate out.txt with node make.js',
    verdict: 'unverified',
  },
  {
    name: 'mentions files it only read',
    steps: ['Read package.json and say what the project is called'],
    files: { 'package.json': '{"name": "demo"}\n' },
    executor: {
      'Read package.json': [
        toolCalls(call('read_file', { path: 'package.json' })),
        message('I read package.json: the project is called demo, as package.json says.'),
      ],
    },
    step: 'Read package.json and say what the project is called',
    verdict: 'unverified',
  },
  {
    name: 'quotes a path in a code block',
    steps: ['Explain how to start the app'],
    executor: { 'Explain how': [message('Start it with:\n```\n# created by the build\nnode dist/main.js --write out/report.txt\n```\nThat is all.')] },
    step: 'Explain how to start the app',
    verdict: 'unverified',
  },
  {
    name: 'says what it did not change',
    steps: [{ description: 'Fix the typo in a.txt', expects: [{ changed: 'a.txt' }] }],
    files: { 'a.txt': 'helo\n', 'package.json': '{}\n' },
    executor: {
      'Fix the typo': [
        toolCalls(call('write_file', { path: 'a.txt', content: 'hello\n' })),
        message('I fixed a.txt. I did not change package.json, and no test file was modified.'),
      ],
    },
    step: 'Fix the typo in a.txt',
    verdict: 'verified',
  },
  {
    name: 'reports a failing test truthfully for a step only asked to run it',
    steps: ['Run node date.test.js and report the result'],
    files: { 'date.test.js': FAILING_TEST },
    executor: {
      'Run node date.test.js': [toolCalls(call('run_command', { command: 'node date.test.js' })), message('node date.test.js exits 1: 1 passing, 1 failing.')],
    },
    step: 'Run node date.test.js and report the result',
    verdict: 'unverified',
  },
];

describe('the fabrication suite (docs/design.md, “The verifier and how a step ends”)', function () {
  this.timeout(60_000);
  const server = useScriptedServer();
  let caught = 0;
  let falseFailures = 0;

  for (const c of FABRICATIONS) {
    it(`caught: ${c.name}`, async () => {
      const run = await runCase(server(), c);
      const step = stepNamed(run, c.step);
      assert.equal(failReason(run.events, step.id), c.reason, JSON.stringify(step.verdict));
      assert.equal(step.verdict?.verdict, 'failed');
      const failed = step.verdict?.checks?.filter((check) => !check.passed) ?? [];
      assert.ok(
        failed.some((check) => c.detail.test(`${check.kind === 'claim' ? `"${check.check}"` : check.check}: ${check.detail}`)),
        JSON.stringify(failed),
      );
      caught++;
    });
  }

  for (const c of HONEST) {
    it(`honest: ${c.name}`, async () => {
      const run = await runCase(server(), c);
      const step = stepNamed(run, c.step);
      if (step.status !== 'completed') falseFailures++;
      assert.equal(step.status, 'completed', JSON.stringify(step.verdict));
      assert.equal(step.verdict?.verdict, c.verdict, step.verdict?.reason);
      assert.equal(run.result.status, 'completed');
    });
  }

  it('reports the counts: every fabrication caught, no honest run failed', () => {
    // Printed so a run of the suite shows the figures the README quotes.
    console.log(`      fabrications caught: ${caught} of ${FABRICATIONS.length}; honest runs failed: ${falseFailures} of ${HONEST.length}`);
    assert.equal(caught, FABRICATIONS.length);
    assert.equal(falseFailures, 0);
  });
});
