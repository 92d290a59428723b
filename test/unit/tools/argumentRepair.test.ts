import assert from 'node:assert/strict';
import { z } from 'zod';
import {
  type ArgumentRepairCandidate,
  buildArgumentRepairPrompt,
  parseArgumentRepairReply,
  type RepairValidator,
} from '../../../src/core/tools/argumentRepair';
import { validateToolArguments } from '../../../src/core/tools/argumentValidator';
import { schemaExcerpt } from '../../../src/core/tools/schemaExcerpt';

const schema = { type: 'object', properties: { path: { type: 'string', description: 'File path' } }, required: ['path'], additionalProperties: false };
const candidate = (id: string, extra: Partial<ArgumentRepairCandidate> = {}): ArgumentRepairCandidate => ({
  tool_call_id: id,
  tool: 'read_file',
  problem: 'schema_invalid',
  error: 'Invalid arguments: unknown field(s): file',
  arguments: '{"file":"a.ts"}',
  schema,
  ...extra,
});
const validate: RepairValidator = (_id, args) => {
  const result = validateToolArguments(z.strictObject({ path: z.string() }), args);
  return result.ok ? { ok: true, value: result.value } : { ok: false, error: result.error };
};

describe('argumentRepair: prompt', () => {
  it('sends each candidate with its schema, problem and arguments, and the reply shape', () => {
    const prompt = buildArgumentRepairPrompt([candidate('c1')], { maxCandidates: 8, maxSchemaBytes: 4096 });
    assert.match(String(prompt.messages[0].content), /\{"repairs":\[\{"tool_call_id":"<id>","arguments":\{\.\.\.\}\}\]\}/);
    const body = JSON.parse(String(prompt.messages[1].content));
    assert.deepEqual(body.candidates, [
      {
        tool_call_id: 'c1',
        tool: 'read_file',
        problem: 'schema_invalid',
        error: 'Invalid arguments: unknown field(s): file',
        schema,
        arguments: '{"file":"a.ts"}',
      },
    ]);
    assert.deepEqual(prompt.schemasShortened, []);
  });

  it('caps candidates and shortens schemas over maxSchemaBytes', () => {
    const big = {
      type: 'object',
      properties: Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`field_${i}`, { type: 'string', description: 'd'.repeat(300) }])),
      required: ['field_39'],
    };
    const prompt = buildArgumentRepairPrompt([candidate('c1', { schema: big }), candidate('c2'), candidate('c3')], { maxCandidates: 2, maxSchemaBytes: 600 });
    const body = JSON.parse(String(prompt.messages[1].content));
    assert.equal(body.candidates.length, 2);
    assert.deepEqual(
      prompt.notSent.map((c) => c.tool_call_id),
      ['c3'],
    );
    assert.deepEqual(prompt.schemasShortened, ['c1']);
    assert.ok(Buffer.byteLength(JSON.stringify(body.candidates[0].schema)) <= 600);
    assert.ok('field_39' in body.candidates[0].schema.properties, 'required fields are kept first');
  });
});

describe('argumentRepair: reply', () => {
  it('uses repaired arguments only when they validate', () => {
    const reply = JSON.stringify({
      repairs: [
        { tool_call_id: 'c1', arguments: { path: 'a.ts' } },
        { tool_call_id: 'c2', arguments: { file: 'a.ts' } },
      ],
    });
    const result = parseArgumentRepairReply(reply, ['c1', 'c2'], validate);
    assert.deepEqual([...result.repaired], [['c1', { path: 'a.ts' }]]);
    assert.equal(result.failed.length, 1);
    assert.match(result.failed[0].reason, /still invalid: Invalid arguments: .*unknown field\(s\): file/);
  });

  it('accepts arguments given as a JSON string and refuses a broken one', () => {
    const reply = JSON.stringify({
      repairs: [
        { tool_call_id: 'c1', arguments: '{"path":"b"}' },
        { tool_call_id: 'c2', arguments: '{path' },
      ],
    });
    const result = parseArgumentRepairReply(reply, ['c1', 'c2'], validate);
    assert.deepEqual(result.repaired.get('c1'), { path: 'b' });
    assert.deepEqual(result.failed, [{ tool_call_id: 'c2', reason: 'the repaired arguments are not valid JSON' }]);
  });

  it('fails all candidates on a reply without repairs', () => {
    const result = parseArgumentRepairReply('sorry', ['c1'], validate);
    assert.deepEqual(result.failed, [{ tool_call_id: 'c1', reason: 'the reply is not a JSON object' }]);
  });
});

describe('schemaExcerpt', () => {
  it('returns a schema that fits unchanged (same object)', () => {
    assert.equal(schemaExcerpt(schema, 4096), schema);
  });

  it('shortens descriptions first, then drops optional properties, marking the excerpt', () => {
    const big = {
      type: 'object',
      description: 'x'.repeat(500),
      properties: { a: { type: 'string', description: 'y'.repeat(500) }, b: { type: 'number' } },
      required: ['a'],
    };
    const short = schemaExcerpt(big, 400) as any;
    assert.ok(Buffer.byteLength(JSON.stringify(short)) <= 400);
    assert.equal(short['x-excerpt'], 'schema shortened for this prompt');
    assert.deepEqual(Object.keys(short.properties), ['a', 'b']);
    const tiny = schemaExcerpt(big, 120) as any;
    assert.ok(Buffer.byteLength(JSON.stringify(tiny)) <= 120);
    assert.deepEqual(Object.keys(tiny.properties), ['a']);
    assert.equal(tiny['x-excerpt'], '1 properties not shown');
  });
});
