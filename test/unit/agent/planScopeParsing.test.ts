import assert from 'node:assert/strict';
import { parsePlannerReply, PlanReplyError } from '../../../src/core/agent/planParsing';
import { parseReplanReply } from '../../../src/core/agent/replanPrompt';

// A step's `scope` in the planner's and replanner's replies (docs/design.md, “Step scopes and plan
// approval”): read strictly, with errors that name the step and the field.

function refusal(reply: unknown): string {
  try {
    parsePlannerReply(JSON.stringify(reply));
  } catch (error) {
    assert.ok(error instanceof PlanReplyError);
    return error.message;
  }
  assert.fail('the plan was accepted');
}

describe('plan replies with step scopes', () => {
  it('reads each step scope by index, next to expects', () => {
    const plan = parsePlannerReply(
      JSON.stringify({
        title: 'T',
        steps: [
          'Read the code',
          { description: 'Add a test', scope: { write: ['test/**'], commands: ['npm test', 'npx eslint test/'] }, expects: [{ changed: 'test/date.test.js' }] },
          { description: 'Install', scope: { commands: ['npm install'] } },
        ],
        dependencies: { 1: [0] },
      }),
    );
    assert.deepEqual(plan.scopes, [undefined, { write: ['test/**'], commands: ['npm test', 'npx eslint test/'] }, { commands: ['npm install'] }]);
    assert.deepEqual(plan.expects, [undefined, [{ changed: 'test/date.test.js' }], undefined]);
  });

  it('a plan without scopes records none', () => {
    assert.equal(parsePlannerReply(JSON.stringify({ steps: ['a', { description: 'b' }] })).scopes, undefined);
  });

  it('errors name the step and the field', () => {
    assert.match(
      refusal({ steps: ['a', { description: 'b', scope: { write: ['/etc/x'] } }] }),
      /steps\[1\]\.scope: "write"\[0\]: the glob "\/etc\/x" must be relative/,
    );
    assert.match(refusal({ steps: [{ description: 'b', scope: { write: ['../x/**'] } }] }), /steps\[0\]\.scope: "write"\[0\]: .*leaves the workspace/);
    assert.match(refusal({ steps: [{ description: 'b', scope: { read: ['x'] } }] }), /steps\[0\]\.scope: unknown key "read" in a scope/);
    assert.match(refusal({ steps: [{ description: 'b', scope: { commands: 'npm test' } }] }), /steps\[0\]\.scope: "commands": "commands" must be a list/);
    assert.match(refusal({ steps: [{ description: 'b', scope: { commands: [''] } }] }), /steps\[0\]\.scope: "commands"\[0\]: a command is empty/);
    assert.match(refusal({ steps: [{ description: 'b', scope: { commands: ['a\nb'] } }] }), /must be one line/);
    assert.match(refusal({ steps: [{ description: 'b', scope: ['test/**'] }] }), /steps\[0\]\.scope: a scope must be an object/);
    assert.match(refusal({ steps: [{ description: 'b', scop: {} }] }), /unknown key "scop" \(a step has "description", "expects", "scope" and "dependsOn"\)/);
  });

  it('a replan carries its new steps scopes', () => {
    const result = parseReplanReply(
      JSON.stringify({ action: 'redesign', new_steps: [{ description: 'x', scope: { write: ['lib/**'] } }, 'y'], new_dependencies: {} }),
    );
    assert.deepEqual(result.new_scopes, [{ write: ['lib/**'] }, undefined]);
  });
});
