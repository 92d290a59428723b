import assert from 'node:assert/strict';
import type { ToolCallRecord } from '../../../src/core/plan/planTypes';
import { mcpAnnotationText, mcpOrigin, mcpRawResult } from '../../../webview/format';
import { chipView } from '../../../webview/stepView';

function call(audit?: Record<string, unknown>): ToolCallRecord {
  return {
    id: 'c1',
    index: 0,
    turn: 1,
    name: 'everything_get-sum',
    requestedName: 'everything_get-sum',
    nameResolution: 'exact',
    arguments: '{"a":2,"b":3}',
    rawArguments: '{"a":2,"b":3}',
    isComplete: true,
    finishReason: 'tool_calls',
    status: 'success',
    requestedAt: 0,
    ...(audit ? { audit } : {}),
  };
}

describe('the panel shows the server of an MCP call', () => {
  const mcp = { server: 'everything', tool: 'get-sum', annotations: { title: 'Add', readOnlyHint: true, destructiveHint: false, openWorldHint: false } };

  it('names the chip `server › tool`, with the server in the hover text', () => {
    const chip = chipView(call({ nameResolution: 'exact', mcp }));
    assert.equal(chip.label, 'everything › get-sum');
    assert.equal(chip.title, 'everything_get-sum — tool “get-sum” of MCP server “everything”: success');
    assert.equal(chipView(call()).label, 'everything_get-sum', 'a native call keeps its name');
  });

  it('reads the origin from the call audit and describes the annotations as hints', () => {
    assert.deepEqual(mcpOrigin(call({ mcp })), mcp);
    assert.equal(mcpOrigin(call({ mcp: { server: 1 } })), undefined);
    assert.equal(mcpAnnotationText(mcp.annotations), 'title “Add”, read-only, not destructive, closed world');
    assert.equal(mcpAnnotationText(undefined), 'none');
  });

  it('finds the raw result recorded for the call', () => {
    const audits = [
      { kind: 'tool_batch', callId: 'c1' },
      { kind: 'mcp_result', callId: 'c0', raw: '{}' },
      { kind: 'mcp_result', callId: 'c1', raw: '{"content":[]}' },
    ];
    assert.equal(mcpRawResult(audits, 'c1'), '{"content":[]}');
    assert.equal(mcpRawResult(audits, 'c2'), undefined);
  });
});
