import assert from 'node:assert/strict';
import { MAX_RAW_RESULT_BYTES, renderToolResult } from '../../../src/core/mcp/resultText';
import { mcpNameConflicts, mcpToolName } from '../../../src/core/mcp/toolNames';
import { toolSummaries } from '../../../src/core/mcp/toolSummaries';
import { createBuiltinRegistry } from '../../../src/core/tools/workspace/builtinTools';
import { parseConfig } from '../../../src/core/config/configSchema';
import { fakeMcpTool } from './fakeMcpTool';

describe('MCP tool names', () => {
  it('joins server and tool with _ and keeps only characters every endpoint accepts', () => {
    assert.equal(mcpToolName('everything', 'get-sum'), 'everything_get-sum');
    assert.equal(mcpToolName('my server', 'files.read/all'), 'my_server_files_read_all');
    const long = mcpToolName('a-very-long-server-name-for-testing', 'and-an-even-longer-tool-name-that-goes-on-and-on');
    assert.match(long, /^[A-Za-z0-9_-]{1,64}$/);
    assert.equal(long.length, 64);
    assert.notEqual(
      long,
      mcpToolName('a-very-long-server-name-for-testing', 'and-an-even-longer-tool-name-that-goes-on-and-on-2'),
      'a cut name keeps a hash of the full one',
    );
  });

  it('reports clashes with native tools and between servers, also after normalisation, naming both', () => {
    const tool = (server: string, name: string) => ({ name: mcpToolName(server, name), origin: { server, tool: name } });
    const conflicts = mcpNameConflicts(
      ['read_file', 'write_file'],
      [tool('read', 'file'), tool('Write', 'File'), tool('my-srv', 'do'), tool('my_srv', 'do'), tool('ok', 'fine')],
      true,
    );
    assert.deepEqual(conflicts, [
      'the tool "file" of MCP server "read" (as "read_file") has the name of the built-in tool "read_file" (rename the server)',
      'the tool "File" of MCP server "Write" (as "Write_File") and the built-in tool "write_file" both normalize to "write_file" (rename the server, or set cortex.tools.normalizeFallback to false)',
      'the tool "do" of MCP server "my-srv" (as "my-srv_do") and the tool "do" of MCP server "my_srv" (as "my_srv_do") both normalize to "my_srv_do" (rename one of the servers, or set cortex.tools.normalizeFallback to false)',
    ]);
    assert.deepEqual(mcpNameConflicts(['write_file'], [tool('Write', 'File')], false), [], 'without the normalize fallback only exact names clash');
  });

  it('join the registry with their JSON Schema, visible to name resolution and to the planner as one line', () => {
    const registry = createBuiltinRegistry(parseConfig({}), {
      extra: [fakeMcpTool('everything', 'get-sum', { description: 'Returns the sum of two numbers. It adds them up carefully.\nSecond line.' })],
    });
    assert.deepEqual(registry.resolve('everything_get-sum'), { requestedName: 'everything_get-sum', name: 'everything_get-sum', resolution: 'exact' });
    assert.equal(registry.resolve('everythingGetSum').resolution, 'normalized');
    assert.deepEqual(registry.parameters('everything_get-sum'), {
      type: 'object',
      properties: { a: { type: 'number' }, b: { type: 'number' } },
      required: ['a', 'b'],
      additionalProperties: false,
    });
    const summary = toolSummaries(registry).find((t) => t.name === 'everything_get-sum');
    assert.equal(summary?.description, 'Returns the sum of two numbers. (MCP server "everything")');
    assert.ok(toolSummaries(registry).some((t) => t.name === 'read_file' && t.description.length > 0));
  });
});

describe('MCP tool results', () => {
  it('keeps text and text resources, describes images (without an image channel), audio, binary resources and links, and elides binary data in the raw result', () => {
    const image = Buffer.alloc(300, 1).toString('base64');
    const rendered = renderToolResult({
      content: [
        { type: 'text', text: 'first' },
        { type: 'image', data: image, mimeType: 'image/png' },
        { type: 'audio', data: 'AAAA', mimeType: 'audio/wav' },
        { type: 'resource', resource: { uri: 'file:///a.txt', mimeType: 'text/plain', text: 'secret' } },
        { type: 'resource', resource: { uri: 'file:///b.bin', blob: 'AAAA' } },
        { type: 'resource_link', uri: 'file:///c', name: 'c' },
        { type: 'text', text: 'last' },
      ],
    });
    assert.equal(
      rendered.text,
      [
        'first',
        '[image image/png, 300 bytes: not shown, this model does not take images here (this call has no way to send images to the model)]',
        '[audio audio/wav, 3 bytes: not sent, Cortex sends no audio to the model]',
        '[embedded resource file:///a.txt (text/plain, 6 characters)]\nsecret',
        '[embedded resource file:///b.bin (3 bytes of binary data), not shown: binary content is not sent to the model]',
        '[resource link file:///c (c)]',
        'last',
      ].join('\n'),
    );
    assert.deepEqual(rendered.images, []);
    assert.deepEqual(rendered.imageRecords, [{ mimeType: 'image/png', bytes: 300, sent: false, reason: 'this call has no way to send images to the model' }]);
    assert.equal(rendered.isError, false);
    assert.ok(!rendered.rawJson.includes(image), 'no base64 in the trace');
    assert.match(rendered.rawJson, /\(300 bytes of base64 data left out\)/);
    assert.match(rendered.rawJson, /"text":"secret"/, 'the raw result keeps the resource text for the details pane');
  });

  it('uses structured content when there is no text, flags isError, and caps the raw result', () => {
    assert.deepEqual(renderToolResult({ content: [], structuredContent: { temperature: 21 } }).text, '{"temperature":21}');
    const failed = renderToolResult({ content: [{ type: 'text', text: 'nope' }], isError: true });
    assert.deepEqual([failed.text, failed.isError], ['nope', true]);
    const huge = renderToolResult({ content: [{ type: 'text', text: 'x'.repeat(100_000) }] });
    assert.equal(huge.text.length, 100_000, 'the model text is capped later, by the executor');
    assert.ok(Buffer.byteLength(huge.rawJson) <= MAX_RAW_RESULT_BYTES);
    assert.match(huge.rawJson, /output truncated/);
  });
});
