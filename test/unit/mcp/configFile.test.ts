import assert from 'node:assert/strict';
import { parseConfig } from '../../../src/core/config/configSchema';
import { stripJsonComments } from '../../../src/core/mcp/jsonc';
import { McpConfigFileError, parseMcpConfigFile } from '../../../src/core/mcp/mcpConfigFile';
import { parseEnvFile } from '../../../src/core/mcp/envFile';
import { parseServerEntry } from '../../../src/core/config/mcpServerEntry';

describe('MCP configuration: VS Code mcp.json, mcpServers and cortex.mcp.servers', () => {
  it("reads VS Code's .vscode/mcp.json with comments, trailing commas, inputs and both server types", () => {
    const text = `{
      // a local server
      "servers": {
        "everything": { "type": "stdio", "command": "npx", "args": ["-y", "server-everything", 3], "env": { "TOKEN": "\${input:token}", "N": 2 }, },
        /* a remote one */
        "remote": { "type": "http", "url": "https://mcp.example.com/mcp", "headers": { "Authorization": "Bearer \${input:token}" } },
        "old": { "type": "sse", "url": "http://127.0.0.1:3001/sse" },
      },
      "inputs": [ { "type": "promptString", "id": "token", "description": "API token", "password": true } ],
    }`;
    const file = parseMcpConfigFile(text, '.vscode/mcp.json');
    assert.deepEqual(file.problems, []);
    assert.deepEqual(file.servers, [
      { name: 'everything', entry: { type: 'stdio', command: 'npx', args: ['-y', 'server-everything', '3'], env: { TOKEN: '${input:token}', N: '2' } } },
      { name: 'remote', entry: { type: 'http', url: 'https://mcp.example.com/mcp', headers: { Authorization: 'Bearer ${input:token}' } } },
      { name: 'old', entry: { type: 'sse', url: 'http://127.0.0.1:3001/sse', headers: {} } },
    ]);
    assert.deepEqual(file.inputs, [{ type: 'promptString', id: 'token', description: 'API token', password: true, default: undefined }]);
  });

  it("reads the mcpServers shape (no type: command means stdio, url means HTTP), skipping disabled servers and other clients' keys", () => {
    const file = parseMcpConfigFile(
      JSON.stringify({
        mcpServers: {
          fs: { command: 'node', args: ['fs.js'], autoApprove: ['read'] },
          web: { url: 'http://localhost:9/mcp' },
          off: { command: 'x', disabled: true },
        },
      }),
      'mcp.json',
    );
    assert.deepEqual(file.problems, []);
    assert.deepEqual(
      file.servers.map((s) => [s.name, s.entry.type]),
      [
        ['fs', 'stdio'],
        ['web', 'http'],
      ],
    );
    assert.equal('autoApprove' in file.servers[0].entry, false, "another client's auto-approval is never carried over");
  });

  it('names the file, the server and the problem', () => {
    assert.throws(
      () => parseMcpConfigFile('{ "servers": ', 'a.json'),
      (e: Error) => e instanceof McpConfigFileError && /a\.json is not valid JSON/.test(e.message),
    );
    assert.throws(() => parseMcpConfigFile('[]', 'b.json'), /b\.json must hold a JSON object/);
    assert.throws(() => parseMcpConfigFile('{"tools": {}}', 'c.json'), /c\.json has neither "servers".*nor "mcpServers"/);
    const file = parseMcpConfigFile(
      JSON.stringify({
        servers: { a: { type: 'stdio' }, b: { type: 'ftp', url: 'x' }, c: { url: 'ftp://x' }, d: 'npx x' },
        inputs: [{ type: 'command', id: 'k' }],
      }),
      'd.json',
    );
    assert.deepEqual(file.problems, [
      'server "a": "command" must name the program to run',
      'server "b": unknown "type" "ftp" (use "stdio", "http" or "sse")',
      'server "c": "url" must start with http:// or https://, not "ftp://x"',
      'server "d": the definition must be an object with "command" (a local server) or "url" (a remote one)',
      'input "k": type "command" is not supported (use "promptString" or "pickString")',
    ]);
    assert.deepEqual(file.servers, []);
  });

  it('checks cortex.mcp.servers strictly: a typo is an error naming the setting and the server', () => {
    const config = parseConfig({ 'cortex.mcp.servers': { everything: { command: 'node', args: ['x.js'] } } });
    assert.deepEqual(config['cortex.mcp.servers'], { everything: { type: 'stdio', command: 'node', args: ['x.js'], env: {} } });
    assert.deepEqual(parseConfig({})['cortex.mcp.servers'], {});
    assert.throws(
      () => parseConfig({ 'cortex.mcp.servers': { everything: { command: 'node', arg: ['x.js'] } } }),
      /cortex\.mcp\.servers\.everything: unknown key\(s\) "arg" for a stdio server/,
    );
    assert.throws(
      () => parseConfig({ 'cortex.mcp.servers': { remote: { url: 'http://x', headers: { a: [1] } } } }),
      /cortex\.mcp\.servers\.remote: "headers\.a" must be text, not a list/,
    );
  });

  it('refuses server names that cannot be shown', () => {
    const result = parseServerEntry('bad\u001bname', { command: 'x' }, true);
    assert.equal(result.ok, false);
    assert.match(!result.ok ? result.problems[0] : '', /control characters/);
  });

  it('strips comments without touching strings that look like comments', () => {
    const text = '{"a": "http://x//y", /* c */ "b": "/* no */", // end\n "c": [1, 2, ],}';
    assert.deepEqual(JSON.parse(stripJsonComments(text)), { a: 'http://x//y', b: '/* no */', c: [1, 2] });
  });

  it('reads dotenv files for envFile', () => {
    assert.deepEqual(parseEnvFile('# comment\nA=1\nexport B="two words\\nnext"\nC=\'single # kept\'\nD=plain # comment\nnot a line\n'), {
      A: '1',
      B: 'two words\nnext',
      C: 'single # kept',
      D: 'plain',
    });
  });
});
