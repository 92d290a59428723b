import assert from 'node:assert/strict';
import { buildPlannerMessages, parsePlannerReply, PlanReplyError } from '../../../src/core/agent/planParsing';
import { extractJsonObjects } from '../../../src/core/llm/replyJson';

const PLAN = { title: 'REST API', steps: ['a', 'b', 'c'], dependencies: { '1': [0], '2': [0, 1] } };

function expectError(content: string, kind: string, text: RegExp): void {
  assert.throws(
    () => parsePlannerReply(content),
    (error: unknown) => {
      assert.ok(error instanceof PlanReplyError, String(error));
      assert.equal(error.kind, kind);
      assert.match(error.message, text);
      return true;
    },
  );
}

describe('planParsing (planner reply)', () => {
  it('parses a bare JSON object', () => {
    assert.deepEqual(parsePlannerReply(JSON.stringify(PLAN)), { title: 'REST API', steps: ['a', 'b', 'c'], dependencies: { 1: [0], 2: [0, 1] } });
  });

  it('tolerates a ```json fence, prose around one object and a thinking block', () => {
    const expected = parsePlannerReply(JSON.stringify(PLAN));
    assert.deepEqual(parsePlannerReply('Here is the plan:\n```json\n' + JSON.stringify(PLAN, null, 2) + '\n```\nGood luck!'), expected);
    assert.deepEqual(parsePlannerReply('```\n' + JSON.stringify(PLAN) + '```'), expected);
    assert.deepEqual(parsePlannerReply('Sure. ' + JSON.stringify(PLAN) + ' Let me know {if} you need more.'), expected);
    assert.deepEqual(parsePlannerReply('<think>maybe {"steps": []} is wrong</think>\n' + JSON.stringify(PLAN)), expected);
  });

  it('keeps braces inside strings intact', () => {
    const plan = { title: 't', steps: ['write {"a": 1} to a.json', 'print "}"'], dependencies: { 1: [0] } };
    assert.deepEqual(parsePlannerReply('Plan: ' + JSON.stringify(plan)).steps, plan.steps);
  });

  it('accepts quoted indexes, bare indexes, null and missing dependencies; trims; defaults the title', () => {
    assert.deepEqual(parsePlannerReply('{"title":"t","steps":[" a ","b","c"],"dependencies":{"1":"0","2":[1, "0", 1]}}'), {
      title: 't',
      steps: ['a', 'b', 'c'],
      dependencies: { 1: [0], 2: [1, 0] },
    });
    assert.deepEqual(parsePlannerReply('{"title":"t","steps":["a"],"dependencies":null}').dependencies, {});
    assert.deepEqual(parsePlannerReply('{"steps":["a"]}'), { title: 'Plan', steps: ['a'], dependencies: {} });
  });

  it('refuses replies that are not JSON', () => {
    expectError('I will first read the files and then write the code.', 'not_json', /no JSON object \(it starts: "I will first read/);
    expectError('   ', 'not_json', /the reply is empty/);
    expectError('[1, 2, 3]', 'not_json', /no JSON object/);
  });

  it('refuses the wrong shape with the path of the problem', () => {
    expectError('{"title": "t", "steps": "do it"}', 'shape', /not a valid plan: steps: "steps" must be a list of step descriptions/);
    expectError('{"title": "t", "steps": ["a", 3]}', 'shape', /steps\[1\]: a step must be a text description/);
    expectError('{"title": "t", "steps": ["a", "  "]}', 'shape', /steps\[1\]: a step description is empty/);
    expectError('{"title": "t", "steps": ["a"], "dependencies": {"0": [1.5]}}', 'shape', /dependencies\.0\[0\]: a step index must be a whole number/);
    expectError('{"title": "t", "steps": ["a"], "dependencies": [[0]]}', 'shape', /dependencies must be an object like \{"1": \[0\]\}/);
  });

  it('refuses an empty plan', () => {
    expectError('{"title": "t", "steps": []}', 'shape', /the plan has no steps/);
  });

  it('refuses a dangling index', () => {
    expectError('{"title":"t","steps":["a","b"],"dependencies":{"1":[2]}}', 'dangling', /step 1 depends on step 2, which does not exist \(indexes 0–1\)/);
    expectError('{"title":"t","steps":["a","b"],"dependencies":{"4":[0]}}', 'dangling', /step 4/);
    expectError('{"title":"t","steps":["a","b"],"dependencies":{"last":[0]}}', 'bad_key', /"last" is not a step index/);
  });

  it('refuses a self-dependency', () => {
    expectError('{"title":"t","steps":["a","b"],"dependencies":{"1":[1]}}', 'self_dependency', /step 1 depends on itself/);
  });

  it('refuses a cycle, naming it', () => {
    expectError('{"title":"t","steps":["a","b","c"],"dependencies":{"0":[2],"1":[0],"2":[1]}}', 'cycle', /cycle: step 0 → step 2 → step 1 → step 0/);
  });

  it('refuses two different plans in one reply, but not the same one twice', () => {
    const other = { ...PLAN, steps: ['x'], dependencies: {} };
    expectError('```json\n' + JSON.stringify(PLAN) + '\n```\nor\n```json\n' + JSON.stringify(other) + '\n```', 'ambiguous', /2 different plan objects/);
    assert.equal(parsePlannerReply('```json\n' + JSON.stringify(PLAN) + '\n```\n```json\n' + JSON.stringify(PLAN) + '\n```').steps.length, 3);
  });

  it('prefers the fenced object over plan-like JSON in the prose', () => {
    const draft = { title: 'draft', steps: ['x'] };
    assert.equal(parsePlannerReply('Not ' + JSON.stringify(draft) + ' but:\n```json\n' + JSON.stringify(PLAN) + '\n```').title, 'REST API');
  });

  it('picks the one object that is a plan among other JSON in the prose', () => {
    assert.equal(parsePlannerReply('Config {"debug": true} aside, the plan: ' + JSON.stringify(PLAN)).title, 'REST API');
  });

  it('caps the number of steps', () => {
    assert.throws(() => parsePlannerReply(JSON.stringify({ title: 't', steps: ['a', 'b', 'c'] }), { maxSteps: 2 }), /3 steps; at most 2/);
  });

  it('extractJsonObjects finds nothing in plain prose', () => {
    assert.deepEqual(extractJsonObjects('no json {here} at all'), []);
  });

  it('buildPlannerMessages puts the format and the tools in the system message, the task in the user message', () => {
    const messages = buildPlannerMessages('Add a login page', [{ name: 'read_file', description: 'Read a file\n  from the workspace.' }]);
    assert.equal(messages.length, 2);
    assert.equal(messages[0].role, 'system');
    const system = messages[0].content as string;
    assert.match(system, /"title".*"steps".*"dependsOn"/s);
    assert.match(system, /- read_file: Read a file from the workspace\./);
    assert.deepEqual(messages[1], { role: 'user', content: 'Task:\nAdd a login page' });
    // The example in the prompt is itself a valid plan.
    const example = system.slice(system.indexOf('Example: ') + 9, system.indexOf('\n\nAvailable tools'));
    assert.equal(parsePlannerReply(example).steps.length, 5);
  });
});
