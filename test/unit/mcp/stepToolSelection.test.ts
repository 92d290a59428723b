import assert from 'node:assert/strict';
import { parseConfig } from '../../../src/core/config/configSchema';
import { keywords, selectStepTools } from '../../../src/core/mcp/stepToolSelection';
import { createBuiltinRegistry } from '../../../src/core/tools/workspace/builtinTools';
import { fakeMcpTool } from './fakeMcpTool';

const servers = [
  fakeMcpTool('github', 'create_issue', { description: 'Create an issue in a GitHub repository' }),
  fakeMcpTool('github', 'list_pull_requests', { description: 'List pull requests of a repository' }),
  fakeMcpTool('github', 'merge_pull_request', { description: 'Merge a pull request' }),
  fakeMcpTool('postgres', 'query', { description: 'Run a read-only SQL query against the database' }),
  fakeMcpTool('postgres', 'list_tables', { description: 'List the tables of the database' }),
  fakeMcpTool('weather', 'forecast', { description: 'Weather forecast for a city' }),
];
const registry = createBuiltinRegistry(parseConfig({}), { extra: servers });
const mcpNames = (selection: ReturnType<typeof selectStepTools>) =>
  selection.registry
    .names()
    .filter(
      (name) => !['read_file', 'list_directory', 'find_files', 'search_text', 'write_file', 'edit_file', 'create_directory', 'run_command'].includes(name),
    );

describe('MCP tools per step', () => {
  it('sends every tool when they fit in cortex.mcp.maxTools, without an audit', () => {
    const selection = selectStepTools(registry, 'anything', 6);
    assert.equal(selection.registry, registry);
    assert.equal(selection.audit, undefined);
  });

  it('sends the servers a step names, and audits the choice', () => {
    const selection = selectStepTools(registry, 'Use postgres to count the orders', 3);
    assert.deepEqual(mcpNames(selection), ['postgres_query', 'postgres_list_tables']);
    assert.equal(selection.registry.names().length, 8 + 2, 'the workspace tools are always sent');
    assert.deepEqual((selection.audit as { servers: unknown }).servers, [{ server: 'postgres', reason: 'named', score: 1, tools: 2, of: 2 }]);
    assert.deepEqual(selection.audit?.left, [
      { server: 'github', score: 0, tools: 3 },
      { server: 'weather', score: 0, tools: 1 },
    ]);
    assert.equal(selection.audit?.sent, 2);
    assert.equal(selection.audit?.available, 6);
  });

  it('counts a named tool as naming its server, and ranks the others by keyword overlap', () => {
    const named = selectStepTools(registry, 'Call create_issue with the findings', 3);
    assert.deepEqual(mcpNames(named), ['github_create_issue', 'github_list_pull_requests', 'github_merge_pull_request']);
    const byWords = selectStepTools(registry, 'Find which database tables hold the orders and what the forecast says', 3);
    assert.deepEqual(mcpNames(byWords), ['postgres_query', 'postgres_list_tables', 'weather_forecast']);
    // "forecast" is a tool's name, so the weather server counts as named and comes first.
    assert.deepEqual(
      (byWords.audit?.servers as Array<{ server: string; reason: string }>).map((s) => [s.server, s.reason]),
      [
        ['weather', 'named'],
        ['postgres', 'keywords'],
      ],
    );
  });

  it('fills the budget with the best tools of a server that does not fit whole, and sends none when nothing matches', () => {
    const partial = selectStepTools(registry, 'Merge the pull request on github', 2);
    assert.deepEqual(mcpNames(partial), ['github_list_pull_requests', 'github_merge_pull_request']);
    assert.deepEqual((partial.audit?.servers as unknown[])[0], { server: 'github', reason: 'named', score: 4, tools: 2, of: 3 });
    assert.deepEqual(mcpNames(selectStepTools(registry, 'Write hello.txt', 2)), []);
  });

  it('reads words the way a description is written', () => {
    assert.deepEqual([...keywords('List the pullRequests of repos, then query-tables')], ['list', 'pull', 'request', 'repo', 'query', 'table']);
  });
});
