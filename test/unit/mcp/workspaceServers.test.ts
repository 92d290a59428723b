import assert from 'node:assert/strict';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import type { McpServerEntry } from '../../../src/core/config/mcpTypes';
import { McpConsentStore, type StateLike } from '../../../src/host/mcpConsentStore';
import { MAX_MCP_FILE_BYTES, readWorkspaceMcpFiles } from '../../../src/host/mcpWorkspaceFiles';
import { tempWorkspace } from '../../support/agentHarness';

function memento(): StateLike & { data: Map<string, unknown> } {
  const data = new Map<string, unknown>();
  return { data, get: <T>(key: string) => data.get(key) as T | undefined, update: (key, value) => (data.set(key, structuredClone(value)), Promise.resolve()) };
}

describe('workspace MCP servers: files and consent', () => {
  it('reads .vscode/mcp.json and .mcp.json, and names what it cannot use', async () => {
    const folder = tempWorkspace();
    mkdirSync(join(folder, '.vscode'));
    writeFileSync(join(folder, '.vscode', 'mcp.json'), '{ "servers": { "a": { "command": "node", "args": ["a.js"] }, "b": { "type": "stdio" } } }');
    writeFileSync(join(folder, '.mcp.json'), '{ "mcpServers": { "c": { "url": "http://localhost:1/mcp" } } }');
    const { groups, problems } = await readWorkspaceMcpFiles(folder);
    assert.deepEqual(
      groups.map((g) => [g.source, g.servers.map((s) => s.name)]),
      [
        [{ kind: 'workspace', file: '.vscode/mcp.json' }, ['a']],
        [{ kind: 'workspace', file: '.mcp.json' }, ['c']],
      ],
    );
    assert.deepEqual(problems, ['.vscode/mcp.json: server "b": "command" must name the program to run']);
    writeFileSync(join(folder, '.mcp.json'), '{ nope');
    assert.match((await readWorkspaceMcpFiles(folder)).problems[1], /^\.mcp\.json is not valid JSON: /);
    assert.deepEqual(await readWorkspaceMcpFiles(tempWorkspace()), { groups: [], problems: [] }, 'no file, nothing to say');
  });

  it('reads only regular files of a bounded size: a FIFO, a link or a huge file is named, never waited on or followed', async () => {
    const folder = tempWorkspace();
    mkdirSync(join(folder, '.vscode'));
    // A FIFO with no writer: a plain read would wait forever.
    execFileSync('mkfifo', [join(folder, '.vscode', 'mcp.json')]);
    const elsewhere = join(tempWorkspace(), 'servers.json');
    writeFileSync(elsewhere, '{ "servers": { "x": { "command": "node" } } }');
    symlinkSync(elsewhere, join(folder, '.mcp.json'));
    const { groups, problems } = await readWorkspaceMcpFiles(folder);
    assert.deepEqual(groups, []);
    assert.equal(problems.length, 2, problems.join('\n'));
    assert.match(problems[0], /^\.vscode\/mcp\.json cannot be read: .*not a regular file/);
    assert.match(problems[1], /^\.mcp\.json cannot be read: .*(symbolic link|not a regular file)/);
    const big = tempWorkspace();
    writeFileSync(join(big, '.mcp.json'), `{ "mcpServers": {}, "pad": "${'x'.repeat(MAX_MCP_FILE_BYTES)}" }`);
    assert.match((await readWorkspaceMcpFiles(big)).problems[0], /^\.mcp\.json cannot be read: /);
  });

  it('remembers an answer for the exact definition: a changed command asks again', async () => {
    const state = memento();
    const store = new McpConsentStore(state);
    const entry: McpServerEntry = { type: 'stdio', command: 'node', args: ['server.js'], env: {} };
    assert.equal(store.status('.vscode/mcp.json', 'srv', entry), 'ask');
    await store.record('.vscode/mcp.json', 'srv', entry, 'allow');
    assert.equal(store.status('.vscode/mcp.json', 'srv', entry), 'allowed');
    assert.equal(new McpConsentStore(state).status('.vscode/mcp.json', 'srv', { ...entry, args: ['server.js', '--all-files'] }), 'changed');
    assert.equal(store.status('.mcp.json', 'srv', entry), 'ask', 'per file');
    assert.equal(store.status('.vscode/mcp.json', 'other', entry), 'ask', 'per server');
    await store.record('.vscode/mcp.json', 'srv', entry, 'deny');
    assert.equal(store.status('.vscode/mcp.json', 'srv', entry), 'denied');
    assert.ok(![...state.data.values()].some((value) => JSON.stringify(value).includes('server.js')), 'only hashes are kept');
  });
});
