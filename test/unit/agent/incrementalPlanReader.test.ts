import assert from 'node:assert/strict';
import { IncrementalPlanReader, type PlanPart } from '../../../src/core/agent/incrementalPlanReader';
import { parsePlannerReply, PlanReplyError, withStepDependsOn } from '../../../src/core/agent/planParsing';
import { StreamedPlanSteps } from '../../../src/core/agent/streamedPlanSteps';
import { EventLog } from '../../../src/core/plan/eventLog';
import type { EventOf } from '../../../src/core/plan/events';
import { StepIdAllocator } from '../../../src/core/plan/planOperations';
import { eventsOf } from '../../support/agentHarness';

// The streamed planner's reader (docs/design.md, “The planner”): parts of the plan object are told
// as soon as they are complete, however the text is cut, and steps join the plan only once settled.

/** All parts of `text` fed in the given pieces. */
function read(pieces: string[], reader = new IncrementalPlanReader()): PlanPart[] {
  return pieces.flatMap((piece) => reader.push(piece));
}

const steps = (parts: PlanPart[]) => parts.filter((p) => p.kind === 'step');

/** A plan whose texts hold escapes of every kind JSON has. */
const ESCAPED = {
  title: 'Quote "this" \\ and é',
  steps: [
    { description: 'Write "a.txt"\nwith a tab\there and a ✓ and \u0001', dependsOn: [] },
    { description: 'Back\\slash \u2028 and \ud83d\ude00', dependsOn: [0], expects: [{ contains: 'a.txt', pattern: '^\\s*"x"$' }] },
    'A plain string step',
  ],
};

describe('IncrementalPlanReader', () => {
  const text = JSON.stringify(ESCAPED);
  const whole = read([text]);

  it('tells the title, each step as it completes, the end of the steps and of the object', () => {
    assert.deepEqual(
      whole.map((p) => p.kind),
      ['title', 'step', 'step', 'step', 'steps_ended', 'object_ended'],
    );
    assert.deepEqual(whole[0], { kind: 'title', title: ESCAPED.title });
    assert.deepEqual(steps(whole)[1], {
      kind: 'step',
      index: 1,
      entry: { description: 'Back\\slash \u2028 and \ud83d\ude00', expects: [{ contains: 'a.txt', pattern: '^\\s*"x"$' }], dependsOn: [0] },
    });
    assert.deepEqual(steps(whole)[2], { kind: 'step', index: 2, entry: { description: 'A plain string step' } });
  });

  it('gives the same parts when the text is split at any position, including inside an escape or a surrogate pair', () => {
    // String.raw pieces: the split falls between a backslash and what it escapes too.
    for (let cut = 1; cut < text.length; cut++)
      assert.deepEqual(read([text.slice(0, cut), text.slice(cut)]), whole, `split at ${cut}: ${JSON.stringify(text.slice(cut - 3, cut + 3))}`);
    assert.deepEqual(read([...text]), whole, 'one character at a time');
  });

  it('does not tell a step whose object is split across chunks until its closing brace arrives', () => {
    const reader = new IncrementalPlanReader();
    const start = text.indexOf('{"description":"Back');
    const end = text.indexOf('}]}', start) + 3;
    assert.deepEqual(
      steps(reader.push(text.slice(0, start + 10))).map((p) => p.index),
      [0],
    );
    assert.deepEqual(steps(reader.push(text.slice(start + 10, end - 1))), []);
    assert.deepEqual(
      steps(reader.push(text.slice(end - 1, end))).map((p) => p.index),
      [1],
    );
  });

  it('ignores what follows the plan object (garbage after the JSON)', () => {
    const reader = new IncrementalPlanReader();
    const parts = read([text.slice(0, 20), text.slice(20) + '\n```\nThat is all. {"steps": ["x"]} ] } "'], reader);
    assert.deepEqual(parts, whole);
    assert.equal(reader.finished, true);
    assert.equal(reader.stopped, undefined);
    assert.deepEqual(reader.push('{"title": "another"}'), []);
  });

  it('skips a reasoning block, a code fence line and a sentence before the object', () => {
    const parts = read(['<think>maybe {"steps": ["no"]} first', '</think>\nHere it is:\n```json\n', text, '\n```']);
    assert.deepEqual(parts, whole);
  });

  it('stops telling (and leaves the decision to the end) on an invalid entry or unreadable text', () => {
    const bad = new IncrementalPlanReader();
    const parts = read(['{"steps": ["ok", {"description": "x", "file": "y"}, "later"]}'], bad);
    assert.deepEqual(
      steps(parts).map((p) => p.index),
      [0],
    );
    assert.match(bad.stopped ?? '', /steps\[1\] is not a valid step/);
    const prose = new IncrementalPlanReader();
    read(['Use {braces} like this: ', text], prose);
    assert.match(prose.stopped ?? '', /could not be read/);
  });

  it('stops past the step limit', () => {
    const reader = new IncrementalPlanReader(2);
    assert.deepEqual(
      steps(read([text], reader)).map((p) => p.index),
      [0, 1],
    );
    assert.match(reader.stopped ?? '', /more than 2 steps/);
  });
});

describe('StreamedPlanSteps', () => {
  function streamed(pieces: string[]) {
    const log = new EventLog();
    const added: string[] = [];
    log.subscribe((e) => {
      if (e.type === 'step_added') added.push(`${e.stepId}<${e.dependsOn.join(',')}>`);
    });
    const builder = new StreamedPlanSteps(log, new StepIdAllocator('s'));
    const reader = new IncrementalPlanReader();
    const after: string[][] = [];
    for (const piece of pieces) {
      for (const part of reader.push(piece)) builder.take(part);
      after.push([...added]);
    }
    return { log, builder, after };
  }

  it('adds each step as its entry completes when it carries its own dependsOn', () => {
    const { after, log } = streamed([
      '{"title": "T", "steps": [{"description": "a", "dependsOn": []},',
      ' {"description": "b", "dependsOn": [0]},',
      ' {"description": "c", "dependsOn": [0, 1]}',
      ']}',
    ]);
    assert.deepEqual(after, [['s1<>'], ['s1<>', 's2<s1>'], ['s1<>', 's2<s1>', 's3<s1,s2>'], ['s1<>', 's2<s1>', 's3<s1,s2>']]);
    assert.equal(log.state.title, 'T');
  });

  it('lets a step naming a later step (a forward dependency) wait for it; ids follow the entries', () => {
    const { after } = streamed(['{"steps": [{"description": "a", "dependsOn": [1]},', ' {"description": "b", "dependsOn": []}', ']}']);
    assert.deepEqual(after, [[], ['s2<>', 's1<s2>'], ['s2<>', 's1<s2>']]);
  });

  it('streams a top-level "dependencies" written before the steps; one written after them holds steps without dependsOn until it arrives', () => {
    const before = streamed(['{"dependencies": {"1": [0]}, "steps": ["a",', ' "b",', ' "c"]}']);
    assert.deepEqual(before.after, [['s1<>'], ['s1<>', 's2<s1>'], ['s1<>', 's2<s1>', 's3<>']]);
    const after = streamed(['{"steps": ["a",', ' "b"],', ' "dependencies": {"1": [0]}', '}']);
    assert.deepEqual(after.after, [[], [], ['s1<>', 's2<s1>'], ['s1<>', 's2<s1>']]);
  });

  it('leaves the steps of a late cycle out, and the whole reply is then refused', () => {
    const reply = '{"steps": [{"description": "a", "dependsOn": []}, {"description": "b", "dependsOn": [2]}, {"description": "c", "dependsOn": [1]}]}';
    const { after, builder } = streamed([reply]);
    assert.deepEqual(after, [['s1<>']]);
    assert.deepEqual(builder.addedIds, ['s1']);
    assert.throws(
      () => parsePlannerReply(reply),
      (e: unknown) => e instanceof PlanReplyError && e.kind === 'cycle',
    );
  });

  it('finds where the whole plan disagrees with the steps already added, and completes one that agrees', () => {
    // s2 was added after s1 (its own dependsOn) but the top-level dependencies at the end add step 2.
    const reply = '{"steps": [{"description": "a", "dependsOn": []}, {"description": "b", "dependsOn": [0]}, "c"], "dependencies": {"1": [2]}}';
    const late = streamed([reply]);
    const plan = parsePlannerReply(reply);
    assert.match(late.builder.disagreement(plan) ?? '', /step 1 started after steps \[0\], but the plan makes it wait for \[0, 2\]/);

    const good = '{"title": "G", "steps": [{"description": "a", "dependsOn": []}, "b", {"description": "c", "dependsOn": [0]}]}';
    const partial = streamed([good.slice(0, good.indexOf('"b"'))]);
    assert.deepEqual(partial.after.at(-1), ['s1<>']);
    const whole = parsePlannerReply(good);
    assert.equal(partial.builder.disagreement(whole), undefined);
    partial.builder.complete(whole);
    const events = partial.log.events.filter((e): e is EventOf<'step_added'> => e.type === 'step_added');
    assert.deepEqual(
      events.map((e) => [e.stepId, e.description, e.dependsOn]),
      [
        ['s1', 'a', []],
        ['s2', 'b', []],
        ['s3', 'c', ['s1']],
      ],
    );
    // Partial while it streamed, whole at the end (a resumed run plans again after a partial one).
    assert.deepEqual(
      eventsOf(partial.log.events, 'plan_created').map((e) => [e.title, e.partial]),
      [
        ['G', true],
        ['G', undefined],
      ],
    );
    assert.equal(partial.log.state.planPartial, undefined);
  });
});

describe('planParsing: a step\'s own "dependsOn"', () => {
  it('is merged with the top-level dependencies and checked the same way', () => {
    const plan = parsePlannerReply(
      '{"steps": ["a", {"description": "b", "dependsOn": [0]}, {"description": "c", "dependsOn": "1"}], "dependencies": {"2": [0]}}',
    );
    assert.deepEqual(plan.dependencies, { 1: [0], 2: [0, 1] });
    assert.deepEqual(withStepDependsOn([{ description: 'x', dependsOn: [1] }, { description: 'y' }], {}), { '0': [1] });
    assert.throws(
      () => parsePlannerReply('{"steps": [{"description": "a", "dependsOn": [5]}]}'),
      (e: unknown) => e instanceof PlanReplyError && e.kind === 'dangling',
    );
    assert.throws(
      () => parsePlannerReply('{"steps": [{"description": "a", "dependsOn": [0]}]}'),
      (e: unknown) => e instanceof PlanReplyError && e.kind === 'self_dependency',
    );
  });
});
