import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { main } from '../../src/cli/main';
import { readTraceSync } from '../support/traceFile';
import { tempWorkspace } from '../support/agentHarness';
import { call, json, message, route, toolCalls, toolMessages, toolNames } from '../support/scriptedReplies';
import { useScriptedServer } from '../support/useScriptedServer';
import { FAULTY_SERVER, RAW_SCHEMA_SERVER } from '../fixtures/mcp/mcpServers';

// `cortex run --mcp-config FILE` (docs/design.md, “MCP tools”): the servers of that file (either shape) and
// of cortex.mcp.servers; never a workspace's own .vscode/mcp.json.

async function cli(argv: string[], env: Record<string, string> = {}) {
  const collect = () => {
    const stream = new PassThrough();
    let text = '';
    stream.on('data', (d) => (text += String(d)));
    return { stream, text: () => text };
  };
  const stdout = collect();
  const stderr = collect();
  const stdin = Object.assign(new PassThrough(), { isTTY: false });
  const code = await main(argv, { stdout: stdout.stream as never, stderr: stderr.stream as never, stdin: stdin as never, cwd: process.cwd(), env });
  return { code, stdout: stdout.text(), stderr: stderr.text() };
}

const faultyServer = (extra: Record<string, unknown> = {}) => ({ type: 'stdio', command: process.execPath, args: [FAULTY_SERVER], ...extra });

describe('cortex CLI with MCP servers', function () {
  this.timeout(30_000);
  const server = useScriptedServer();
  let workspace: string;
  let files: string;
  beforeEach(() => {
    workspace = tempWorkspace();
    files = tempWorkspace('cortex-mcp-cli-');
  });

  const file = (name: string, content: unknown) => {
    const path = join(files, name);
    writeFileSync(path, typeof content === 'string' ? content : JSON.stringify(content));
    return path;
  };
  const base = () => ['run', '--workspace', workspace, '--base-url', server().baseUrl, '--model', 'm'];

  it("runs the tools of an --mcp-config file (VS Code shape) and the trace records each call's server", async () => {
    let told = '';
    server().setHandler(
      route({
        planner: json({ title: 'echo', steps: ['Echo hi on faulty'], dependencies: {} }),
        executor: (req) =>
          toolMessages(req).length ? ((told = String(toolMessages(req)[0].content)), message('echoed')) : toolCalls(call('faulty_echo', { message: 'hi' })),
        aggregator: message('Echoed.'),
      }),
    );
    const config = file('mcp.json', `{ // VS Code's format, comments and all\n "servers": { "faulty": ${JSON.stringify(faultyServer())} } }`);
    const trace = join(files, 'trace.jsonl');
    const result = await cli([...base(), '--mcp-config', config, '--trace', trace, '--approve', 'all', 'echo hi']);
    assert.equal(result.code, 0, result.stderr);
    assert.equal(result.stdout.trim(), 'Echoed.');
    assert.equal(told, 'hi');
    const { events } = readTraceSync(trace);
    assert.ok(events.some((e) => e.type === 'log' && /^MCP server "faulty" started \(stdio, pid \d+\)/.test(e.message)));
    const requested = events.find((e) => e.type === 'tool_call_requested');
    assert.deepEqual(requested?.type === 'tool_call_requested' && requested.call.audit?.mcp, {
      server: 'faulty',
      tool: 'echo',
      annotations: { readOnlyHint: true },
    });
  });

  it('a server slower to start than cortex.mcp.startTimeoutSeconds is said to have timed out, naming the setting, not to have exited', async () => {
    server().setHandler(
      route({
        planner: json({ title: 't', steps: ['Say hi'], dependencies: {} }),
        executor: message('hi'),
        aggregator: message('Said hi.'),
      }),
    );
    const settings = file('settings.json', { 'cortex.mcp.startTimeoutSeconds': 1 });
    const config = file('slow.json', { servers: { slow: faultyServer({ args: [FAULTY_SERVER, '--slow-start=20000'] }) } });
    const trace = join(files, 'trace.jsonl');
    const started = Date.now();
    const result = await cli([...base(), '--config', settings, '--mcp-config', config, '--trace', trace, 'say hi']);
    assert.equal(result.code, 0, result.stderr);
    assert.ok(Date.now() - started < 15_000, `took ${Date.now() - started} ms`);
    const expected =
      'MCP server "slow" could not start: timed out after 1 s waiting for the MCP handshake; raise cortex.mcp.startTimeoutSeconds if the server needs longer to start (a first npx, uvx or docker run downloads it): faulty: downloading (slow start). The run continues without its tools.';
    assert.ok(result.stderr.includes(expected), result.stderr);
    assert.doesNotMatch(result.stderr, /exited|SIGTERM/);
    const { events } = readTraceSync(trace);
    assert.ok(events.some((e) => e.type === 'log' && e.message === expected));
  });

  it('a free-form object parameter ({"type": "object"}) is offered open and its fields reach the server', async () => {
    let told = '';
    let offered: any;
    server().setHandler(
      route({
        planner: json({ title: 'record', steps: ['Record the item'], dependencies: {} }),
        executor: (req) => {
          if (toolMessages(req).length) return ((told = String(toolMessages(req)[0].content)), message('recorded'));
          offered = req.body.tools.find((t: any) => t.function.name === 'raw_record')?.function.parameters;
          return toolCalls(call('raw_record', { name: 'item', meta: { owner: 'x', labels: ['a'] } }));
        },
        aggregator: message('Recorded.'),
      }),
    );
    const config = file('raw.json', { servers: { raw: { type: 'stdio', command: process.execPath, args: [RAW_SCHEMA_SERVER] } } });
    const result = await cli([...base(), '--mcp-config', config, '--approve', 'all', 'record it']);
    assert.equal(result.code, 0, result.stderr);
    assert.deepEqual(offered, {
      type: 'object',
      properties: { name: { type: 'string' }, meta: { type: 'object', description: 'Any metadata' } },
      required: ['name'],
      additionalProperties: false,
    });
    assert.equal(told, 'received {"name":"item","meta":{"owner":"x","labels":["a"]}}');
  });

  it('identical calls in one response: a tool without hints runs each time, an idempotent one runs once and the repeat is recorded as reusing its result', async () => {
    let told: string[] = [];
    server().setHandler(
      route({
        planner: json({ title: 'draws', steps: ['Draw and look up'], dependencies: {} }),
        executor: (req) => {
          if (toolMessages(req).length) return ((told = toolMessages(req).map((m) => String(m.content))), message('drawn'));
          return toolCalls(
            call('raw_draw', { mu: 0 }, 'd1'),
            call('raw_draw', { mu: 0 }, 'd2'),
            call('raw_lookup', { key: 'k' }, 'l1'),
            call('raw_lookup', { key: 'k' }, 'l2'),
          );
        },
        aggregator: message('Done.'),
      }),
    );
    const config = file('raw.json', { servers: { raw: { type: 'stdio', command: process.execPath, args: [RAW_SCHEMA_SERVER] } } });
    const trace = join(files, 'trace.jsonl');
    const result = await cli([...base(), '--mcp-config', config, '--trace', trace, '--approve', 'all', 'draw']);
    assert.equal(result.code, 0, result.stderr);
    assert.equal(told[0], 'draw run #1 with {"mu":0}');
    assert.equal(told[1], 'draw run #2 with {"mu":0}', 'the second draw did not run');
    assert.equal(told[2], 'lookup run #1 with {"key":"k"}');
    assert.match(
      told[3],
      /^Same tool and arguments as call l1, which only reads \(or is idempotent\): not run again; the result of l1:\nlookup run #1 with \{"key":"k"\}$/,
    );
    const { events } = readTraceSync(trace);
    const completed = events.filter((e) => e.type === 'tool_call_completed');
    assert.deepEqual(
      completed.map((e) => [e.callId, e.reason, e.reusedFrom]),
      [
        ['d1', undefined, undefined],
        ['d2', undefined, undefined],
        ['l1', undefined, undefined],
        ['l2', 'reused', 'l1'],
      ],
    );
    const audit = events.find((e) => e.type === 'step_audit' && e.kind === 'tool_batch');
    assert.equal(audit?.type === 'step_audit' && audit.data.executed, 3);
    const verified = events.find((e) => e.type === 'step_verified');
    assert.match(
      verified?.type === 'step_verified' ? verified.reason : '',
      /all 4 tool calls got a result \(1 of them did not run and reuse the result of an identical call: l2 reuses l1\)/,
    );
    assert.match(result.stderr, /raw_lookup: not run, reuses the result of the identical call l1/);
  });

  it("reads the mcpServers shape and cortex.mcp.servers from --config, and never the workspace's .vscode/mcp.json", async () => {
    let offered: string[] = [];
    server().setHandler(
      route({
        planner: json({ title: 't', steps: ['Look around'], dependencies: {} }),
        executor: (req) => ((offered = toolNames(req)), message('looked')),
        aggregator: message('ok'),
      }),
    );
    mkdirSync(join(workspace, '.vscode'));
    writeFileSync(join(workspace, '.vscode', 'mcp.json'), JSON.stringify({ servers: { sneaky: faultyServer() } }));
    const settings = file('settings.json', { 'cortex.mcp.servers': { fromSettings: { command: process.execPath, args: [FAULTY_SERVER] } } });
    const config = file('agents.json', { mcpServers: { other: { command: process.execPath, args: [FAULTY_SERVER] } } });
    const result = await cli([...base(), '--config', settings, '--mcp-config', config, 'look']);
    assert.equal(result.code, 0, result.stderr);
    assert.ok(offered.includes('fromSettings_echo') && offered.includes('other_echo'), offered.join(', '));
    assert.ok(!offered.some((name) => name.startsWith('sneaky')), 'the workspace file was read');
  });

  it('exit 2 with one line for a missing or broken file, a bad server, a name defined twice, or an input without a terminal', async () => {
    const missing = join(files, 'missing.json');
    const cases: Array<[string[], string]> = [
      [['--mcp-config', missing], `cortex: MCP config file ${missing} does not exist\n`],
      [['--mcp-config', file('broken.json', '{ "servers": ')], `cortex: MCP config file ${join(files, 'broken.json')} is not valid JSON: `],
      [
        ['--mcp-config', file('bad.json', { servers: { x: { type: 'stdio', args: [] } } })],
        `cortex: MCP config file ${join(files, 'bad.json')}: server "x": "command" must name the program to run\n`,
      ],
      [
        [
          '--config',
          file('s.json', { 'cortex.mcp.servers': { twice: faultyServer() } }),
          '--mcp-config',
          file('twice.json', { servers: { twice: faultyServer() } }),
        ],
        `cortex: MCP server "twice" is defined in both the cortex.mcp.servers setting and ${join(files, 'twice.json')}; rename one\n`,
      ],
      [
        [
          '--mcp-config',
          file('input.json', {
            servers: { s: faultyServer({ env: { TOKEN: '${input:token}' } }) },
            inputs: [{ type: 'promptString', id: 'token', description: 'Server token', password: true }],
          }),
        ],
        'cortex: an MCP server needs ${input:token} (Server token), but there is no terminal to ask; put the value in ${env:NAME} instead\n',
      ],
    ];
    for (const [flags, expected] of cases) {
      const result = await cli([...base(), ...flags, 'x']);
      assert.equal(result.code, 2, result.stderr);
      assert.ok(result.stderr.startsWith(expected), `${result.stderr} does not start with ${expected}`);
      assert.equal(result.stderr.trim().split('\n').length, 1);
    }
    assert.equal(server().requests.length, 0);
  });

  it("${env:NAME} takes a value from the CLI's environment for the server", async () => {
    let told = '';
    server().setHandler(
      route({
        planner: json({ title: 'env', steps: ['Read TOKEN on faulty'], dependencies: {} }),
        executor: (req) =>
          toolMessages(req).length ? ((told = String(toolMessages(req)[0].content)), message('read')) : toolCalls(call('faulty_env', { name: 'TOKEN' })),
        aggregator: message('ok'),
      }),
    );
    const config = file('env.json', { servers: { faulty: faultyServer({ env: { TOKEN: '${env:MY_TOKEN}' } }) } });
    const result = await cli([...base(), '--mcp-config', config, '--approve', 'all', 'x'], { MY_TOKEN: 'from-the-shell' });
    assert.equal(result.code, 0, result.stderr);
    assert.equal(told, 'from-the-shell');
  });

  it("a server gets the user's PATH as it is: nothing (Cortex's own Node included) is put in front", async () => {
    let told = '';
    server().setHandler(
      route({
        planner: json({ title: 'env', steps: ['Read PATH on faulty'], dependencies: {} }),
        executor: (req) =>
          toolMessages(req).length ? ((told = String(toolMessages(req)[0].content)), message('read')) : toolCalls(call('faulty_env', { name: 'PATH' })),
        aggregator: message('ok'),
      }),
    );
    const userPath = '/opt/user-node-20/bin:/usr/local/bin:/usr/bin:/bin';
    const config = file('path.json', { servers: { faulty: faultyServer() } });
    const result = await cli([...base(), '--mcp-config', config, '--approve', 'all', 'x'], { PATH: userPath });
    assert.equal(result.code, 0, result.stderr);
    assert.equal(told, userPath);
  });
});
