import assert from 'node:assert/strict';
import { parseConfig } from '../../../src/core/config/configSchema';
import { mcpResourceTool } from '../../../src/core/mcp/resourceTool';
import type { McpServerConnection } from '../../../src/core/mcp/serverConnection';
import { decideToolPolicy } from '../../../src/core/policy/toolPolicy';
import type { ToolImage } from '../../../src/core/tools/toolImages';
import type { ToolContext, ToolDefinition } from '../../../src/core/tools/toolTypes';

// A server's resources as one read-only tool (docs/design.md, “MCP tools”, resources): only for a
// server that has resources, its URIs listed within bounds, named apart from the server's own tools,
// and treated by the policy as a read-only tool of that server.

const PNG = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.alloc(8, 1)]).toString('base64');

function connection(options: { resources?: number; templates?: number; toolNames?: string[]; read?: (uri: string) => unknown } = {}) {
  const reads: string[] = [];
  const fake = {
    name: 'docs',
    tools: (options.toolNames ?? ['search']).map((name) => ({ name, inputSchema: { type: 'object' } })),
    resources: Array.from({ length: options.resources ?? 0 }, (_, i) => ({ uri: `docs://page/${i}`, name: `page ${i}`, mimeType: 'text/markdown' })),
    resourceTemplates: Array.from({ length: options.templates ?? 0 }, (_, i) => ({ uriTemplate: `docs://item/{id}/${i}`, name: `item ${i}` })),
    readResource: (uri: string) => {
      reads.push(uri);
      return Promise.resolve(options.read?.(uri) ?? { contents: [{ uri, mimeType: 'text/plain', text: `text of ${uri}` }] });
    },
  };
  return { connection: fake as unknown as McpServerConnection, reads };
}

const decide = (tool: ToolDefinition, settings: Record<string, unknown>) =>
  decideToolPolicy({ toolName: tool.name, tool, args: {}, config: parseConfig(settings), trusted: true });

describe('MCP resources: the read_resource tool', () => {
  it('a server without resources or templates gets none', () => {
    assert.equal(mcpResourceTool(connection().connection), undefined);
    assert.ok(mcpResourceTool(connection({ templates: 1 }).connection), 'templates alone are enough');
  });

  it('lists the URIs and templates in its description, at most 25, saying how many more there are', () => {
    const tool = mcpResourceTool(connection({ resources: 40, templates: 2 }).connection)!;
    assert.equal(tool.name, 'docs_read_resource');
    assert.match(
      tool.description,
      /^Reads one resource of MCP server "docs" by its URI \(resources\/read\)\. Its resources:\n- docs:\/\/page\/0 \(page 0, text\/markdown\)\n/,
    );
    assert.equal(tool.description.match(/^- docs:/gm)?.length, 25);
    assert.match(tool.description, /\n- … and 17 more \(any URI the server serves may be read\)$/);
    assert.ok(tool.description.length < 2_400, `${tool.description.length} characters`);
    assert.deepEqual(tool.validate!({}).ok, false, 'uri is required');
    assert.deepEqual(tool.validate!({ uri: 'docs://page/1' }).ok, true);
  });

  it('takes another name when the server has a tool called read_resource itself', () => {
    assert.equal(mcpResourceTool(connection({ resources: 1, toolNames: ['read_resource'] }).connection)!.name, 'docs_cortex_read_resource');
  });

  it('is read-only for the batch and the policy: allowReadOnly lets it run, a rule for mcp:docs/read_resource decides', () => {
    const tool = mcpResourceTool(connection({ resources: 1 }).connection)!;
    assert.equal(tool.readOnly, true);
    assert.equal(decide(tool, {}).decision, 'confirm');
    assert.equal(decide(tool, { 'cortex.mcp.allowReadOnly': ['docs'] }).decision, 'allow');
    assert.equal(decide(tool, { 'cortex.policy.tools': { 'mcp:docs/read_resource': 'deny' }, 'cortex.mcp.allowReadOnly': ['docs'] }).decision, 'deny');
  });

  it('reads the URI, returns its text, sends an image blob to a model that takes images, and reports the result for the trace', async () => {
    const { connection: conn, reads } = connection({
      resources: 1,
      read: (uri) => ({
        contents: [
          { uri, mimeType: 'text/plain', text: 'hello' },
          { uri: `${uri}#logo`, mimeType: 'image/png', blob: PNG },
        ],
      }),
    });
    const tool = mcpResourceTool(conn)!;
    const raw: Array<Record<string, unknown>> = [];
    const attached: ToolImage[] = [];
    const context: ToolContext = {
      workspaceRoot: '/tmp',
      signal: new AbortController().signal,
      maxReadFileBytes: 1000,
      timeoutMs: 1000,
      reportRaw: (r) => raw.push(r),
      images: { accepted: true, attach: (images) => attached.push(...images) },
    };
    const text = await tool.run({ uri: 'docs://page/0' }, context);
    assert.deepEqual(reads, ['docs://page/0']);
    assert.equal(
      text,
      '[resource docs://page/0 (text/plain, 5 characters)]\nhello\n[resource docs://page/0#logo: image image/png, 16 bytes: sent as image 1 of this call, in the message after the tool results]',
    );
    assert.equal(attached.length, 1);
    assert.equal(raw[0].tool, 'read_resource');
    assert.ok(!String(raw[0].raw).includes(PNG), 'no image bytes in the raw result');
    assert.equal((raw[0].images as Array<{ sent: boolean }>)[0].sent, true);
  });
});
