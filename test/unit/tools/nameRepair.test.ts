import assert from 'node:assert/strict';
import { buildNameRepairPrompt, type NameRepairCandidate, parseNameRepairReply } from '../../../src/core/tools/nameRepair';

const candidate = (id: string, name: string): NameRepairCandidate => ({ tool_call_id: id, name, reason: 'tool_not_found', arguments: '{"path":"a"}' });

describe('nameRepair: prompt', () => {
  it('lists visible names and candidates as JSON and asks for the exact reply shape', () => {
    const prompt = buildNameRepairPrompt([candidate('c1', 'open_file')], ['read_file', 'write_file'], { maxVisibleToolNames: 64, maxCandidates: 8 });
    assert.equal(prompt.messages.length, 2);
    assert.match(String(prompt.messages[0].content), /\{"repairs":\[\{"tool_call_id":"<id>","name":"<exact visible tool name>"\}\]\}/);
    const body = JSON.parse(String(prompt.messages[1].content));
    assert.deepEqual(body.visible_tools.sort(), ['read_file', 'write_file']);
    assert.equal(body.visible_tools_truncated, undefined);
    assert.deepEqual(body.candidates, [{ tool_call_id: 'c1', name: 'open_file', reason: 'tool_not_found', arguments: '{"path":"a"}' }]);
    assert.equal(prompt.visibleNamesTruncated, false);
  });

  it('caps visible names (marking the truncation) and candidates', () => {
    const visible = Array.from({ length: 10 }, (_, i) => `tool_${i}`).concat(['read_file']);
    const candidates = [candidate('c1', 'readFileNow'), candidate('c2', 'x'), candidate('c3', 'y')];
    const prompt = buildNameRepairPrompt(candidates, visible, { maxVisibleToolNames: 3, maxCandidates: 2 });
    const body = JSON.parse(String(prompt.messages[1].content));
    assert.equal(body.visible_tools.length, 3);
    // Names sharing a word with a candidate are shown first.
    assert.equal(body.visible_tools[0], 'read_file');
    assert.equal(body.visible_tools_truncated, '8 more tool names not shown');
    assert.equal(prompt.visibleNamesTruncated, true);
    assert.deepEqual(
      body.candidates.map((c: any) => c.tool_call_id),
      ['c1', 'c2'],
    );
    assert.deepEqual(
      prompt.notSent.map((c) => c.tool_call_id),
      ['c3'],
    );
  });
});

describe('nameRepair: reply', () => {
  const visible = ['read_file', 'write_file'];

  it('accepts exact visible names; partial success is fine', () => {
    const reply = JSON.stringify({
      repairs: [
        { tool_call_id: 'c1', name: 'read_file' },
        { tool_call_id: 'c2', name: 'ReadFile' },
      ],
    });
    const result = parseNameRepairReply(reply, ['c1', 'c2', 'c3'], visible);
    assert.deepEqual([...result.repaired], [['c1', 'read_file']]);
    assert.deepEqual(result.failed, [
      { tool_call_id: 'c2', reason: 'the proposed name "ReadFile" is not a visible tool' },
      { tool_call_id: 'c3', reason: 'the reply proposed no repair' },
    ]);
  });

  it('ignores ids that were not sent and keeps the first answer per id', () => {
    const reply = JSON.stringify({
      repairs: [
        { tool_call_id: 'zz', name: 'read_file' },
        { tool_call_id: 'c1', name: 'write_file' },
        { tool_call_id: 'c1', name: 'read_file' },
      ],
    });
    const result = parseNameRepairReply(reply, ['c1'], visible);
    assert.deepEqual([...result.repaired], [['c1', 'write_file']]);
  });

  it('tolerates code fences but fails every candidate on a non-JSON reply', () => {
    const fenced = '```json\n{"repairs":[{"tool_call_id":"c1","name":"read_file"}]}\n```';
    assert.equal(parseNameRepairReply(fenced, ['c1'], visible).repaired.get('c1'), 'read_file');
    const bad = parseNameRepairReply('I think you meant read_file', ['c1', 'c2'], visible);
    assert.equal(bad.repaired.size, 0);
    assert.deepEqual(
      bad.failed.map((f) => f.reason),
      ['the reply is not a JSON object', 'the reply is not a JSON object'],
    );
    assert.equal(parseNameRepairReply('{"fixes":[]}', ['c1'], visible).failed[0].reason, 'the reply has no "repairs" array');
  });
});
