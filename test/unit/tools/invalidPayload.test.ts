import assert from 'node:assert/strict';
import { buildInvalidPayload, TOOL_ERROR_GUIDANCE } from '../../../src/core/tools/invalidPayload';

describe('buildInvalidPayload', () => {
  it('is the JSON {tool, error, receivedArgs} of docs/design.md, “Preflight validation and the invalid result”', () => {
    const payload = JSON.parse(buildInvalidPayload('read_file', 'Invalid arguments: missing required field(s): path', {}));
    assert.deepEqual(payload, { tool: 'read_file', error: 'Invalid arguments: missing required field(s): path', receivedArgs: {} });
  });

  it('keeps the tool field for nameless calls and raw text for unparsed arguments', () => {
    const payload = JSON.parse(buildInvalidPayload('', 'The tool call has no tool name.', '{oops'));
    assert.equal(Object.prototype.hasOwnProperty.call(payload, 'tool'), true);
    assert.equal(payload.tool, '');
    assert.equal(payload.receivedArgs, '{oops');
  });

  it('shortens long strings but stays valid JSON', () => {
    const text = buildInvalidPayload('write_file', 'x', { content: 'a'.repeat(10_000), path: 'p' });
    const payload = JSON.parse(text);
    assert.ok(payload.receivedArgs.content.length < 2100);
    assert.match(payload.receivedArgs.content, /8000 more characters not shown/);
    assert.equal(payload.receivedArgs.path, 'p');
  });

  it('the system-prompt guidance explains the payload and asks for a retry', () => {
    assert.match(TOOL_ERROR_GUIDANCE, /"tool"/);
    assert.match(TOOL_ERROR_GUIDANCE, /"receivedArgs"/);
    assert.match(TOOL_ERROR_GUIDANCE, /call the tool again with corrected arguments/i);
    assert.match(TOOL_ERROR_GUIDANCE, /missing/);
  });
});
