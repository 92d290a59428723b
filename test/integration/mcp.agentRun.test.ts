import assert from 'node:assert/strict';
import type { RunEvent } from '../../src/core/plan/events';
import { eventsOf } from '../support/agentHarness';
import { byStep, call, json, message, route, systemMessage, toolCalls, toolMessages, toolNames } from '../support/scriptedReplies';
import type { ScriptedRequest } from '../support/scriptedServer';
import { useScriptedServer } from '../support/useScriptedServer';
import { everythingStdio, faulty, isAlive, startEverythingHttp, until, urlDefinition } from '../fixtures/mcp/mcpServers';
import { processesMatching } from '../unit/sandbox/sandboxSupport';
import { logMessages, runWithMcp } from '../fixtures/mcp/mcpRun';

// MCP tools through the real agent run (docs/design.md, “MCP tools”): the scripted model calls them by
// their registry names, and they take the native tools' path: validation, policy and approval,
// execution with the timeout and output cap, the trace.

const answered = (req: ScriptedRequest) => toolMessages(req).length > 0;
const oneStep = (step: string, executor: (req: ScriptedRequest) => ReturnType<typeof message>) =>
  route({ planner: json({ title: 'MCP', steps: [step], dependencies: {} }), executor, aggregator: message('done') });

function startedPids(events: RunEvent[]): number[] {
  return eventsOf(events, 'log').flatMap((e) => (typeof e.data?.pid === 'number' ? [e.data.pid] : []));
}

describe('MCP tools in an agent run', function () {
  this.timeout(60_000);
  const server = useScriptedServer();

  it('the model calls an MCP tool: it asks first, runs, and the trace records the server, the raw result and the start and stop', async () => {
    let toolMessage = '';
    let offered: string[] = [];
    server().setHandler(
      oneStep('Add 2 and 3 with the everything server', (req) => {
        offered = toolNames(req);
        if (!answered(req)) return toolCalls(call('everything_get-sum', { a: 2, b: 3 }));
        toolMessage = String(toolMessages(req)[0].content);
        return message('5');
      }),
    );
    const { result, events, approvals } = await runWithMcp(server(), { servers: [everythingStdio()] });
    server().assertNoRejections();
    assert.equal(result.status, 'completed', result.error);
    assert.equal(toolMessage, 'The sum of 2 and 3 is 5.');
    assert.ok(offered.includes('read_file') && offered.includes('everything_get-sum') && offered.includes('everything_echo'), offered.join(', '));
    assert.match(
      systemMessage(server().requests.find((r) => r.purpose === 'planner')!),
      /- everything_get-sum: Returns the sum of two numbers \(MCP server "everything"\)/,
    );

    assert.equal(approvals.length, 1, 'MCP tools need confirmation by default');
    assert.equal(approvals[0].toolName, 'everything_get-sum');
    assert.match(approvals[0].reason, /MCP server "everything", tool "get-sum" \(annotations: read-only, not destructive, idempotent, closed world/);

    const requested = eventsOf(events, 'tool_call_requested')[0];
    assert.deepEqual(requested.call.audit?.mcp, {
      server: 'everything',
      tool: 'get-sum',
      annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    });
    const raw = eventsOf(events, 'step_audit').find((e) => e.kind === 'mcp_result');
    assert.deepEqual(raw?.data, {
      callId: requested.call.id,
      server: 'everything',
      tool: 'get-sum',
      isError: false,
      raw: '{"content":[{"type":"text","text":"The sum of 2 and 3 is 5."}]}',
    });
    const completed = eventsOf(events, 'tool_call_completed')[0];
    assert.deepEqual([completed.status, completed.result], ['success', 'The sum of 2 and 3 is 5.']);

    const logs = logMessages(events);
    assert.match(logs[0], /^MCP server "everything" started \(stdio, pid \d+\) with \d+ tool\(s\)$/);
    assert.ok(logs.includes('Stopped MCP server(s): everything'));
    const stoppedAt = events.findIndex((e) => e.type === 'log' && e.message.startsWith('Stopped MCP'));
    assert.ok(stoppedAt < events.length - 1 && events.at(-1)!.type === 'run_finished', 'servers stop before run_finished');
    for (const pid of startedPids(events)) assert.equal(isAlive(pid), false, `pid ${pid} outlived the run`);
  });

  it('read-only tools of an allowed server run without asking, and run concurrently in parallel mode', async () => {
    server().setHandler(
      oneStep('Sleep twice on faulty', (req) =>
        answered(req) ? message('slept') : toolCalls(call('faulty_sleep', { ms: 1000 }), call('faulty_sleep', { ms: 1001 })),
      ),
    );
    const { result, events, approvals } = await runWithMcp(server(), {
      servers: [faulty()],
      settings: { 'cortex.mcp.allowReadOnly': ['faulty'], 'cortex.execution.toolExecution': 'parallel' },
    });
    assert.equal(result.status, 'completed', result.error);
    assert.equal(approvals.length, 0);
    const batch = eventsOf(events, 'step_audit').find((e) => e.kind === 'tool_batch')!;
    assert.equal(batch.data.executed, 2);
    assert.ok((batch.data.totalMs as number) < 1800, `two 1 s calls took ${String(batch.data.totalMs)} ms together: they did not overlap`);
  });

  it('policy keys deny an MCP tool: it never runs and the model is told', async () => {
    let told = '';
    server().setHandler(
      oneStep('Echo on faulty', (req) =>
        answered(req) ? ((told = String(toolMessages(req)[0].content)), message('denied')) : toolCalls(call('faulty_echo', { message: 'hi' })),
      ),
    );
    const { result, events } = await runWithMcp(server(), {
      servers: [faulty()],
      settings: { 'cortex.policy.tools': { 'mcp:*': 'allow', 'mcp:faulty/echo': 'deny' } },
    });
    assert.equal(result.status, 'completed', result.error);
    assert.match(told, /denied by policy/i);
    assert.equal(eventsOf(events, 'tool_call_completed')[0].reason, 'policy_denied');
    assert.equal(eventsOf(events, 'step_audit').filter((e) => e.kind === 'mcp_result').length, 0, 'the server was never called');
  });

  it("arguments are validated against the server's inputSchema: the model gets the invalid payload and retries", async () => {
    const payloads: string[] = [];
    server().setHandler(
      oneStep('Echo a message on faulty', (req) => {
        const turn = toolMessages(req);
        if (turn.length === 0) return toolCalls(call('faulty_echo', { message: 7, times: 9, loud: true }));
        payloads.push(String(turn[0].content));
        return payloads.length === 1 ? toolCalls(call('faulty_echo', { message: 'hi', times: 2 })) : message('echoed');
      }),
    );
    const { result } = await runWithMcp(server(), {
      servers: [faulty()],
      settings: { 'cortex.repair.toolCallAttempts': 0, 'cortex.mcp.allowReadOnly': ['faulty'] },
    });
    assert.equal(result.status, 'completed', result.error);
    assert.deepEqual(JSON.parse(payloads[0]), {
      tool: 'faulty_echo',
      error:
        "Invalid arguments: field 'message' must be string, got integer; field 'times' must be at most 5; unknown field(s): loud (allowed: message, times)",
      receivedArgs: { message: 7, times: 9, loud: true },
    });
    assert.equal(payloads[1], 'hi hi');
  });

  it('a server that fails to start is a warning naming it; the run continues with the other tools', async () => {
    let offered: string[] = [];
    server().setHandler(oneStep('List the files', (req) => ((offered = toolNames(req)), message('nothing to list'))));
    const { result, events } = await runWithMcp(server(), {
      servers: [faulty('broken', '--fail-start')],
      notices: ['MCP server "ws" from .vscode/mcp.json was not started: not allowed for this workspace'],
    });
    assert.equal(result.status, 'completed', result.error);
    assert.deepEqual(logMessages(events, 'warn'), [
      'MCP server "ws" from .vscode/mcp.json was not started: not allowed for this workspace',
      'MCP server "broken" could not start: the server exited before it completed the MCP handshake (exit code 3): faulty: refusing to start (as asked). The run continues without its tools.',
    ]);
    assert.ok(offered.includes('read_file') && !offered.some((name) => name.startsWith('broken_')));
  });

  it('a crash mid-call errors that call; the server restarts for the next one and the run completes', async () => {
    const results: string[] = [];
    server().setHandler(
      oneStep('Crash then ask the pid on faulty', (req) => {
        const turn = toolMessages(req);
        if (turn.length > 0) results.push(String(turn[0].content));
        if (turn.length > 1) results.push(String(turn[1].content));
        // The crash shares its turn with a call that succeeds, so the turn is not "all calls failed".
        if (results.length === 0) return toolCalls(call('faulty_crash'), call('faulty_echo', { message: 'after the crash' }));
        if (results.length === 2) return toolCalls(call('faulty_pid'));
        return message('restarted');
      }),
    );
    // The server's own pid is namespaced under the sandbox: it is found by a marker in its command line.
    const marker = `--marker=cortex-crash-${process.pid}-${Date.now()}`;
    const { result, events } = await runWithMcp(server(), {
      servers: [faulty('faulty', marker)],
      settings: { 'cortex.policy.tools': { 'mcp:faulty': 'allow' } },
    });
    assert.equal(result.status, 'completed', result.error);
    assert.equal(results[0], 'Error: MCP server "faulty" stopped during the call (exit code 7); it will be restarted for later calls');
    assert.equal(results[1], 'after the crash', 'the next call restarted the server');
    assert.match(results[2], /^\d+$/);
    const statuses = eventsOf(events, 'tool_call_completed').map((e) => [e.status, e.reason]);
    assert.deepEqual(statuses, [
      ['error', 'tool_failed'],
      ['success', undefined],
      ['success', undefined],
    ]);
    assert.ok(logMessages(events).includes('Restarting MCP server "faulty" (restart 1 of 1)'));
    await until(() => processesMatching(marker).length === 0, 'the restarted server to stop with the run');
  });

  it('a call past cortex.execution.toolTimeoutSeconds is cancelled and fails alone; the hung server is stopped at the end', async () => {
    server().setHandler(
      route({
        planner: json({ title: 'MCP', steps: ['Hang on faulty'], dependencies: {} }),
        executor: toolCalls(call('faulty_hang')),
        replanner: json({ action: 'give_up', new_steps: [], new_dependencies: {}, reason: 'the server hangs' }),
        aggregator: message('done'),
      }),
    );
    const started = Date.now();
    const { result, events } = await runWithMcp(server(), {
      servers: [faulty()],
      settings: { 'cortex.execution.toolTimeoutSeconds': 1, 'cortex.mcp.allowReadOnly': ['faulty'] },
    });
    assert.ok(Date.now() - started < 15_000, `took ${Date.now() - started} ms`);
    const completed = eventsOf(events, 'tool_call_completed')[0];
    assert.deepEqual([completed.status, completed.result], ['error', "Error: 'faulty_hang' timed out after 1 s and was stopped"]);
    assert.ok(
      eventsOf(events, 'step_status_changed').some((e) => e.status === 'failed' && e.reason === 'all_tool_calls_failed'),
      'its only call failed, so the step failed',
    );
    assert.equal(result.status, 'failed');
    assert.equal(startedPids(events).length, 1);
    for (const pid of startedPids(events)) assert.equal(isAlive(pid), false);
  });

  it('huge output is capped like any tool output', async () => {
    let told = '';
    server().setHandler(
      oneStep('Get a huge text from faulty', (req) =>
        answered(req) ? ((told = String(toolMessages(req)[0].content)), message('ok')) : toolCalls(call('faulty_huge', { bytes: 3_000_000 })),
      ),
    );
    const { result } = await runWithMcp(server(), {
      servers: [faulty()],
      settings: { 'cortex.limits.maxToolOutputBytes': 2048, 'cortex.policy.tools': { 'mcp:*': 'allow' } },
    });
    assert.equal(result.status, 'completed', result.error);
    assert.ok(Buffer.byteLength(told) <= 2048, `${Buffer.byteLength(told)} bytes`);
    assert.match(told, /^HEAD.*output truncated: \d+ of 3000000 bytes omitted.*TAIL$/s);
  });

  it('a tool name clash is an error at run start naming both tools; nothing is planned and no server is left running', async () => {
    server().setHandler(route({}));
    const { result, events } = await runWithMcp(server(), { servers: [faulty('read', '--extra-tool=file')] });
    assert.equal(result.status, 'failed');
    assert.match(
      result.error ?? '',
      /^MCP tool names clash: the tool "file" of MCP server "read" \(as "read_file"\) has the name of the built-in tool "read_file"/,
    );
    assert.equal(server().requests.length, 0, 'no model request was made');
    assert.equal(startedPids(events).length, 1);
    for (const pid of startedPids(events)) assert.equal(isAlive(pid), false);
  });

  it('with more MCP tools than cortex.mcp.maxTools, the planner sees them all and each step gets the servers it needs', async () => {
    const offeredByStep = new Map<string, string[]>();
    server().setHandler(
      route({
        planner: json({ title: 'Two servers', steps: ['Add numbers with get-sum', 'Ask faulty for its pid'], dependencies: {} }),
        executor: byStep({
          'Add numbers with get-sum': (req) => (offeredByStep.set('sum', toolNames(req)), message('added')),
          'Ask faulty for its pid': (req) => (offeredByStep.set('pid', toolNames(req)), message('asked')),
        }),
        aggregator: message('done'),
      }),
    );
    const { result, events } = await runWithMcp(server(), { servers: [everythingStdio(), faulty()], settings: { 'cortex.mcp.maxTools': 10 } });
    assert.equal(result.status, 'completed', result.error);
    const planner = systemMessage(server().requests.find((r) => r.purpose === 'planner')!);
    for (const name of ['everything_get-sum', 'everything_toggle-simulated-logging', 'faulty_pid', 'faulty_hang'])
      assert.match(planner, new RegExp(`- ${name}: `));
    const mcpOf = (names: string[] | undefined) => (names ?? []).filter((name) => name.startsWith('everything_') || name.startsWith('faulty_'));
    const sum = mcpOf(offeredByStep.get('sum'));
    assert.ok(sum.includes('everything_get-sum') && sum.length <= 10 && !sum.some((n) => n.startsWith('faulty_')), sum.join(', '));
    const pid = mcpOf(offeredByStep.get('pid'));
    assert.ok(pid.includes('faulty_pid') && pid.every((n) => n.startsWith('faulty_')), pid.join(', '));
    const audits = eventsOf(events, 'step_audit').filter((e) => e.kind === 'mcp_tools');
    assert.equal(audits.length, 2);
    assert.deepEqual(
      audits
        .map((a) => (a.data.servers as Array<{ server: string; reason: string }>)[0])
        .map((s) => [s.server, s.reason])
        .sort(),
      [
        ['everything', 'named'],
        ['faulty', 'named'],
      ],
    );
  });

  it('a Streamable HTTP server works through the run too', async () => {
    const http = await startEverythingHttp('streamableHttp');
    try {
      let told = '';
      server().setHandler(
        oneStep('Echo over http', (req) =>
          answered(req) ? ((told = String(toolMessages(req)[0].content)), message('ok')) : toolCalls(call('remote_echo', { message: 'hello' })),
        ),
      );
      const { result, events } = await runWithMcp(server(), {
        servers: [urlDefinition('remote', { type: 'http', url: http.url, headers: {} })],
        settings: { 'cortex.mcp.allowReadOnly': ['remote'] },
      });
      assert.equal(result.status, 'completed', result.error);
      assert.equal(told, 'Echo: hello');
      assert.match(logMessages(events)[0], /^MCP server "remote" started \(http\) with \d+ tool\(s\)$/);
    } finally {
      await http.stop();
    }
  });

  it('Restricted Mode starts no MCP server and says so', async () => {
    let offered: string[] = [];
    server().setHandler(oneStep('Read things', (req) => ((offered = toolNames(req)), message('read'))));
    const { result, events } = await runWithMcp(server(), { servers: [faulty()], trusted: false });
    assert.equal(result.status, 'completed', result.error);
    assert.deepEqual(logMessages(events, 'warn'), ['MCP servers are not started in Restricted Mode: faulty']);
    assert.ok(!offered.some((name) => name.startsWith('faulty_')));
  });
});
