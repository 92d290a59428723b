import assert from 'node:assert/strict';
import { parsePlannerReply, PlanReplyError } from '../../../src/core/agent/planParsing';
import { parseReplanReply } from '../../../src/core/agent/replanPrompt';
import { initialPlanEvents } from '../../../src/core/plan/planOperations';
import { foldEvents } from '../../../src/core/plan/reducer';
import { createPlanState } from '../../../src/core/plan/reducer';
import { RunEventSchema } from '../../../src/core/plan/events';
import { describeCheck, StepExpectsSchema } from '../../../src/core/plan/stepChecks';
import { buildStepMessages } from '../../../src/core/agent/stepPrompt';

function planWith(expects: unknown): string {
  return JSON.stringify({ title: 't', steps: [{ description: 'do it', expects }], dependencies: {} });
}

function refused(content: string, text: RegExp): void {
  assert.throws(
    () => parsePlannerReply(content),
    (error: unknown) => {
      assert.ok(error instanceof PlanReplyError, String(error));
      assert.equal(error.kind, 'shape');
      assert.match(error.message, text);
      return true;
    },
  );
}

describe('step postconditions in the plan (docs/design.md, “The planner”)', () => {
  it('accepts every check kind with exactly its keys, next to plain description steps', () => {
    const checks = [
      { changed: 'test/*.test.js' },
      { exists: 'src/a.ts' },
      { absent: 'tmp/out.log' },
      { contains: 'src/a.ts', text: 'parseDate' },
      { contains: './src/a.ts', pattern: '^export function \\w+' },
      { command: 'npm test', exit: 0 },
      { called: 'read_file' },
      { answer: '\\d+ tests? pass' },
    ];
    const plan = parsePlannerReply(
      JSON.stringify({
        title: 't',
        steps: ['plain', { description: ' checked ', expects: checks }, { description: 'pure', expects: [] }],
        dependencies: { 1: [0] },
      }),
    );
    assert.deepEqual(plan.steps, ['plain', 'checked', 'pure']);
    assert.deepEqual(plan.expects, [undefined, checks, []]);
    assert.deepEqual(plan.dependencies, { 1: [0] });
  });

  it('a plan of plain strings has no expects at all (the form of earlier plans)', () => {
    assert.equal('expects' in parsePlannerReply('{"title":"t","steps":["a"]}'), false);
  });

  it('refuses unknown keys, several kinds, wrong types, bad regexes and paths outside the workspace, with a clear reason', () => {
    refused(planWith([{ file: 'a.ts' }]), /unknown check \(keys "file"\): a check is one of changed, exists/);
    refused(planWith([{ changed: 'a.ts', extra: 1 }]), /unknown key "extra" in a "changed" check/);
    refused(planWith([{ changed: 'a.ts', exists: 'b.ts' }]), /exactly one kind, this one has changed and exists/);
    refused(planWith([{ contains: 'a.ts' }]), /needs exactly one of "text" \(a literal\) or "pattern"/);
    refused(planWith([{ contains: 'a.ts', text: 'x', pattern: 'y' }]), /needs exactly one of "text"/);
    refused(planWith([{ command: 'npm test', exit: '0' }]), /"exit": "exit" must be a number/);
    refused(planWith([{ command: 'npm test', exit: 1.5 }]), /"exit" must be a whole number/);
    refused(planWith([{ answer: '(unclosed' }]), /"\(unclosed" is not a valid regular expression/);
    refused(planWith([{ contains: 'a.ts', pattern: '[z-a]' }]), /not a valid regular expression/);
    refused(planWith([{ exists: '/etc/passwd' }]), /the path "\/etc\/passwd" must be relative to the workspace/);
    refused(planWith([{ absent: 'src/../../x' }]), /leaves the workspace/);
    refused(planWith([{ changed: 'C:\\\\x' }]), /must be relative to the workspace/);
    refused(planWith('all'), /"expects" must be a list of checks/);
    refused(planWith(['changed a.ts']), /a check must be an object/);
    refused(
      JSON.stringify({ title: 't', steps: [{ description: 'x', expect: [] }] }),
      /unknown key "expect" \(a step has "description", "expects", "scope" and "dependsOn"\)/,
    );
    refused(JSON.stringify({ title: 't', steps: [{ expects: [] }] }), /steps\[0\]\.description/);
  });

  it("the replanner's new_steps take the same form, checked the same way", () => {
    const reply = parseReplanReply(
      JSON.stringify({ action: 'redesign', new_steps: ['a', { description: 'b', expects: [{ changed: 'b.txt' }] }], new_dependencies: { 1: [0] } }),
    );
    assert.deepEqual(reply.new_steps, ['a', 'b']);
    assert.deepEqual(reply.new_expects, [undefined, [{ changed: 'b.txt' }]]);
    assert.throws(
      () => parseReplanReply(JSON.stringify({ action: 'redesign', new_steps: [{ description: 'b', expects: [{ called: 3 }] }] })),
      /a tool name must be a string/,
    );
  });

  it("step_added records each step's expects, and the reducer and the trace schema keep them", () => {
    const plan = parsePlannerReply(planWith([{ exists: 'a.txt' }]));
    let n = 0;
    const events = initialPlanEvents(createPlanState(), plan, () => `s${++n}`).map((event, seq) => ({ ...event, seq, time: seq }));
    const added = events.find((e) => e.type === 'step_added');
    assert.deepEqual(added && 'expects' in added ? added.expects : undefined, [{ exists: 'a.txt' }]);
    const reread = events.map((event) => RunEventSchema.parse(JSON.parse(JSON.stringify(event))));
    assert.deepEqual(foldEvents(reread).steps.get('s1')?.expects, [{ exists: 'a.txt' }]);
  });

  it('a trace whose expects were tampered with does not load as valid', () => {
    const bad = {
      seq: 0,
      time: 0,
      type: 'step_added',
      stepId: 's1',
      description: 'd',
      dependsOn: [],
      lineage: 's1',
      replanAttempts: 0,
      origin: 'planner',
      expects: [{ exists: '../../etc/passwd' }],
    };
    assert.equal(RunEventSchema.safeParse(bad).success, false);
    assert.equal(StepExpectsSchema.safeParse([{ answer: 'ok' }]).success, true);
  });

  it("the executor is told its step's checks; a step without expects gets no such line", () => {
    const plan = parsePlannerReply(
      JSON.stringify({ title: 't', steps: [{ description: 'test it', expects: [{ command: 'npm test', exit: 0 }, { changed: 'test/*.js' }] }, 'plain'] }),
    );
    let n = 0;
    const state = foldEvents(initialPlanEvents(createPlanState(), plan, () => `s${++n}`).map((event, seq) => ({ ...event, seq, time: seq })));
    const checked = JSON.stringify(buildStepMessages(state, 's1'));
    assert.match(checked, /the verifier checks \(against what really happened\):\\n- `npm test` exits 0\\n- changed test\/\*\.js/);
    assert.doesNotMatch(JSON.stringify(buildStepMessages(state, 's2')), /the verifier checks/);
  });

  it('describes each check in one line', () => {
    assert.equal(describeCheck({ command: 'npm test', exit: 0 }), '`npm test` exits 0');
    assert.equal(describeCheck({ contains: 'a.ts', text: 'x' }), 'a.ts contains "x"');
    assert.equal(describeCheck({ changed: 'src/**' }), 'changed src/**');
  });
});
