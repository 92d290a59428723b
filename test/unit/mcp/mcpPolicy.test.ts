import assert from 'node:assert/strict';
import { parseConfig } from '../../../src/core/config/configSchema';
import { decideToolPolicy } from '../../../src/core/policy/toolPolicy';
import { fakeMcpTool } from './fakeMcpTool';

const decide = (tool: ReturnType<typeof fakeMcpTool>, settings: Record<string, unknown> = {}, trusted = true) =>
  decideToolPolicy({ toolName: tool.name, tool, args: {}, config: parseConfig(settings), trusted });
const sum = fakeMcpTool('everything', 'get-sum', { annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false } });
const wipe = fakeMcpTool('everything', 'wipe', { annotations: { destructiveHint: true } });

describe('policy of MCP tools', () => {
  it('asks by default, even for read-only tools, and shows server, tool and annotations in the approval', () => {
    const verdict = decide(sum);
    assert.equal(verdict.decision, 'confirm');
    assert.deepEqual(verdict.rules, ['default: MCP tool']);
    assert.equal(
      verdict.reason,
      '"everything_get-sum" comes from an MCP server, so it needs confirmation; MCP server "everything", tool "get-sum" (annotations: read-only, idempotent, closed world; annotations are the server\'s own hints)',
    );
    assert.match(decide(wipe).reason, /annotations: destructive/);
  });

  it('allows read-only tools of servers listed in cortex.mcp.allowReadOnly, never the others', () => {
    assert.equal(decide(sum, { 'cortex.mcp.allowReadOnly': ['everything'] }).decision, 'allow');
    assert.equal(decide(sum, { 'cortex.mcp.allowReadOnly': ['*'] }).decision, 'allow');
    assert.equal(decide(wipe, { 'cortex.mcp.allowReadOnly': ['everything'] }).decision, 'confirm');
    assert.equal(decide(sum, { 'cortex.mcp.allowReadOnly': ['other'] }).decision, 'confirm');
  });

  it('takes mcp:<server>/<tool>, mcp:<server> and mcp:* keys, the most specific level winning', () => {
    const rules = { 'mcp:*': 'deny', 'mcp:everything': 'allow', 'mcp:everything/wipe': 'confirm-required' };
    assert.equal(decide(sum, { 'cortex.policy.tools': rules }).decision, 'allow', 'the server rule beats mcp:*');
    const verdict = decide(wipe, { 'cortex.policy.tools': rules });
    assert.deepEqual([verdict.decision, verdict.required, verdict.rules], ['confirm', true, ['cortex.policy.tools["mcp:everything/wipe"] = confirm-required']]);
    assert.equal(decide(fakeMcpTool('other', 'x'), { 'cortex.policy.tools': rules }).decision, 'deny', 'mcp:* applies to other servers');
    assert.equal(
      decide(sum, { 'cortex.policy.tools': { 'mcp:everything': 'deny' }, 'cortex.mcp.allowReadOnly': ['everything'] }).decision,
      'deny',
      'a rule beats the read-only default',
    );
  });

  it("among rules of the same level the strictest wins (the registry name counts as the tool's own key)", () => {
    const verdict = decide(sum, { 'cortex.policy.tools': { 'mcp:everything/get-sum': 'allow', 'everything_get-sum': 'deny' } });
    assert.equal(verdict.decision, 'deny');
    assert.deepEqual(verdict.rules, ['cortex.policy.tools["mcp:everything/get-sum"] = allow', 'cortex.policy.tools["everything_get-sum"] = deny']);
  });

  it('keeps the * wildcard as a floor, as for every tool', () => {
    assert.equal(decide(sum, { 'cortex.policy.tools': { '*': 'confirm', 'mcp:everything': 'allow' } }).decision, 'confirm');
    assert.equal(decide(sum, { 'cortex.policy.tools': { '*': 'deny', 'mcp:everything': 'allow' } }).decision, 'deny');
  });

  it('never runs MCP tools in Restricted Mode, whatever their annotations say', () => {
    assert.equal(decide(sum, { 'cortex.policy.tools': { 'mcp:*': 'allow' } }, false).decision, 'deny');
  });
});
