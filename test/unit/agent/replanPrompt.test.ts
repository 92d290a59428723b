import assert from 'node:assert/strict';
import { PlanReplyError } from '../../../src/core/agent/planParsing';
import { buildReplanMessages, parseReplanReply, ReplanResultSchema } from '../../../src/core/agent/replanPrompt';
import { addStepsEvents, nextReplan, replanLimitEvents, replanOutcomeEvents, startStepEvent, StepIdAllocator } from '../../../src/core/plan/planOperations';
import { appendAll, assertStatuses, completeExampleUpstream, examplePlan, newLog, runStep, sid } from '../plan/planFixtures';

const TOOLS = [
  { name: 'read_file', description: 'Read a file.' },
  { name: 'write_file', description: 'Write a file.' },
];

/** The example plan: steps 0–4 done, step 5 claimed a write_file that never ran. */
function failedExample() {
  const { log, ids } = examplePlan();
  completeExampleUpstream(log);
  runStep(log, sid(5), [{ name: 'write_file', args: { path: 'src/api.py', content: 'app = ...' } }]);
  return { log, ids };
}

function userText(messages: ReturnType<typeof buildReplanMessages>): string {
  assert.equal(messages.length, 2);
  assert.equal(messages[0].role, 'system');
  assert.equal(messages[1].role, 'user');
  return messages[1].content as string;
}

describe('replanPrompt (docs/design.md, “The replanner”)', () => {
  describe('buildReplanMessages', () => {
    it('gives the full history of completed steps, the failed step with its pending call, the downstream and the tools', () => {
      const { log } = failedExample();
      const plan = nextReplan(log.state, sid(5), 2);
      const text = userText(buildReplanMessages(log.state, sid(5), plan.stepsToReplan, TOOLS, { maxAttempts: 2 }));
      const sections = text.split('\n\n---\n\n');
      assert.deepEqual(
        sections.map((s) => s.split('\n')[0]),
        [
          '## Task',
          '## Completed steps (full record)',
          '## Failed step and its downstream (to redesign)',
          '## Available tools',
          '## Redesign steps s6, s7, s8',
        ],
      );
      assert.match(sections[0], /Build a REST API\n\nPlan: REST API/);
      // Every completed step, every call with its real result (not a summary).
      for (const line of [
        '### Step s1: Analyse requirements\nTool calls:\n- read_file(path="requirements.md") → "Need a REST API..."\nOutput: "requirements read"',
        '- create_directory(path="src/") → "Directory created"\n- create_directory(path="tests/") → "Directory created"',
        '### Step s3: Plan the database\nTool calls: (none)\nOutput: "use sqlite"',
        '- write_file(path="src/models.py", content="class User: ...") → "File written"',
        '- run_command(command="python -c \'import sqlalchemy\'") → "OK"',
      ]) {
        assert.ok(sections[1].includes(line), `missing:\n${line}`);
      }
      assert.match(
        sections[2],
        /^## Failed step and its downstream \(to redesign\)\n\n### Step s6: Write API endpoints \[FAILED\]\nWhy it failed: 1 of 1 tool call never got a result: write_file \(call_\d+, pending\)\nTool calls:\n- write_file\(path="src\/api.py", content="app = ..."\) → status: "pending" ❌\n\n### Step s7: Write tests \(depends on: s6\)\n\n### Step s8: Run tests \(depends on: s6\)$/,
      );
      assert.equal(sections[3], '## Available tools\n- read_file: Read a file.\n- write_file: Write a file.');
      assert.match(sections[4], /rewrite 1 of at most 2/);
      assert.match(sections[4], /The steps to redesign relied on: s4, s5\. Name in "uses" those whose output a new step needs\./);
      // The action first and each step's own dependencies and uses, so a streamed redesign can start a step early.
      assert.match(
        messages0(log),
        /"action" first:\n\{"action": "redesign", "reason": "[^"]*", "new_steps": \[\{"description": "<new step 0>", "dependsOn": \[\], "uses": \[/,
      );
    });

    it('lists the other live steps, not to be changed', () => {
      // a → b → d ; a → c. a done, c running, b fails: b and d are redesigned, c is not.
      const log = newLog();
      const ids = new StepIdAllocator();
      appendAll(
        log,
        addStepsEvents(log.state, {
          descriptions: ['a', 'b', 'c', 'd'],
          dependencies: { 1: [0], 2: [0], 3: [1] },
          anchorDeps: [],
          origin: 'planner',
          newId: () => ids.next(),
        }),
      );
      runStep(log, 's1', [], { output: 'ok' });
      log.append(startStepEvent(log.state, 's3'));
      runStep(log, 's2', [{ name: 'write_file', args: { path: 'a' } }]);
      const plan = nextReplan(log.state, 's2', 2);
      assert.deepEqual(plan.stepsToReplan, ['s2', 's4']);
      const text = userText(buildReplanMessages(log.state, 's2', plan.stepsToReplan, TOOLS));
      assert.match(text, /## Other steps still in the plan \(not yours to change\)\n\n### Step s3: c \[in_progress\] \(depends on: s1\)\n\n---/);
      assert.match(text, /## Redesign steps s2, s4\n- You may merge/);
      assert.doesNotMatch(text, /rewrite \d of/, 'no attempt line without maxAttempts');
    });

    it('tells the model about earlier redesigns of the lineage; replaced steps are not completed work', () => {
      const { log, ids } = failedExample();
      appendAll(
        log,
        replanOutcomeEvents(log.state, {
          failedStepId: sid(5),
          decision: { action: 'redesign', newSteps: ['retry API', 'test'], newDependencies: { 1: [0] } },
          maxAttempts: 2,
          newId: () => ids.next(),
        }),
      );
      runStep(log, 's9', [{ name: 'write_file', args: { path: 'b' } }], { endReason: 'max_steps_exceeded' });
      const plan = nextReplan(log.state, 's9', 2);
      assert.deepEqual(plan.stepsToReplan, ['s9', 's10']);
      const text = userText(buildReplanMessages(log.state, 's9', plan.stepsToReplan, TOOLS, { maxAttempts: 2 }));
      assert.match(
        text,
        /## Earlier redesigns of this part of the plan\n- attempt 1: s6, s7, s8 replaced by s9, s10, because 1 of 1 tool call never got a result: write_file/,
      );
      assert.match(text, /Why it failed: .*the step ended because the tool loop hit its step limit \(max_steps_exceeded\)\n/);
      assert.match(text, /rewrite 2 of at most 2/);
      const completed = text.split('\n\n---\n\n')[1];
      assert.ok(completed.includes('### Step s5:'));
      assert.ok(!completed.includes('### Step s6:'), 'a replaced step is not shown as completed work');
    });

    it('refuses a failed step that is not live, or a list without it', () => {
      const { log } = failedExample();
      assert.throws(() => buildReplanMessages(log.state, 'ghost', ['ghost'], TOOLS), /not a live step/);
      assert.throws(() => buildReplanMessages(log.state, sid(5), [sid(6)], TOOLS), /must include the failed step s6/);
    });
  });

  describe('parseReplanReply (the replanner reply)', () => {
    it('parses a redesign of the example plan', () => {
      const reply = JSON.stringify({
        action: 'redesign',
        new_steps: ['API scaffold and routes', 'Endpoint logic', 'Unit tests and run them'],
        new_dependencies: { 0: [], 1: [0], 2: [1] },
      });
      assert.deepEqual(parseReplanReply(reply), {
        action: 'redesign',
        new_steps: ['API scaffold and routes', 'Endpoint logic', 'Unit tests and run them'],
        new_dependencies: { 1: [0], 2: [1] },
        uses: {},
      });
    });

    it('parses "uses" (kept steps whose output a new step needs), and refuses a key that is no new step', () => {
      const reply = (uses: unknown) => JSON.stringify({ action: 'redesign', new_steps: ['a', 'b'], new_dependencies: {}, uses });
      assert.deepEqual(parseReplanReply(reply({ 1: ['s3', 's3', 's1'] })).uses, { 1: ['s3', 's1'] });
      assert.throws(() => parseReplanReply(reply({ 2: ['s3'] })), /"uses" key "2" is not a new step index \(0–1\)/);
      assert.throws(() => parseReplanReply(reply({ 0: 's3' })), /lists of step ids/);
    });

    it('reads each new step\'s own "dependsOn" and "uses", merged with the top-level forms', () => {
      const reply = JSON.stringify({
        action: 'redesign',
        new_steps: [
          { description: 'a', dependsOn: [], uses: ['s1'] },
          { description: 'b', dependsOn: [0], uses: ['s3', 's1'] },
        ],
        new_dependencies: {},
        uses: { 1: ['s3', 's4'] },
      });
      const result = parseReplanReply(reply);
      assert.deepEqual(result.new_steps, ['a', 'b']);
      assert.deepEqual(result.new_dependencies, { 1: [0] });
      assert.deepEqual(result.uses, { 0: ['s1'], 1: ['s3', 's4', 's1'] });
      assert.throws(() => parseReplanReply(JSON.stringify({ action: 'redesign', new_steps: [{ description: 'a', uses: [3] }] })), /new_steps\[0\]\.uses\[0\]/);
      assert.throws(
        () =>
          parseReplanReply(
            JSON.stringify({
              action: 'redesign',
              new_steps: [
                { description: 'a', dependsOn: [1] },
                { description: 'b', dependsOn: [0] },
              ],
            }),
          ),
        /cycle/,
      );
    });

    it('parses give_up (any spelling), dropping steps, keeping the reason', () => {
      assert.deepEqual(parseReplanReply('```json\n{"action": "Give Up", "new_steps": ["x"], "reason": "no network tool"}\n```'), {
        action: 'give_up',
        new_steps: [],
        new_dependencies: {},
        uses: {},
        reason: 'no network tool',
      });
      assert.equal(parseReplanReply('{"action":"giveup"}').action, 'give_up');
    });

    for (const [name, reply, kind, text] of [
      [
        'a cycle from the model',
        { action: 'redesign', new_steps: ['a', 'b', 'c'], new_dependencies: { 0: [2], 2: [1], 1: [0] } },
        'cycle',
        /cycle: step 0 → step 2 → step 1 → step 0 \(indexes are 0-based positions in "new_steps"\)/,
      ],
      [
        'an index out of range',
        { action: 'redesign', new_steps: ['a'], new_dependencies: { 0: [1] } },
        'dangling',
        /step 0 depends on step 1, which does not exist/,
      ],
      ['a self-dependency', { action: 'redesign', new_steps: ['a', 'b'], new_dependencies: { 1: [1] } }, 'self_dependency', /step 1 depends on itself/],
      ['a redesign without steps', { action: 'redesign', new_steps: [] }, 'shape', /needs at least one new step/],
      ['an unknown action', { action: 'retry' }, 'shape', /action must be "redesign" or "give_up"/],
      ['a missing action', { new_steps: ['a'] }, 'shape', /action/],
    ] as const) {
      it(`refuses ${name}`, () => {
        assert.throws(
          () => parseReplanReply(JSON.stringify(reply)),
          (error: unknown) => error instanceof PlanReplyError && error.kind === kind && text.test(error.message),
        );
      });
    }

    it('refuses prose without JSON and too many steps', () => {
      assert.throws(() => parseReplanReply('I think we should try again.'), /no JSON object/);
      assert.throws(() => parseReplanReply(JSON.stringify({ action: 'redesign', new_steps: ['a', 'b', 'c'] }), { maxNewSteps: 2 }), /3 new steps; at most 2/);
    });

    it('ReplanResultSchema is the reply shape', () => {
      assert.equal(ReplanResultSchema.safeParse({ action: 'redesign', new_steps: ['a'], new_dependencies: {} }).success, true);
      assert.equal(ReplanResultSchema.safeParse({ action: 'redesign', new_steps: 'a' }).success, false);
    });
  });

  describe('the replanner flow on the example plan, end to end without the LLM call', () => {
    it('a failed step triggers a subgraph replan; completed steps are preserved', () => {
      const { log, ids } = failedExample();
      const before = structuredClone([0, 1, 2, 3, 4].map((i) => log.state.steps.get(sid(i))));
      const plan = nextReplan(log.state, sid(5), 2);
      buildReplanMessages(log.state, sid(5), plan.stepsToReplan, TOOLS);
      const decision = parseReplanReply(
        'Redesign:\n```json\n{"action":"redesign","new_steps":["Write src/api.py","Write tests","Run tests"],"new_dependencies":{"1":[0],"2":[1]}}\n```',
      );
      appendAll(
        log,
        replanOutcomeEvents(log.state, {
          failedStepId: sid(5),
          decision: { action: decision.action, newSteps: decision.new_steps, newDependencies: decision.new_dependencies },
          maxAttempts: 2,
          newId: () => ids.next(),
        }),
      );
      assert.deepEqual(structuredClone([0, 1, 2, 3, 4].map((i) => log.state.steps.get(sid(i)))), before);
      assert.deepEqual(log.state.stepOrder.slice(5), ['s9', 's10', 's11']);
      assert.equal(log.state.replans[0].newStepIds.length, 3);
    });

    it('gives up after the maximum attempts', () => {
      const { log, ids } = failedExample();
      let failed = sid(5);
      for (let attempt = 1; attempt <= 2; attempt++) {
        const plan = nextReplan(log.state, failed, 2);
        assert.equal(plan.attempt, attempt);
        const decision = parseReplanReply('{"action":"redesign","new_steps":["retry"]}');
        appendAll(
          log,
          replanOutcomeEvents(log.state, {
            failedStepId: failed,
            decision: { action: decision.action, newSteps: decision.new_steps, newDependencies: decision.new_dependencies },
            maxAttempts: 2,
            newId: () => ids.next(),
          }),
        );
        failed = log.state.stepOrder.at(-1)!;
        runStep(log, failed, [{ name: 'write_file', args: { path: 'src/api.py' } }]);
      }
      assert.equal(nextReplan(log.state, failed, 2).allowed, false);
      appendAll(log, replanLimitEvents(log.state, failed));
      assertStatuses(log, { [failed]: 'blocked', [sid(4)]: 'completed' });
      assert.equal(log.state.replans.length, 2);
    });
  });
});

function messages0(log: ReturnType<typeof examplePlan>['log']): string {
  return buildReplanMessages(log.state, sid(5), [sid(5), sid(6), sid(7)], TOOLS)[0].content as string;
}
