import assert from 'node:assert/strict';
import path from 'node:path';
import { describeServerCommand, serverDefinitionHash } from '../../../src/core/mcp/definitionHash';
import type { McpServerEntry } from '../../../src/core/config/mcpTypes';
import { inputIdsOf, McpVariableError, resolveVariables, type VariableContext } from '../../../src/core/mcp/variables';

const context = (inputs: Record<string, string> = {}): VariableContext & { asked: string[] } => {
  const asked: string[] = [];
  return {
    workspaceFolder: '/ws/proj',
    userHome: '/home/me',
    env: { SHELL_VAR: 'from-env' },
    asked,
    input: (id) => (asked.push(id), Promise.resolve(inputs[id])),
  };
};

describe('MCP variables and definition hashes', () => {
  it('substitutes workspace, home, env and input variables in every field of a stdio server', async () => {
    const entry: McpServerEntry = {
      type: 'stdio',
      command: '${userHome}/bin/srv',
      args: ['--root=${workspaceFolder}', '${workspaceFolderBasename}', '${env:SHELL_VAR}', '${env:MISSING}'],
      env: { TOKEN: '${input:token}' },
      cwd: 'sub',
      envFile: '.env',
    };
    const ctx = context({ token: 's3cret' });
    assert.deepEqual(inputIdsOf(entry), ['token']);
    const resolved = await resolveVariables('srv', entry, ctx);
    assert.deepEqual(resolved, {
      type: 'stdio',
      command: '/home/me/bin/srv',
      args: ['--root=/ws/proj', 'proj', 'from-env', ''],
      env: { TOKEN: 's3cret' },
      cwd: path.resolve('/ws/proj/sub'),
      envFile: path.resolve('/ws/proj/.env'),
    });
    assert.deepEqual(ctx.asked, ['token']);
  });

  it('runs a stdio server without cwd in the workspace folder, and resolves URL servers', async () => {
    const stdio = await resolveVariables('a', { type: 'stdio', command: 'x', args: [], env: {} }, context());
    assert.equal(stdio.type === 'stdio' && stdio.cwd, path.resolve('/ws/proj'));
    const http = await resolveVariables(
      'b',
      { type: 'http', url: 'http://127.0.0.1:${input:port}/mcp', headers: { Authorization: 'Bearer ${input:key}' } },
      context({ port: '3001', key: 'k' }),
    );
    assert.deepEqual(http, { type: 'http', url: 'http://127.0.0.1:3001/mcp', headers: { Authorization: 'Bearer k' } });
  });

  it('refuses unknown variables, inputs nobody gave, and URLs that are not http(s)', async () => {
    await assert.rejects(
      resolveVariables('a', { type: 'stdio', command: '${workspaceRoot}/x', args: [], env: {} }, context()),
      (e: Error) => e instanceof McpVariableError && /MCP server "a" command: unknown variable \$\{workspaceRoot\}/.test(e.message),
    );
    await assert.rejects(
      resolveVariables('a', { type: 'stdio', command: 'x', args: ['${input:key}'], env: {} }, context()),
      /MCP server "a" args\[0\]: no value was given for \$\{input:key\}/,
    );
    await assert.rejects(resolveVariables('b', { type: 'http', url: '${env:NOPE}', headers: {} }, context()), /the url must start with http/);
  });

  it('hashes the exact definition: any change to the command line changes the hash, key order does not', () => {
    const base: McpServerEntry = { type: 'stdio', command: 'node', args: ['srv.js'], env: { A: '1', B: '2' } };
    const hash = serverDefinitionHash('srv', base);
    assert.equal(serverDefinitionHash('srv', { type: 'stdio', command: 'node', args: ['srv.js'], env: { B: '2', A: '1' } }), hash);
    for (const changed of [
      { ...base, args: ['srv.js', '--evil'] },
      { ...base, command: 'bash' },
      { ...base, env: { A: '1', B: '3' } },
      { ...base, cwd: '/tmp' },
    ])
      assert.notEqual(serverDefinitionHash('srv', changed), hash);
    assert.notEqual(serverDefinitionHash('other', base), hash);
  });

  it('shows the command line to allow, quoted where needed', () => {
    assert.equal(
      describeServerCommand({ type: 'stdio', command: 'node', args: ['srv.js', 'two words', "it's"], env: { TOKEN: 'x' }, cwd: '/ws' }),
      `node srv.js 'two words' 'it'\\''s' (environment: TOKEN) in /ws`,
    );
    assert.equal(describeServerCommand({ type: 'http', url: 'https://x/mcp', headers: {} }), 'HTTP server at https://x/mcp');
  });
});
