import assert from 'node:assert/strict';
import { parsePlannerReply } from '../../../src/core/agent/planParsing';
import { extractJsonObjects, stripReasoning } from '../../../src/core/llm/replyJson';
import { readRepairsArray } from '../../../src/core/tools/repairReply';

// Reply shapes seen from real endpoints, each read the same way by the planner and by repair.
const repairs = '{"repairs": [{"id": "call_1", "name": "read_file"}]}';
const plan = '{"title": "t", "steps": ["a", "b"], "dependencies": {"1": [0]}}';
const shapes: Array<[string, (json: string) => string]> = [
  ['bare JSON', (json) => json],
  ['a ```json fence', (json) => `\`\`\`json\n${json}\n\`\`\``],
  ['prose around it', (json) => `Here is the answer:\n${json}\nHope this helps.`],
  // DeepSeek-R1, Qwen3 served through OpenAI-compatible endpoints: reasoning first, with braces.
  ['a <think> block with a draft object inside', (json) => `<think>\nMaybe {"draft": true}? No: use {"repairs": "x"}.\n</think>\n\n${json}`],
  ['a <thinking> block, then a fence', (json) => `<thinking>braces { here</thinking>\`\`\`json\n${json}\n\`\`\``],
  // Templates that open the block in the prompt: the reply starts mid-thought.
  ['only a closing </think>', (json) => `the user wants {"x": 1} fixed…\n</think>\n${json}`],
];

describe('the one reader of JSON in model replies', () => {
  for (const [name, wrap] of shapes) {
    it(`repair replies: ${name}`, () => {
      const read = readRepairsArray(wrap(repairs));
      assert.ok(read.ok, JSON.stringify(read));
      assert.deepEqual(read.repairs, [{ id: 'call_1', name: 'read_file' }]);
    });
    it(`planner replies: ${name}`, () => {
      const parsed = parsePlannerReply(wrap(plan));
      assert.deepEqual(parsed.steps, ['a', 'b']);
      assert.deepEqual(parsed.dependencies, { 1: [0] });
    });
  }

  it('strips reasoning but keeps the answer', () => {
    assert.equal(stripReasoning('<think>a</think>answer').trim(), 'answer');
    assert.equal(stripReasoning('a</think>answer').trim(), 'answer');
    assert.equal(stripReasoning('no reasoning here'), 'no reasoning here');
  });

  it('finds nothing in reasoning alone', () => {
    assert.deepEqual(extractJsonObjects('<think>{"repairs": []}</think>'), []);
    assert.equal(readRepairsArray('<think>{"repairs": []}</think>').ok, false);
  });

  it('names the problem when the object has no repairs array', () => {
    assert.deepEqual(readRepairsArray('{"fixed": true}'), { ok: false, error: 'the reply has no "repairs" array' });
  });
});
