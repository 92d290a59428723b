import assert from 'node:assert/strict';
import { eventsOf, runAgainst } from '../support/agentHarness';
import { call, json, message, route, toolCalls } from '../support/scriptedReplies';
import { startScriptedServer, type ScriptedServer } from '../support/scriptedServer';

describe('agent run: bad endpoints, nonsense and cancel', () => {
  let server: ScriptedServer;
  afterEach(async () => {
    await server?.close();
  });

  it('an unreachable endpoint fails the run with a clear message and a finished trace', async () => {
    server = await startScriptedServer();
    const baseUrl = server.baseUrl;
    await server.close();
    const { result, events } = await runAgainst({ ...server, baseUrl });
    assert.equal(result.status, 'failed');
    assert.match(result.error ?? '', /reach|connect|ECONNREFUSED/i);
    assert.doesNotMatch(result.error ?? '', /\n\s+at /, 'no stack trace');
    assert.equal(events[events.length - 1].type, 'run_finished');
  });

  it('a 401 says the key was rejected', async () => {
    server = await startScriptedServer(route({ planner: json({ title: 't', steps: ['x'], dependencies: {} }) }), { apiKey: 'the-right-key' });
    const { result } = await runAgainst(server);
    assert.equal(result.status, 'failed');
    assert.match(result.error ?? '', /401|API key/i);
  });

  it('cancel aborts the in-flight request promptly and records the run as cancelled', async () => {
    server = await startScriptedServer(
      route({
        planner: json({ title: 't', steps: ['Slow step'], dependencies: {} }),
        executor: { kind: 'hang' },
      }),
    );
    const started = Date.now();
    const { result, events } = await runAgainst(server, {
      onStart: (run, log) => {
        log.subscribe((event) => {
          if (event.type === 'step_status_changed' && event.status === 'in_progress') setTimeout(() => run.cancel(), 100);
        });
      },
    });
    assert.equal(result.status, 'cancelled');
    assert.ok(Date.now() - started < 5000, 'cancel is prompt');
    assert.equal(events[events.length - 1].type, 'run_finished');
    assert.equal(result.snapshot.steps[0].status, 'failed');
    assert.equal(result.snapshot.steps[0].endReason, 'cancelled');
  });

  it('cancel while a command runs kills it and leaves the call pending', async () => {
    server = await startScriptedServer(
      route({
        planner: json({ title: 't', steps: ['Run a long command'], dependencies: {} }),
        executor: toolCalls(call('run_command', { command: 'sleep 30' })),
      }),
    );
    const started = Date.now();
    const { result } = await runAgainst(server, {
      settings: { 'cortex.policy.tools': { run_command: 'allow' } },
      onStart: (run, log) => {
        log.subscribe((event) => {
          if (event.type === 'tool_call_requested') setTimeout(() => run.cancel(), 300);
        });
      },
    });
    assert.equal(result.status, 'cancelled');
    assert.ok(Date.now() - started < 10_000, 'the command was killed');
    assert.equal(result.snapshot.steps[0].toolCalls[0].status, 'pending');
  });

  it('a model answering nonsense to the planner twice gives a clear error', async () => {
    server = await startScriptedServer(route({ planner: json({ steps: 'not a list' }) }));
    const { result, events } = await runAgainst(server);
    assert.equal(result.status, 'failed');
    assert.match(result.error ?? '', /valid plan/);
    assert.equal(eventsOf(events, 'llm_request').filter((e) => e.purpose === 'planner').length, 2);
  });

  it('a dangling dependency in the plan is rejected with the index named', async () => {
    server = await startScriptedServer(route({ planner: json({ title: 't', steps: ['a'], dependencies: { '0': [3] } }) }));
    const { result } = await runAgainst(server);
    assert.equal(result.status, 'failed');
    assert.match(result.error ?? '', /3/);
  });

  it('fails over to the fallback model on a 404 for the requested model', async () => {
    server = await startScriptedServer(
      route({ planner: json({ title: 't', steps: ['Say hi'], dependencies: {} }), executor: message('hi'), aggregator: message('done') }),
      { models: ['backup-model'] },
    );
    const { result, events } = await runAgainst(server, { settings: { 'cortex.llm.fallbackModels': ['backup-model'] } });
    assert.equal(result.status, 'completed', result.error);
    const planner = eventsOf(events, 'llm_request').find((e) => e.purpose === 'planner')!;
    assert.equal(planner.requestedModel, 'test-model');
    assert.equal(planner.usedModel, 'backup-model');
    assert.ok(planner.attempts.length >= 2);
    // The model that answered is kept for the run: the missing one is asked exactly once, and the
    // switch is said once.
    assert.equal(server.chatRequests().filter((r) => r.body.model === 'test-model').length, 1);
    const warnings = eventsOf(events, 'log').filter((e) => e.level === 'warn' && /not found/.test(e.message));
    assert.deepEqual(
      warnings.map((e) => e.message),
      [`model test-model not found at ${server.baseUrl} — using backup-model`],
    );
  });
});
