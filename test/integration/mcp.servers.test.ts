import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { McpSession, McpToolConflictError } from '../../src/core/mcp/mcpSession';
import { EventLog } from '../../src/core/plan/eventLog';
import type { RunEvent } from '../../src/core/plan/events';
import { executeTool } from '../../src/core/tools/toolExecutor';
import type { ToolContext, ToolDefinition } from '../../src/core/tools/toolTypes';
import { probeSandbox } from '../../src/core/sandbox/bubblewrap';
import { tempWorkspace } from '../support/agentHarness';
import { processesMatching } from '../unit/sandbox/sandboxSupport';
import { everythingStdio, faulty, isAlive, startEverythingHttp, until, urlDefinition, type HttpEverything } from '../fixtures/mcp/mcpServers';

// The MCP client against real servers (docs/design.md, “MCP tools”): the reference server over stdio,
// Streamable HTTP and SSE, and the in-repo faulty server for every fault.

const NATIVE = ['read_file', 'write_file', 'run_command'];

async function startSession(definitions: Parameters<typeof McpSession.start>[0], processEnv: NodeJS.ProcessEnv = process.env) {
  const log = new EventLog();
  const abort = new AbortController();
  const started = await McpSession.start(definitions, {
    log,
    processEnv,
    startTimeoutMs: 15_000,
    signal: abort.signal,
    nativeNames: NATIVE,
    normalizeFallback: true,
  });
  const tool = (name: string) => {
    const found = started.tools.find((t) => t.name === name);
    if (!found) throw new Error(`no tool ${name}; have ${started.tools.map((t) => t.name).join(', ')}`);
    return found;
  };
  return { ...started, log, abort, tool };
}

function logs(log: EventLog): Array<Extract<RunEvent, { type: 'log' }>> {
  return log.events.filter((e): e is Extract<RunEvent, { type: 'log' }> => e.type === 'log');
}

async function run(
  tool: ToolDefinition,
  args: Record<string, unknown>,
  options: { timeoutMs?: number; maxOutputBytes?: number; raw?: Array<Record<string, unknown>> } = {},
) {
  const context: ToolContext = {
    workspaceRoot: tempWorkspace(),
    signal: new AbortController().signal,
    maxReadFileBytes: 1_000_000,
    timeoutMs: options.timeoutMs ?? 10_000,
    reportRaw: (raw) => options.raw?.push(raw),
  };
  return executeTool(tool, args, context, options.maxOutputBytes ?? 32_768);
}

describe('MCP servers: the client against real servers', function () {
  this.timeout(60_000);

  it('stdio: the reference server starts, its tools are named <server>_<tool>, calls return text, and stop leaves no process', async () => {
    const { session, tools, tool, log } = await startSession([everythingStdio()]);
    const pid = session.connections[0].pids[0];
    try {
      assert.ok(isAlive(pid));
      assert.ok(tools.length >= 10, `tools: ${tools.map((t) => t.name).join(', ')}`);
      const sum = tool('everything_get-sum');
      assert.deepEqual(sum.origin, {
        kind: 'mcp',
        server: 'everything',
        tool: 'get-sum',
        annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
      });
      assert.deepEqual([sum.readOnly, sum.idempotent, sum.changes], [true, true, 'unrecorded']);
      assert.equal(tool('everything_toggle-simulated-logging').readOnly, false);
      const raw: Array<Record<string, unknown>> = [];
      const result = await run(sum, { a: 2, b: 3 }, { raw });
      assert.deepEqual([result.ok, result.output], [true, 'The sum of 2 and 3 is 5.']);
      assert.deepEqual(raw, [
        { server: 'everything', tool: 'get-sum', isError: false, raw: '{"content":[{"type":"text","text":"The sum of 2 and 3 is 5."}]}' },
      ]);
      const image = await run(tool('everything_get-tiny-image'), {});
      assert.match(image.output, /^Here's the image you requested:\n\[image image\/png, \d+ bytes: not shown, this model does not take images here/);
      assert.ok(tool('everything_read_resource').readOnly, 'the reference server lists resources: its read_resource tool is read-only');
      assert.match(logs(log)[0].message, new RegExp(`^MCP server "everything" started \\(stdio, pid ${pid}\\) with ${tools.length} tool\\(s\\)$`));
    } finally {
      await session.stop();
    }
    assert.equal(isAlive(pid), false, `pid ${pid} still runs after stop`);
    assert.match(logs(log).at(-1)!.message, /^Stopped MCP server\(s\): everything$/);
  });

  describe('over HTTP', () => {
    let server: HttpEverything | undefined;
    afterEach(async () => {
      await server?.stop();
      server = undefined;
    });

    it('Streamable HTTP: connects, calls a tool and ends the session', async () => {
      server = await startEverythingHttp('streamableHttp');
      const { session, tool } = await startSession([urlDefinition('remote', { type: 'http', url: server.url, headers: { 'X-Test': '1' } })]);
      try {
        assert.equal(session.connections[0].via, 'http');
        const echo = await run(tool('remote_echo'), { message: 'over http' });
        assert.deepEqual([echo.ok, echo.output], [true, 'Echo: over http']);
      } finally {
        await session.stop();
      }
    });

    it('falls back to the older SSE transport when the URL does not speak Streamable HTTP', async () => {
      server = await startEverythingHttp('sse');
      const { session, tool } = await startSession([urlDefinition('legacy', { type: 'http', url: server.url, headers: {} })]);
      try {
        assert.equal(session.connections[0].via, 'sse');
        assert.equal((await run(tool('legacy_get-sum'), { a: 1, b: 1 })).output, 'The sum of 1 and 1 is 2.');
      } finally {
        await session.stop();
      }
    });

    it('a URL where nothing answers fails to start with both transports named', async () => {
      const { session, tools, log } = await startSession([urlDefinition('gone', { type: 'http', url: 'http://127.0.0.1:9/mcp', headers: {} })]);
      assert.deepEqual(tools, []);
      assert.equal(session.connections[0].state, 'failed');
      assert.match(
        logs(log)[0].message,
        /^MCP server "gone" could not start: neither Streamable HTTP \(.+\) nor SSE \(.+\) worked at http:\/\/127\.0\.0\.1:9\/mcp\. The run continues without its tools\.$/,
      );
    });
  });

  it('a server that fails to start is named with its exit code and stderr; the others start', async () => {
    const { session, tools, log } = await startSession([
      faulty('broken', '--fail-start'),
      faulty('fine'),
      { ...faulty('missing'), entry: { type: 'stdio', command: 'no-such-mcp-server-xyz', args: [], env: {} } },
    ]);
    try {
      assert.deepEqual(
        session.states().map((s) => [s.server, s.state]),
        [
          ['broken', 'failed'],
          ['fine', 'running'],
          ['missing', 'failed'],
        ],
      );
      assert.ok(tools.every((t) => t.origin.server === 'fine') && tools.length > 0);
      const warnings = logs(log)
        .filter((e) => e.level === 'warn')
        .map((e) => e.message);
      assert.deepEqual(warnings, [
        'MCP server "broken" could not start: the server exited before it completed the MCP handshake (exit code 3): faulty: refusing to start (as asked). The run continues without its tools.',
        'MCP server "missing" could not start: the command "no-such-mcp-server-xyz" was not found. The run continues without its tools.',
      ]);
    } finally {
      await session.stop();
    }
  });

  it('a crash mid-call fails that call, restarts the server once for later calls, and a second crash is final', async () => {
    const { session, tool, log } = await startSession([faulty()]);
    const connection = session.connections[0];
    try {
      const firstPid = connection.pids[0];
      const crashed = await run(tool('faulty_crash'), {});
      assert.equal(crashed.ok, false);
      assert.equal(crashed.output, 'MCP server "faulty" stopped during the call (exit code 7); it will be restarted for later calls');
      await until(() => !isAlive(firstPid), 'the crashed server to be gone');
      const after = await run(tool('faulty_pid'), {});
      assert.equal(after.ok, true, after.output);
      // The restarted server is another process (its own pid is namespaced under the sandbox: compare Cortex's view).
      assert.equal(connection.pids.length, 2);
      assert.notEqual(connection.pids[1], firstPid);
      assert.ok(isAlive(connection.pids[1]));
      assert.equal((await run(tool('faulty_crash'), {})).output, 'MCP server "faulty" stopped during the call (exit code 7)');
      assert.equal(
        (await run(tool('faulty_echo'), { message: 'x' })).output,
        'MCP server "faulty" stopped again after its restart; its tools cannot be used for the rest of this run',
      );
      const messages = logs(log).map((e) => e.message);
      assert.ok(messages.includes('MCP server "faulty" stopped unexpectedly (exit code 7)'), messages.join('\n'));
      assert.ok(messages.includes('Restarting MCP server "faulty" (restart 1 of 1)'), messages.join('\n'));
    } finally {
      await session.stop();
    }
    for (const pid of connection.pids) assert.equal(isAlive(pid), false);
  });

  it("a call past the tool timeout is cancelled (the server gets MCP's cancellation), nothing hangs, and stop kills the hung server", async () => {
    const marker = join(tempWorkspace(), 'cancelled.txt');
    const { session, tool } = await startSession([faulty('faulty', `--cancelled=${marker}`)]);
    const pid = session.connections[0].pids[0];
    const started = Date.now();
    const result = await run(tool('faulty_hang'), {}, { timeoutMs: 700 });
    assert.ok(Date.now() - started < 3000, `took ${Date.now() - started} ms`);
    assert.deepEqual([result.ok, result.timedOut, result.output], [false, true, "'faulty_hang' timed out after 1 s and was stopped"]);
    await until(() => existsSync(marker), 'the server to see the cancellation');
    assert.equal(readFileSync(marker, 'utf8'), 'cancelled');
    assert.equal((await run(tool('faulty_echo'), { message: 'still here' })).output, 'still here', 'the server still answers after a cancelled call');
    await session.stop();
    assert.equal(isAlive(pid), false);
  });

  it('huge output is capped before the model sees it; error results and mixed content are rendered', async () => {
    const { session, tool } = await startSession([faulty()]);
    try {
      const huge = await run(tool('faulty_huge'), { bytes: 2_000_000 }, { maxOutputBytes: 4096 });
      assert.equal(huge.ok, true);
      assert.ok(Buffer.byteLength(huge.output) <= 4096, `${Buffer.byteLength(huge.output)} bytes`);
      assert.match(huge.output, /^HEADx+\n\n\[\.\.\. output truncated: \d+ of 2000000 bytes omitted \.\.\.\]\n\nx+TAIL$/);
      const failed = await run(tool('faulty_fail'), {});
      assert.deepEqual([failed.ok, failed.output], [false, 'the tool could not do it']);
      assert.equal(
        (await run(tool('faulty_mixed'), {})).output,
        [
          'Here is a picture:',
          '[image image/png, 300 bytes: not shown, this model does not take images here (this call has no way to send images to the model)]',
          '[embedded resource file:///notes.txt (text/plain, 12 characters)]',
          'secret notes',
        ].join('\n'),
      );
    } finally {
      await session.stop();
    }
  });

  it('a server gets a scrubbed environment (no API keys) plus its own env, and its child processes stop with it', async () => {
    const markerFile = join(tempWorkspace(), 'grandchild.marker');
    const definition = faulty('faulty', `--grandchild=${markerFile}`);
    if (definition.entry.type === 'stdio') definition.entry.env = { SERVER_OWN: 'mine' };
    const { session, tool } = await startSession([definition], { ...process.env, OPENAI_API_KEY: 'sk-secret', GITHUB_TOKEN: 'ghp-secret' });
    const pid = session.connections[0].pids[0];
    await until(() => existsSync(markerFile) && processesMatching(readFileSync(markerFile, 'utf8')).length > 0, 'the child process to start');
    const grandchild = readFileSync(markerFile, 'utf8');
    try {
      assert.equal((await run(tool('faulty_env'), { name: 'OPENAI_API_KEY' })).output, '(unset)');
      assert.equal((await run(tool('faulty_env'), { name: 'GITHUB_TOKEN' })).output, '(unset)');
      assert.equal((await run(tool('faulty_env'), { name: 'SERVER_OWN' })).output, 'mine');
      assert.notEqual((await run(tool('faulty_env'), { name: 'PATH' })).output, '(unset)');
      assert.equal(processesMatching(grandchild).length, 1);
    } finally {
      await session.stop();
    }
    assert.equal(isAlive(pid), false);
    await until(() => processesMatching(grandchild).length === 0, `the server's child process ${grandchild} to be gone`);
  });

  it('under the sandbox, a `setsid` process the server started (outside its process group) stops with it', async () => {
    const probe = await probeSandbox();
    if (!probe.available) throw new Error(`this test needs a working bubblewrap (Debian/Ubuntu package "bubblewrap"): ${probe.reason}`);
    const markerFile = join(tempWorkspace(), 'setsid.marker');
    const { session, tool } = await startSession([faulty('faulty', `--setsid-child=${markerFile}`)]);
    await until(() => existsSync(markerFile) && processesMatching(readFileSync(markerFile, 'utf8')).length > 0, 'the setsid child to start');
    const marker = readFileSync(markerFile, 'utf8');
    try {
      assert.equal((await run(tool('faulty_echo'), { message: 'hi' })).output, 'hi');
      assert.equal(processesMatching(marker).length, 1, 'the setsid child runs while the server does');
    } finally {
      await session.stop();
    }
    await until(() => processesMatching(marker).length === 0, `the setsid child (${marker}) to be gone after the run`);
  });

  it('clashing tool names stop every server and name both tools', async () => {
    const attempt = startSession([faulty('my-srv'), faulty('my_srv'), faulty('read', '--extra-tool=file')]);
    await assert.rejects(attempt, (error: Error) => {
      assert.ok(error instanceof McpToolConflictError);
      assert.match(
        error.message,
        /the tool "echo" of MCP server "my-srv" \(as "my-srv_echo"\) and the tool "echo" of MCP server "my_srv" \(as "my_srv_echo"\) both normalize to "my_srv_echo"/,
      );
      assert.match(error.message, /the tool "file" of MCP server "read" \(as "read_file"\) has the name of the built-in tool "read_file"/);
      return true;
    });
  });
});
